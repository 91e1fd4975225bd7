#!/usr/bin/env bash
# check-cukernels.sh rebuilds the kernel fatbin with the documented
# toolchain (scripts/cuda-sdk.sh: CUDA 12.4 nvcc, clang-14) and fails if it
# differs from the committed cukernels/softmax.fatbin: a kernel source was
# changed without `go generate ./cukernels`, or the fatbin was built some
# other way.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$repo/scripts/build-cukernels.sh" "$tmp/softmax.fatbin"
if ! cmp -s "$tmp/softmax.fatbin" "$repo/cukernels/softmax.fatbin"; then
	echo "check-cukernels: cukernels/softmax.fatbin is stale or not reproducible:" >&2
	echo "  committed $(sha256sum <"$repo/cukernels/softmax.fatbin" | cut -c1-16), rebuilt $(sha256sum <"$tmp/softmax.fatbin" | cut -c1-16)" >&2
	echo "  run: go generate ./cukernels   (with the environment from scripts/cuda-sdk.sh)" >&2
	exit 1
fi
echo "check-cukernels: cukernels/softmax.fatbin matches its sources"
