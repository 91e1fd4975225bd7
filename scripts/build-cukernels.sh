#!/usr/bin/env bash
# build-cukernels.sh compiles cukernels/softmax.cu into one fatbin, and
# softmax_span.cu (its float32, bfloat16 and float64 forward kernels with x - m
# taken halved, SM_SPAN) into a second: SASS for every architecture in
# ARCHS and PTX for the newest, so later GPUs JIT them. `go generate
# ./cukernels` runs it; scripts/check-cukernels.sh runs it to check that
# the committed fatbins are what the sources give.
#
#   bash scripts/build-cukernels.sh [DIR]     (default cukernels: writes
#                                              DIR/softmax.fatbin and
#                                              DIR/softmax_span.fatbin)
#
# It takes NVCC and NVCC_CCBIN from the environment, or from
# scripts/cuda-sdk.sh (CUDA 12.4 from Debian trixie, host compiler clang-14).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=$(realpath -m "${1:-$repo/cukernels}")
if [ ! -d "$dir" ]; then
	echo "build-cukernels: $dir is not a folder (the script writes softmax.fatbin and softmax_span.fatbin into one)" >&2
	exit 2
fi
if [ -z "${NVCC:-}" ]; then
	eval "$(bash "$repo/scripts/cuda-sdk.sh")"
fi
# SASS runs on later minor versions of its major (sm_75 takes sm_70's,
# sm_86 and sm_89 sm_80's), so three architectures cover every GPU from
# Volta on at half the size of six.
ARCHS=(70 80 90)
PTX=90
FLAGS=(-std=c++17 -O3 -fatbin -Xfatbin -compress-all)
gencode=()
for a in "${ARCHS[@]}"; do
	gencode+=(-gencode "arch=compute_$a,code=sm_$a")
done
gencode+=(-gencode "arch=compute_$PTX,code=compute_$PTX")
# Build from the kernel folder with relative names, so no path of this
# checkout ends up in the output.
cd "$repo/cukernels"
# Both are built before either replaces its committed file, so a failed
# build leaves the pair as it was.
for src in softmax softmax_span; do
	"$NVCC" -ccbin "${NVCC_CCBIN:-clang-14}" --threads 0 "${FLAGS[@]}" "${gencode[@]}" -o "$dir/$src.fatbin.tmp" "$src.cu"
done
for src in softmax softmax_span; do
	mv "$dir/$src.fatbin.tmp" "$dir/$src.fatbin"
done
