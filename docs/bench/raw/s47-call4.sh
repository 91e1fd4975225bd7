#!/bin/bash
# session 47 call 4: the kernels of entry 74 (v11 in the fused kernel's head and masked
# forms; the binaries built at the commit given): the whole GPU suite in its
# short form; if it passes, the published run (the benchmark, then
# PyTorch's); then memcheck over the grid and fused tests with the time
# left. Each part archived as it ends.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 220 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run GPU > $W/suite.txt 2>&1); rc=$?; echo suite rc=$rc
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W .
grep -E "^(--- FAIL|ok|PASS|FAIL)" $W/suite.txt | head; echo "pass $(grep -c -- '--- PASS' $W/suite.txt) skip $(grep -c -- '--- SKIP' $W/suite.txt)"
grep -m5 "_test.go" $W/suite.txt | cut -c1-300
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
rem=$((580 - SECONDS)); echo "memcheck gets ${rem}s"
(cd cuda && timeout $rem compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUGrid|TestGPUSplitFused|TestGPUTierBoundaries' > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W .
grep -E "^(--- FAIL|ok|PASS|FAIL)" $W/memcheck.txt | head; tail -n 2 $W/memcheck.txt | cut -c1-200
cat $W/date.txt
