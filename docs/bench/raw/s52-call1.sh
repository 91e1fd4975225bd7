#!/bin/bash
# session 52 call 1, at the commit given (the binaries built at it; entry
# 85's block and split kernels): TestGPUSoftmaxBackwardPastRange and
# TestGPULogBackwardSumPastRange in full mode, the whole GPU suite in its
# short form, then the published run: the benchmark and PyTorch's, then
# memcheck over the range test and the block and split tiers. Each part
# archived as it ends.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 120 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUSoftmaxBackwardPastRange|TestGPULogBackwardSumPastRange' > $W/sum.txt 2>&1; echo "sum rc=$?")
(cd cuda && timeout 280 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'GPU|Span' > $W/suite.txt 2>&1); rc=$?; echo "suite rc=$rc"
for f in $W/sum.txt $W/suite.txt; do echo "== $f"; grep -E "^(--- |ok|PASS|FAIL)" $f | grep -v "^--- PASS" | head -5; grep -c "^--- PASS" $f; grep -m3 "_test.go" $f | cut -c1-230; done
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
(cd cuda && timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUSoftmaxBackwardPastRange|TestGPUSplit' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
tail -n 3 $W/memcheck.txt
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W .
cat $W/date.txt
