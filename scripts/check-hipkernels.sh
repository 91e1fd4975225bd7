#!/usr/bin/env bash
# check-hipkernels.sh rebuilds the HIP code objects with the documented
# toolchain (scripts/hip-sdk.sh: Debian's hipcc 5.2.3) and fails if any
# differs from the committed hipkernels/softmax-<target>.co, or if
# resources.txt (registers, LDS and spills per kernel) does: a kernel source
# (cukernels/softmax.cu, *.cuh or hipkernels/softmax.hip)
# was changed without `go generate ./hipkernels`, or the objects were built
# some other way. hipcc's output is byte-stable here (two builds in
# different folders compare equal), so the objects themselves are compared.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${HIPCC:-}" ]; then
	eval "$(bash "$repo/scripts/hip-sdk.sh")"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$repo/hipkernels/build.sh" "$tmp"
status=0
for f in "$tmp"/*; do
	name=$(basename "$f")
	if ! cmp -s "$f" "$repo/hipkernels/$name"; then
		echo "check-hipkernels: hipkernels/$name is stale or not reproducible:" >&2
		echo "  committed $(sha256sum <"$repo/hipkernels/$name" 2>/dev/null | cut -c1-16), rebuilt $(sha256sum <"$f" | cut -c1-16)" >&2
		status=1
	fi
done
if [ $status -ne 0 ]; then
	echo "  run: go generate ./hipkernels   (with the environment from scripts/hip-sdk.sh)" >&2
	exit 1
fi
echo "check-hipkernels: hipkernels/*.co and resources.txt match their sources"
