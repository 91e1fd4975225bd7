#!/bin/bash
# Session 74's call at the commit given ($1): float64 softmax backward past
# gpu.FarGrad64's bound on the block tier's far_block (a block a row),
# where 1348ad1 ran it on tier 5 (a thread a row). bin/ holds cuda.test and
# softmax-bench built at that commit (the sm_90 cubins of its fatbins
# embedded) and softmax-bench-old, built at 902b37e (its kernels and
# dispatch are 1348ad1's).
#   On an H200: scripts/h200-run.sh first (issue 6's full run; the
#   benchmark's kernels are 1348ad1's), then step 1 with what is left.
#   Elsewhere:
#   1. TestGPUFloat64GradSubnormals in full and TestGPUDispatch: must pass.
#   2. Timing: float64 softmax backward at scale 1 and 1e14 (past the
#      bound on every shape here), the new and the old binary alternated,
#      two rounds.
#   3. memcheck and racecheck over step 1's tests in their short form.
#   4. The short suite with what is left of the call.
# Everything goes into $OUT/s74.tgz (and h200-run.sh's into $OUT/run.tgz).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-bin/out}
work=$(mktemp -d)
mkdir -p "$out"
for f in bin/*.xz; do xz -d -f "$f"; done
chmod +x bin/cuda.test bin/softmax-bench bin/softmax-bench-old
gpu=$(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader)
echo "$gpu $(date -u +%FT%TZ)" | tee "$work/gpu.txt"
pack() { tar czf "$out/s74.tgz" -C "$work" .; }
tests='TestGPUFloat64GradSubnormals$|TestGPUDispatch$'
fixcheck() { # step 1 within $1 seconds
  timeout "$1" bin/cuda.test -test.v -test.count=1 -test.run "$tests" >"$work/fix.log" 2>&1
  echo "fix rc=$?" | tee -a "$work/gpu.txt"
  grep -E '^(--- |ok|FAIL|PASS)' "$work/fix.log" | tail -n 6
  pack
}
if echo "$gpu" | grep -q H200; then
  OUT=$out bash scripts/h200-run.sh "$1" # $out/run.tgz, rewritten after each of its steps
  fixcheck 60
  exit 0
fi
fixcheck 150
shapes=4096x4096,65536x128,256x128256,4x65536,1024x1000
for round in 1 2; do
  for build in new old; do
    bench=bin/softmax-bench commit=$1
    [ "$build" = old ] && bench=bin/softmax-bench-old commit=902b37e
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
for tool in memcheck racecheck; do
  timeout 100 env GPU_TEST_GUARD=0 compute-sanitizer --tool $tool --error-exitcode 9 bin/cuda.test -test.short -test.count=1 \
    -test.run "$tests" >"$work/$tool.log" 2>&1
  echo "$tool rc=$?" | tee -a "$work/gpu.txt"
  tail -n 2 "$work/$tool.log"
  pack
done
left=$((420 - SECONDS)) # the call ends well inside 600 s: the session has little device time left
if [ $left -gt 60 ]; then
  (cd cuda && GPU_TEST_SHORT=1 GPU_TEST_TIMEOUT=$left GPU_TEST_MEMCHECK=0 GPU_TEST_RACECHECK=0 \
    bash ../scripts/cuda-gpu-test.sh "$work/suite" >"$work/summary.txt" 2>&1)
  echo "suite rc=$? (limit $left s)" | tee -a "$work/gpu.txt"
  tail -n 12 "$work/summary.txt"
fi
date -u >>"$work/gpu.txt"
pack
