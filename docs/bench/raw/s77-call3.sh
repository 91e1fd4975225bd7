#!/bin/bash
# Session 77's third call at the commit given ($1): the warp form's rule
# widened to the backward's part-pack rows from 16384 rows and its
# whole-pack rows of at most 256 columns from 262144 (GPU entry 119).
# bin/ holds cuda.test and softmax-bench built at that commit.
#   1. TestGPUStagedWarp and TestGPUStaged (short): must pass.
#   2. Timing, two rounds: the plan against SOFTMAX_STAGEDW=0, the half
#      types' backward, on the rows the widening takes, the bounds' other
#      sides and the benchmark's 65536x128 and 32768x512.
#   3. On an H200 (PUBLISH=0: not), the published run's benchmark and
#      PyTorch's (scripts/h200-run.sh's steps).
# Everything goes into $OUT/s77c3.tgz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-bin/out}
work=$(mktemp -d)
mkdir -p "$out"
for f in bin/*.xz; do xz -d -f "$f"; done
chmod +x bin/cuda.test bin/softmax-bench
gpu=$(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader)
echo "$gpu $(date -u +%FT%TZ)" | tee "$work/gpu.txt"
pack() { tar czf "$out/s77c3.tgz" -C "$work" .; }
timeout 90 bin/cuda.test -test.short -test.v -test.count=1 -test.run 'TestGPUStaged(Warp)?$' >"$work/staged.log" 2>&1
echo "staged rc=$?" | tee -a "$work/gpu.txt"
grep -E '^(--- |ok|FAIL|PASS)|cuda_test' "$work/staged.log" | head -n 20
pack
commit=$1
shapes=262144x128,262144x256,262144x72,131072x128,131072x256,16384x197,16384x150,8192x197,65536x128,32768x512
ops=softmax_backward,log_softmax_backward
for r in 1 2; do
  for k in plan 0; do
    env $([ $k = plan ] || echo SOFTMAX_STAGEDW=$k) timeout 60 bin/softmax-bench -commit "$commit" -ops $ops \
      -dtypes float16,bfloat16 -shapes $shapes -graph=false -out "$work/$k-r$r.json" >"$work/$k-r$r.log" 2>&1
    echo "$k-r$r rc=$?" | tee -a "$work/gpu.txt"
    pack
  done
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
