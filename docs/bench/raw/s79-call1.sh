#!/bin/bash
# The session after 78, call 1, at the commit given ($1). bin/ holds
# cuda.test and softmax-bench built there (the sm_90 cubins of its fatbins
# embedded) and v0, v2, v3.fatbin.xz from docs/bench/raw/s79-variants.sh.
# (Session 78 wrote it as s78-call2.sh; no machine came to run it.)
#   1. TestGPUStagedWarp, TestGPUStaged and TestGPUDispatch (short): the
#      pipelined forward gone (entry 120), the widened rule kept (119).
#   2. On an H200 (PUBLISH=0: not), the published run's benchmark and
#      PyTorch's (scripts/h200-run.sh's steps).
#   3. Entry 121: the half types' softmax forward of whole packs, the plan
#      against SOFTMAX_PACKED=1 and SOFTMAX_STAGEDW=1.
#   4. Entry 122: float32's forward of 57-63 columns, the plan against
#      SOFTMAX_STAGED=1 and SOFTMAX_STRIDED=1.
#   5. Entry 123: the half types' forward of a part pack on the warp form,
#      the v0 build against v2 (cp.async copy-in) and v3 (that at 16
#      blocks an SM), each through -fatbin, and the plan (embedded).
# Two rounds of 3-5, round 1 and PyTorch's timings of 3-5 first.
# Everything goes into $OUT/s79c1.tgz.
set -u
cd "$(dirname "$0")/../../.."
. docs/bench/raw/call-lib.sh s79c1
commit=$1
step tests timeout 150 bin/cuda.test -test.short -test.v -test.count=1 \
	-test.run 'TestGPU(Staged|StagedWarp|Dispatch)$'
grep -E '^(--- |ok|FAIL|PASS)' "$work/tests.log" | head -n 20
if [[ $gpu == *H200* ]] && [ "${PUBLISH:-1}" = 1 ]; then
	nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv >"$work/pub-smi.txt" 2>&1
	step pub-ours timeout 240 bin/softmax-bench -commit "$commit" -out "$work/pub-ours.json"
	step pub-torch timeout 200 python3 bench/torch_bench.py --out "$work/pub-torch.json"
fi
whole=65536x128,131072x128,262144x128,524288x128,262144x64,262144x96,131072x256,262144x256,65536x512,131072x512
f32=131072x63,262144x63,131072x57,131072x60,65536x63
part=131072x197,64x12x197x197,131072x150,65536x250,65536x77,131072x100,32768x197
round() {
	bench plan-whole-r$1 "" float16,bfloat16 $whole softmax
	bench packed-whole-r$1 SOFTMAX_PACKED=1 float16,bfloat16 $whole softmax
	bench w-whole-r$1 SOFTMAX_STAGEDW=1 float16,bfloat16 $whole softmax
	bench plan-f32-r$1 "" float32 $f32 softmax,log_softmax
	bench staged-f32-r$1 SOFTMAX_STAGED=1 float32 $f32 softmax,log_softmax
	bench strided-f32-r$1 SOFTMAX_STRIDED=1 float32 $f32 softmax,log_softmax
	for v in v0 v2 v3; do
		bench $v-part-r$1 "" float16,bfloat16 $part softmax,log_softmax -fatbin bin/$v.fatbin
	done
	bench plan-part-r$1 "" float16,bfloat16 $part softmax,log_softmax
}
# Round 1 and PyTorch first: a call cut short by the device time left
# still returns one whole A/B.
round 1
step torch-whole timeout 90 python3 bench/torch_bench.py --shapes $whole --ops softmax --dtypes float16,bfloat16 \
	--out "$work/torch-whole.json"
step torch-f32 timeout 90 python3 bench/torch_bench.py --shapes $f32 --ops softmax,log_softmax --dtypes float32 \
	--out "$work/torch-f32.json"
step torch-part timeout 90 python3 bench/torch_bench.py --shapes $part --ops softmax,log_softmax \
	--dtypes float16,bfloat16 --out "$work/torch-part.json"
round 2
date -u >>"$work/gpu.txt"
pack
