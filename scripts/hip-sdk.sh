#!/usr/bin/env bash
# hip-sdk.sh installs what the `hip` build tag and the HIP kernels need:
# Debian's hipcc (5.2.3 on bookworm, with its clang and the AMD device
# libraries) and libamdhip64-dev (the HIP runtime's headers and library),
# through apt-get from the machine's own package sources. It then prints the
# environment to build with:
#
#   eval "$(bash scripts/hip-sdk.sh)"
#
# CGO_CFLAGS carries -D__HIP_PLATFORM_AMD__, without which the HIP headers
# refuse to compile; HIPCC is the kernel compiler that `go generate
# ./hipkernels` and scripts/check-hipkernels.sh use. A user with a ROCm
# install sets ROCM_PATH instead, and only the environment is printed.
set -euo pipefail

log() { echo "hip-sdk: $*" >&2; }

emit() { # include-dir lib-dir hipcc
	printf 'export CGO_CFLAGS=%q\n' "-I$1 -D__HIP_PLATFORM_AMD__"
	printf 'export CGO_LDFLAGS=%q\n' "-L$2"
	printf 'export HIPCC=%q\n' "$3"
}

if [ -n "${ROCM_PATH:-}" ]; then
	emit "$ROCM_PATH/include" "$ROCM_PATH/lib" "$ROCM_PATH/bin/hipcc"
	exit 0
fi

if ! command -v hipcc >/dev/null || [ ! -f /usr/include/hip/hip_runtime_api.h ] ||
	! ls /usr/lib/x86_64-linux-gnu/libamdhip64.so >/dev/null 2>&1; then
	sudo=()
	[ "$(id -u)" = 0 ] || sudo=(sudo)
	log "installing hipcc and libamdhip64-dev with apt-get"
	"${sudo[@]}" apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
		hipcc libamdhip64-dev >&2
fi
emit /usr/include /usr/lib/x86_64-linux-gnu "$(command -v hipcc)"
