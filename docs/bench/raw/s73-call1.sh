#!/bin/bash
# Session 73's call at the commit given ($1). bin/ holds cuda.test and
# softmax-bench built at that commit (the sm_90 cubins of its fatbins
# embedded), and cuda-old.test: the same Go code with 2df6e63's fatbins,
# whose float64 backward kernels still round terms under 2^-1022 to
# 2^-1075 (the negative control).
#   1. TestGPUFloat64GradSubnormals in full on cuda.test: must pass.
#   2. The same on cuda-old.test: must fail.
#   3. On an H200, scripts/h200-run.sh first, then 1 and 2 (issue 6's full run; its short
#      suite runs the new test too). Elsewhere the short suite alone,
#      then memcheck over the new test's short form.
# Everything goes into $OUT/run.tgz (h200-run.sh's archive) or $OUT/*.log.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-bin/out}
mkdir -p "$out"
for f in bin/*.xz; do xz -d -f "$f"; done
chmod +x bin/cuda.test bin/cuda-old.test bin/softmax-bench
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)
echo "$gpu $(date -u +%FT%TZ)" | tee "$out/gpu.txt"
fixcheck() { # steps 1 and 2, each within $1 seconds
  timeout "$1" bin/cuda.test -test.v -test.count=1 -test.run 'TestGPUFloat64GradSubnormals$' >"$out/new.log" 2>&1
  echo "new rc=$?" | tee -a "$out/gpu.txt"
  timeout "$1" bin/cuda-old.test -test.count=1 -test.run 'TestGPUFloat64GradSubnormals$' >"$out/old.log" 2>&1
  echo "old rc=$? (must be 1)" | tee -a "$out/gpu.txt"
  grep -c 'backward:' "$out/old.log" | sed 's/^/old failing checks: /' | tee -a "$out/gpu.txt"
  tail -n 3 "$out/new.log"
}
if echo "$gpu" | grep -q H200; then
  # The full run first: it is what this card is for, and it fills most
  # of the call (350-560 s); the fix's checks take what is left.
  OUT=$out bash scripts/h200-run.sh "$1"
  fixcheck 60
else
  fixcheck 150
  (cd cuda && GPU_TEST_SHORT=1 GPU_TEST_TIMEOUT=300 GPU_TEST_MEMCHECK=0 GPU_TEST_RACECHECK=0 bash ../scripts/cuda-gpu-test.sh "$out/suite" >"$out/summary.txt" 2>&1)
  echo "suite rc=$?" | tee -a "$out/gpu.txt"
  timeout 120 env GPU_TEST_GUARD=0 compute-sanitizer --tool memcheck --error-exitcode 9 bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUFloat64GradSubnormals$' >"$out/memcheck.log" 2>&1
  echo "memcheck rc=$?" | tee -a "$out/gpu.txt"
  tail -n 12 "$out/summary.txt"
  tar czf "$out/run.tgz" -C "$out" suite summary.txt memcheck.log && rm -rf "$out/suite"
fi
