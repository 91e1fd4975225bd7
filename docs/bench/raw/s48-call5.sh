#!/bin/bash
# session 48 call 5: the published run at the commit given (694f36b: call
# 4's kernels, the half types' 448-thread rule reverted; the binaries built
# at it): the fused and tier tests in their short form, then the benchmark
# and PyTorch's. Each part archived as it ends.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 100 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUSplitFused|TestGPUTierBoundaries' > $W/tests.txt 2>&1); rc=$?; echo tests rc=$rc
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head; grep -m4 "_test.go" $W/tests.txt | cut -c1-250
tar czf $OUT/tests.tgz -C $W .
if [ $rc = 0 ]; then
  P=$(mktemp -d)
  timeout 200 bin/softmax-bench -commit "$1" -out $P/ours.json > $P/ours.log 2>&1; echo ours rc=$?
  cp $W/smi.txt $P/smi.txt
  tar czf $OUT/ours.tgz -C $P .
  timeout 200 python3 bench/torch_bench.py --out $P/torch.json > $P/torch.log 2>&1; echo torch rc=$?
  date -u >> $W/date.txt; cp $W/date.txt $P/date.txt
  tar czf $OUT/ours.tgz -C $P .
  tail -n 2 $P/ours.log $P/torch.log
fi
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W .
cat $W/date.txt
