#!/bin/bash
# For the session after 77, at the commit given ($1): entry 119's check
# (the widened rule) and entry 120's A/B (the warp form's pipelined
# forward), one call. bin/ holds cuda.test and softmax-bench built at that
# commit (the sm_90 cubins of its fatbins embedded).
#   1. TestGPUStagedWarp and TestGPUStaged (short): must pass.
#   2. Entry 120, two rounds: the plan against SOFTMAX_STAGEDWP=1 on the
#      half types' forward of the rule's rows, and SOFTMAX_STAGEDW=1 with
#      and without SOFTMAX_STAGEDWP=1 on rows of whole packs.
#   3. Entry 119, two rounds: the plan against SOFTMAX_STAGEDW=0 on the
#      backward rows the widened rule takes and the bounds' other sides.
#   4. memcheck and racecheck over TestGPUStagedWarp (short).
#   5. On an H200 (PUBLISH=0: not), the published run's benchmark and
#      PyTorch's (scripts/h200-run.sh's steps).
# Everything goes into $OUT/s78.tgz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-bin/out}
work=$(mktemp -d)
mkdir -p "$out"
for f in bin/*.xz; do xz -d -f "$f"; done
chmod +x bin/cuda.test bin/softmax-bench
gpu=$(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader)
echo "$gpu $(date -u +%FT%TZ)" | tee "$work/gpu.txt"
pack() { tar czf "$out/s78.tgz" -C "$work" .; }
commit=$1
timeout 120 bin/cuda.test -test.short -test.v -test.count=1 -test.run 'TestGPUStaged(Warp)?$' >"$work/staged.log" 2>&1
echo "staged rc=$?" | tee -a "$work/gpu.txt"
grep -E '^(--- |ok|FAIL|PASS)|cuda_test' "$work/staged.log" | head -n 20
pack
bench() { # name env shapes ops
  env $2 timeout 60 bin/softmax-bench -commit "$commit" -ops $4 -dtypes float16,bfloat16 -shapes $3 -graph=false \
    -out "$work/$1.json" >"$work/$1.log" 2>&1
  echo "$1 rc=$?" | tee -a "$work/gpu.txt"
  pack
}
fwd=softmax,log_softmax
bwd=softmax_backward,log_softmax_backward
part=131072x197,64x12x197x197,131072x150,65536x250,65536x77,131072x100,32768x197
whole=262144x128,262144x256,65536x128
widened=262144x128,262144x256,262144x72,131072x128,131072x256,16384x197,16384x150,8192x197,65536x128,32768x512
for r in 1 2; do
  bench plan-part-r$r "" $part $fwd
  bench wp-part-r$r SOFTMAX_STAGEDWP=1 $part $fwd
  bench plan-whole-r$r "" $whole $fwd
  bench w-whole-r$r SOFTMAX_STAGEDW=1 $whole $fwd
  bench wp-whole-r$r "SOFTMAX_STAGEDW=1 SOFTMAX_STAGEDWP=1" $whole $fwd
  bench plan-widened-r$r "" $widened $bwd
  bench off-widened-r$r SOFTMAX_STAGEDW=0 $widened $bwd
done
for tool in memcheck racecheck; do
  timeout 120 env GPU_TEST_GUARD=0 compute-sanitizer --tool $tool --error-exitcode 9 bin/cuda.test -test.short -test.count=1 \
    -test.run 'TestGPUStagedWarp$' >"$work/$tool.log" 2>&1
  echo "$tool rc=$?" | tee -a "$work/gpu.txt"
  tail -n 2 "$work/$tool.log"
  pack
done
if [[ $gpu == *H200* ]] && [ "${PUBLISH:-1}" = 1 ]; then
  nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv >"$work/pub-smi.txt" 2>&1
  timeout 240 bin/softmax-bench -commit "$commit" -out "$work/pub-ours.json" >"$work/pub-ours.log" 2>&1
  echo "pub ours rc=$?" | tee -a "$work/gpu.txt"
  pack
  timeout 200 python3 bench/torch_bench.py --out "$work/pub-torch.json" >"$work/pub-torch.log" 2>&1
  echo "pub torch rc=$?" | tee -a "$work/gpu.txt"
  pack
fi
date -u >>"$work/gpu.txt"
pack
