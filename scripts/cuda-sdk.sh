#!/usr/bin/env bash
# cuda-sdk.sh prints the environment for building the `cu` tag and the CUDA
# kernels: CGO_CFLAGS, CGO_LDFLAGS and NVCC (with NVCC_CCBIN, the host
# compiler nvcc is run with).
#
#   eval "$(bash scripts/cuda-sdk.sh)"
#
# With CUDA_HOME set (an installed CUDA 11.x or 12.x toolkit), it only prints
# the environment for that toolkit. Otherwise it fetches a Debian release's
# CUDA toolkit (headers, the libcuda link stub, nvcc) into a cache folder and
# prints the environment for that. CUDA_SDK_SUITE picks the release:
#
#   trixie   (default) CUDA 12.4: nvidia-cuda-dev, nvidia-cuda-toolkit and
#            libnvvm4 from non-free, libcu++-dev (nv/target) from main.
#            The committed fatbin is this toolkit's: with CUDA 12, tier 8
#            compiles without its cluster fences (SM_PTX8 in port.cuh;
#            docs/PERFORMANCE.md GPU entries 16 and 17).
#   bookworm CUDA 11.8, the toolkit before it.
#
# The toolkit goes into CUDA_CACHE/<suite> (CUDA_CACHE defaults to .cache/cuda
# in the repository, which git ignores). Nothing is installed system-wide
# except clang-14 (the host compiler: nvcc 11.8 rejects gcc 12, and the
# fatbin is built with one compiler whichever the toolkit), and only when it
# is missing.
#
# The package source is derived from this machine's own apt configuration:
# its Debian entry, with the suite and components changed. No archive host
# is written here. The toolkits are unpacked, not installed, so a bookworm
# machine runs trixie's nvcc (checked).
#
# gorgonia.org/cu v0.9.6 does not compile against CUDA 13 headers; binaries
# built on the 11.8 or 12.4 headers run on newer drivers (seen on CUDA 13.0).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}")
suite=${CUDA_SDK_SUITE:-trixie}
log() { echo "cuda-sdk: $*" >&2; }

case $suite in
bookworm)
	pkgs=(nvidia-cuda-dev nvidia-cuda-toolkit)
	components="contrib non-free"
	;;
trixie) # CUDA 12's nvcc also needs nv/target (libcu++-dev, in main) and libnvvm4.
	pkgs=(nvidia-cuda-dev nvidia-cuda-toolkit libcu++-dev libnvvm4)
	components="main contrib non-free"
	;;
*)
	log "CUDA_SDK_SUITE=$suite: want trixie (CUDA 12.4) or bookworm (CUDA 11.8)"
	exit 1
	;;
esac

ccbin() {
	if command -v clang-14 >/dev/null; then
		command -v clang-14
		return
	fi
	log "installing clang-14 (nvcc's host compiler)"
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 >&2
	else
		sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 >&2
	fi
	command -v clang-14
}

emit() { # include-dir lib-dir nvcc
	# Taken before printing, so a host compiler that cannot be found or
	# installed (trixie itself has no clang-14) fails the script here,
	# not nvcc later. The committed fatbin is clang-14's.
	local cc=${NVCC_CCBIN:-}
	[ -n "$cc" ] || cc=$(ccbin)
	printf 'export CGO_CFLAGS=%q\n' "-I$1"
	printf 'export CGO_LDFLAGS=%q\n' "-L$2"
	printf 'export NVCC=%q\n' "$3"
	printf 'export NVCC_CCBIN=%q\n' "$cc"
}

if [ -n "${CUDA_HOME:-}" ]; then
	lib=$CUDA_HOME/lib64/stubs
	[ -d "$lib" ] || lib=$CUDA_HOME/lib64
	NVCC_CCBIN=${NVCC_CCBIN:-$(command -v g++ || command -v clang++)} \
		emit "$CUDA_HOME/include" "$lib" "$CUDA_HOME/bin/nvcc"
	exit 0
fi

caches=${CUDA_CACHE:-$repo/.cache/cuda}
cache=$caches/$suite
if [ -d "$caches/root" ]; then
	log "$caches/root is an unused toolkit of the old layout (one folder per suite now): remove it to free its space"
