#!/bin/bash
# Session 76's call at the commit given ($1): the staged kernels' warp form
# (stagedw{E}r{RW}: a block's rows copied through shared memory in packs,
# then a warp a row) against the plan, where an H100 had the half types'
# forward of 197 columns at 0.79-0.94x PyTorch (GPU entry 116). bin/ holds
# cuda.test and softmax-bench built at that commit (the sm_90 cubins of its
# fatbins embedded).
#   1. TestGPUStagedWarp (short; FULL=seconds: in full): must pass.
#   2. Timing: the plan (SOFTMAX_STAGEDW unset) and the warp form at 2 and
#      4 rows a warp (SOFTMAX_STAGEDW=2, =4), one round; PyTorch once, on
#      the same shapes; TestGPUStaged short (must pass); memcheck over
#      TestGPUStagedWarp in its short form; the second round; racecheck
#      as memcheck.
#   3. The short suite with what is left of the call (SUITE_END).
# Everything goes into $OUT/s76.tgz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-bin/out}
work=$(mktemp -d)
mkdir -p "$out"
for f in bin/*.xz; do xz -d -f "$f"; done
chmod +x bin/cuda.test bin/softmax-bench
gpu=$(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader)
echo "$gpu $(date -u +%FT%TZ)" | tee "$work/gpu.txt"
pack() { tar czf "$out/s76.tgz" -C "$work" .; }
timeout ${FULL:-60} bin/cuda.test $([ -n "${FULL:-}" ] || echo -test.short) -test.v -test.count=1 -test.run 'TestGPUStagedWarp$' >"$work/stagedw.log" 2>&1
echo "stagedw rc=$?" | tee -a "$work/gpu.txt"
grep -E '^(--- |ok|FAIL|PASS)|cuda_test' "$work/stagedw.log" | head -n 20
pack
shapes=131072x197,64x12x197x197,131072x150,65536x250,32768x300,65536x77,131072x100,262144x128,131072x63,262144x56,262144x36
ops=softmax,log_softmax,softmax_backward,log_softmax_backward
timing() {
  for rw in plan 2 4; do
    name=$rw-r$1
    env $([ $rw = plan ] || echo SOFTMAX_STAGEDW=$rw) timeout 60 bin/softmax-bench -commit "$commit" -ops $ops \
      -shapes $shapes -graph=false -out "$work/$name.json" >"$work/$name.log" 2>&1
    echo "$name rc=$?" | tee -a "$work/gpu.txt"
    pack
  done
}
sanitize() {
  timeout 90 env GPU_TEST_GUARD=0 compute-sanitizer --tool $1 --error-exitcode 9 bin/cuda.test -test.short -test.count=1 \
    -test.run 'TestGPUStagedWarp$' >"$work/$1.log" 2>&1
  echo "$1 rc=$?" | tee -a "$work/gpu.txt"
  tail -n 2 "$work/$1.log"
  pack
}
commit=$1
timing 1
timeout 90 python3 bench/torch_bench.py --shapes $shapes --ops $ops --out "$work/torch.json" >"$work/torch.log" 2>&1
echo "torch rc=$?" | tee -a "$work/gpu.txt"
pack
timeout 60 bin/cuda.test -test.short -test.v -test.count=1 -test.run 'TestGPUStaged$' >"$work/staged.log" 2>&1
echo "staged rc=$?" | tee -a "$work/gpu.txt"
grep -E '^(--- |ok|FAIL|PASS)' "$work/staged.log" | tail -n 3
pack
sanitize memcheck
timing 2
sanitize racecheck
left=$((${SUITE_END:-560} - SECONDS)) # SUITE_END: when the call must end, in seconds from its start
if [ $left -gt 60 ]; then
  (cd cuda && GPU_TEST_SHORT=1 GPU_TEST_TIMEOUT=$left GPU_TEST_MEMCHECK=0 GPU_TEST_RACECHECK=0 \
    bash ../scripts/cuda-gpu-test.sh "$work/suite" >"$work/summary.txt" 2>&1)
  echo "suite rc=$? (limit $left s)" | tee -a "$work/gpu.txt"
  tail -n 12 "$work/summary.txt"
fi
date -u >>"$work/gpu.txt"
pack
