#!/usr/bin/env bash
# check-cukernels.sh rebuilds the kernel fatbins with the documented
# toolchain (scripts/cuda-sdk.sh: CUDA 12.4 nvcc, clang-14) and fails if
# either differs from the committed cukernels/softmax.fatbin and
# cukernels/softmax_span.fatbin: a kernel source was changed without `go
# generate ./cukernels`, or a fatbin was built some other way.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$repo/scripts/build-cukernels.sh" "$tmp"
status=0
for f in softmax.fatbin softmax_span.fatbin; do
	if ! cmp -s "$tmp/$f" "$repo/cukernels/$f"; then
		echo "check-cukernels: cukernels/$f is stale or not reproducible:" >&2
		echo "  committed $(sha256sum <"$repo/cukernels/$f" | cut -c1-16), rebuilt $(sha256sum <"$tmp/$f" | cut -c1-16)" >&2
		echo "  run: go generate ./cukernels   (with the environment from scripts/cuda-sdk.sh)" >&2
		status=1
	fi
done
[ $status -eq 0 ] && echo "check-cukernels: cukernels/softmax.fatbin and softmax_span.fatbin match their sources"
exit $status
