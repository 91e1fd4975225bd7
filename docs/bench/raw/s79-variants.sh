#!/bin/bash
# s79-variants.sh builds the sm_90 fatbins GPU entry 123 compares through
# `softmax-bench -fatbin`, from this checkout's cukernels, each xz'd into
# bin/ for the call to carry:
#   v0  the sources as they are (the control: the same build as the
#       variants, so only the patches differ);
#   v2  s79-stagedw-async.patch: the warp form's forward copies its rows
#       in through cp.async, every pack in flight at once, where
#       staged_copy takes two round trips (two packs a thread a round);
#   v3  v2 and s79-stagedw-16.patch: its launch bound at 16 blocks an SM
#       (32 registers, no spills on sm_90; 12 before, at 40).
# About 6 minutes on two cores. Needs the CUDA toolkit (scripts/cuda-sdk.sh).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
raw=$repo/docs/bench/raw
if [ -z "${NVCC:-}" ]; then
	eval "$(bash "$repo/scripts/cuda-sdk.sh")"
fi
mkdir -p "$repo/bin"
build() { # name patch...
	local name=$1 d
	shift
	d=$(mktemp -d)
	cp -r "$repo/cukernels" "$d/"
	for p in "$@"; do patch -s -d "$d" -p1 <"$raw/$p"; done
	(cd "$d/cukernels" && "$NVCC" -ccbin "${NVCC_CCBIN:-clang-14}" -std=c++17 -O3 -fatbin \
		-gencode arch=compute_90,code=sm_90 -o "$d/$name.fatbin" softmax.cu)
	xz -9 -c "$d/$name.fatbin" >"$repo/bin/$name.fatbin.xz"
	rm -rf "$d"
}
build v0 &
v0=$!
build v2 s79-stagedw-async.patch &
v2=$!
build v3 s79-stagedw-async.patch s79-stagedw-16.patch &
v3=$!
wait $v0 && wait $v2 && wait $v3
ls -l "$repo"/bin/v?.fatbin.xz
