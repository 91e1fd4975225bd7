#!/bin/bash
# Session 75's call at the commit given ($1): float64 softmax backward past
# gpu.FarGrad64's bound on the split tier (few long rows: far_sum and
# far_write over chunks) and, for rows of at most 1024 columns, far_rows (a
# warp a row), where 4acc7c6 ran every such call on far_block (a block a
# row). bin/ holds cuda.test and softmax-bench built at that commit (the
# sm_90 cubins of its fatbins embedded) and softmax-bench-old, built at
# 4acc7c6.
#   1. TestGPUFloat64GradSubnormals in full and TestGPUDispatch: must pass.
#   2. Timing: float64 softmax backward at scale 1 and 1e14 (past the
#      bound on every shape here), the new and the old binary alternated,
#      two rounds.
#   3. Off the issue's shapes, where an H100 had us behind PyTorch
#      (GPU entries 108-111): every op and dtype at those shapes, ours and
#      PyTorch's, on this card.
#   4. memcheck and racecheck over step 1's tests in their short form.
#   5. The short suite with what is left of the call.
# Everything goes into $OUT/s75.tgz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-bin/out}
work=$(mktemp -d)
mkdir -p "$out"
for f in bin/*.xz; do xz -d -f "$f"; done
chmod +x bin/cuda.test bin/softmax-bench bin/softmax-bench-old
gpu=$(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader)
echo "$gpu $(date -u +%FT%TZ)" | tee "$work/gpu.txt"
pack() { tar czf "$out/s75.tgz" -C "$work" .; }
tests='TestGPUFloat64GradSubnormals$|TestGPUDispatch$'
timeout 150 bin/cuda.test -test.v -test.count=1 -test.run "$tests" >"$work/fix.log" 2>&1
echo "fix rc=$?" | tee -a "$work/gpu.txt"
grep -E '^(--- |ok|FAIL|PASS)' "$work/fix.log" | tail -n 6
pack
shapes=4x65536,4x1048576,4x33554432,256x128256,4096x4096,1024x1000,32768x512,65536x128
for round in 1 2; do
  for build in new old; do
    bench=bin/softmax-bench commit=$1
    [ "$build" = old ] && bench=bin/softmax-bench-old commit=4acc7c6
    for s in 1 1e14; do
      name=$build-s$s-r$round
      timeout 100 "$bench" -commit "$commit" -dtypes float64 -ops softmax_backward \
        -shapes $shapes -scale $s -graph=false -reps 30 -out "$work/$name.json" >"$work/$name.log" 2>&1
      echo "$name rc=$?" | tee -a "$work/gpu.txt"
      pack
    done
  done
done
grep -h "_backward" "$work"/*-r2.log | head -40
gaps=131072x33,65536x36,262144x36,131072x50,262144x56,131072x63,131072x197,1048576x3
timeout 90 bin/softmax-bench -commit "$1" -shapes $gaps -graph=false -out "$work/gaps-ours.json" >"$work/gaps-ours.log" 2>&1
echo "gaps ours rc=$?" | tee -a "$work/gpu.txt"
timeout 90 python3 bench/torch_bench.py --shapes $gaps --out "$work/gaps-torch.json" >"$work/gaps-torch.log" 2>&1
echo "gaps torch rc=$?" | tee -a "$work/gpu.txt"
pack
for tool in memcheck racecheck; do
  timeout 100 env GPU_TEST_GUARD=0 compute-sanitizer --tool $tool --error-exitcode 9 bin/cuda.test -test.short -test.count=1 \
    -test.run "$tests" >"$work/$tool.log" 2>&1
  echo "$tool rc=$?" | tee -a "$work/gpu.txt"
  tail -n 2 "$work/$tool.log"
  pack
done
left=$((${SUITE_END:-560} - SECONDS)) # SUITE_END: when the call must end, in seconds from its start
if [ $left -gt 60 ]; then
  (cd cuda && GPU_TEST_SHORT=1 GPU_TEST_TIMEOUT=$left GPU_TEST_MEMCHECK=0 GPU_TEST_RACECHECK=0 \
    bash ../scripts/cuda-gpu-test.sh "$work/suite" >"$work/summary.txt" 2>&1)
  echo "suite rc=$? (limit $left s)" | tee -a "$work/gpu.txt"
  tail -n 12 "$work/summary.txt"
fi
date -u >>"$work/gpu.txt"
pack