fi
root=$cache/root
tk=$root/usr/lib/nvidia-cuda-toolkit

# debian_entry prints this machine's deb822 Debian entry for the release's
# plain suite, with Suites set to $suite and Components to $components.
debian_entry() {
	shopt -s nullglob
	local files=(/etc/apt/sources.list.d/*.sources)
	if [ ${#files[@]} -gt 0 ]; then
		awk -v suite="$codename" -v want="$suite" -v comps="$components" '
			function flush() {
				if (n && uri != "" && (" " suites " ") ~ (" " suite " ") && !done) {
					print "Types: deb"; print "URIs: " uri; print "Suites: " want
					print "Components: " comps
					if (sig != "") print "Signed-By: " sig
					done = 1
				}
				n = 0; uri = ""; suites = ""; sig = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^#/ { next }
			{ n++ }
			/^URIs:/ { sub(/^URIs:[ \t]*/, ""); split($0, u, /[ \t]+/); uri = u[1] }
			/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
			/^Signed-By:/ { sub(/^Signed-By:[ \t]*/, ""); sig = $0 }
			END { flush() }
		' "${files[@]}"
		return
	fi
	# one-line format: "deb [opts] URI SUITE COMPONENTS..."
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk -v suite="$codename" -v want="$suite" -v comps="$components" '$1 == "deb" {
			i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
			if ($(i+1) == suite) { print "Types: deb"; print "URIs: " $i; print "Suites: " want; print "Components: " comps; exit }
		}'
}

if [ ! -f "$root/usr/include/cuda.h" ] || [ ! -x "$tk/bin/nvcc" ]; then
	mkdir -p "$cache/lists/partial" "$cache/debs"
	debian_entry >"$cache/cuda.sources"
	if ! grep -q '^URIs:' "$cache/cuda.sources"; then
		log "found no Debian entry for this release in the apt configuration"
		exit 1
	fi
	# Private lists and package cache: the system's apt state is not touched.
	mkdir -p "$cache/apt-cache/archives/partial"
	apt=(-o Dir::Etc::SourceList="$cache/cuda.sources" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$cache/lists" -o Dir::Cache="$cache/apt-cache" -o Debug::NoLocking=1)
	log "fetching ${pkgs[*]} (about 860 MB for 11.8, 1.1 GB for 12.4) into $cache"
	apt-get "${apt[@]}" -qq update >&2
	rm -f "$cache"/debs/*.deb # an earlier fetch's versions would be unpacked too
	(cd "$cache/debs" && apt-get "${apt[@]}" -qq download "${pkgs[@]}" >&2)
	rm -rf "$root"
	for deb in "$cache"/debs/*.deb; do
		dpkg -x "$deb" "$root"
	done
fi

# nvcc finds its tools and libraries through nvcc.profile next to it. The
# Debian package makes that a link to /etc/nvcc.profile, which points at
# /usr: replace the link with a file (never write through it) that points
# at the unpacked tree. Written only when it differs, and by a rename, so
# builds running at the same time never see it half written.
profile=$(mktemp "$tk/bin/.nvcc.profile.XXXXXX")
cat >"$profile" <<PROFILE
TOP = $root/usr
NVVMIR_LIBRARY_DIR = $tk/libdevice
LD_LIBRARY_PATH += $root/usr/lib/x86_64-linux-gnu:
PATH += $tk/bin:$tk/nvvm/bin:$root/usr/bin:
INCLUDES += "-I$root/usr/include" \$(_SPACE_)
LIBRARIES =+ \$(_SPACE_) "-L$root/usr/lib/x86_64-linux-gnu" "-L$root/usr/lib/x86_64-linux-gnu/stubs"
CUDAFE_FLAGS +=
PTXAS_FLAGS +=
PROFILE
if [ ! -L "$tk/bin/nvcc.profile" ] && cmp -s "$profile" "$tk/bin/nvcc.profile"; then
	rm -f "$profile"
else
	chmod 644 "$profile"
	mv -f "$profile" "$tk/bin/nvcc.profile"
fi

emit "$root/usr/include" "$root/usr/lib/x86_64-linux-gnu/stubs" "$tk/bin/nvcc"
