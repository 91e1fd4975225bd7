#!/bin/bash
# Session 77's second call at the commit given ($1): the warp form's rule
# (gpu.StagedWarpOn, GPU entry 118) on the trimmed kernels. bin/ holds
# cuda.test and softmax-bench built at that commit (the sm_90 cubins of
# its fatbins embedded).
#   1. TestGPUStagedWarp and TestGPUStaged (short): must pass.
#   2. Timing, one round each: the plan (the rule), SOFTMAX_STAGEDW=0 (the
#      plan before it) and =1 (the warp form wherever it fits: whole packs
#      and fewer rows too), on entry 117's shapes, the benchmark's
#      65536x128 and 32768x512, and 262144x256, 16384x197, 8192x100; then
#      PyTorch on the same shapes.
#   3. On an H200 (PUBLISH=0: not), the published run's benchmark and
#      PyTorch's (scripts/h200-run.sh's steps).
#   4. The short suite with what is left of the call (SUITE_END).
# Everything goes into $OUT/s77.tgz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-bin/out}
work=$(mktemp -d)
mkdir -p "$out"
for f in bin/*.xz; do xz -d -f "$f"; done
chmod +x bin/cuda.test bin/softmax-bench
gpu=$(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader)
echo "$gpu $(date -u +%FT%TZ)" | tee "$work/gpu.txt"
pack() { tar czf "$out/s77.tgz" -C "$work" .; }
timeout 90 bin/cuda.test -test.short -test.v -test.count=1 -test.run 'TestGPUStaged(Warp)?$' >"$work/staged.log" 2>&1
echo "staged rc=$?" | tee -a "$work/gpu.txt"
grep -E '^(--- |ok|FAIL|PASS)|cuda_test' "$work/staged.log" | head -n 20
pack
commit=$1
shapes=131072x197,64x12x197x197,131072x150,65536x250,32768x300,65536x77,131072x100,262144x128,131072x63,65536x128,32768x512,262144x256,16384x197,8192x100
ops=softmax,log_softmax,softmax_backward,log_softmax_backward
for k in plan 0 1; do
  env $([ $k = plan ] || echo SOFTMAX_STAGEDW=$k) timeout 60 bin/softmax-bench -commit "$commit" -ops $ops \
    -dtypes float16,bfloat16 -shapes $shapes -graph=false -out "$work/$k.json" >"$work/$k.log" 2>&1
  echo "$k rc=$?" | tee -a "$work/gpu.txt"
  pack
done
timeout 90 python3 bench/torch_bench.py --shapes $shapes --ops $ops --dtypes float16,bfloat16 --out "$work/torch.json" >"$work/torch.log" 2>&1
echo "torch rc=$?" | tee -a "$work/gpu.txt"
pack
# On an H200, the published run (scripts/h200-run.sh's benchmark steps):
# the benchmark's kernels are 4acc7c6's, but this is the final commit's.
if [[ $gpu == *H200* ]] && [ "${PUBLISH:-1}" = 1 ]; then
  nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv >"$work/pub-smi.txt" 2>&1
  timeout 240 bin/softmax-bench -commit "$commit" -out "$work/pub-ours.json" >"$work/pub-ours.log" 2>&1
  echo "pub ours rc=$?" | tee -a "$work/gpu.txt"
  pack
  timeout 200 python3 bench/torch_bench.py --out "$work/pub-torch.json" >"$work/pub-torch.log" 2>&1
  echo "pub torch rc=$?" | tee -a "$work/gpu.txt"
  pack
fi
left=$((${SUITE_END:-560} - SECONDS)) # SUITE_END: when the call must end, in seconds from its start
if [ $left -gt 60 ]; then
  (cd cuda && GPU_TEST_SHORT=1 GPU_TEST_TIMEOUT=$left GPU_TEST_MEMCHECK=0 GPU_TEST_RACECHECK=0 \
    bash ../scripts/cuda-gpu-test.sh "$work/suite" >"$work/summary.txt" 2>&1)
  echo "suite rc=$? (limit $left s)" | tee -a "$work/gpu.txt"
  tail -n 12 "$work/summary.txt"
fi
date -u >>"$work/gpu.txt"
pack
