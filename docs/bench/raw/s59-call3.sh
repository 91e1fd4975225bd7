#!/bin/bash
# Session 59 call 3, at the commit given (main, the binaries of call 2's
# published run): the whole GPU suite in its short form (call 2's
# h200-run.sh ran it in full mode, which passed 200 s after 11 tests),
# then memcheck without the test guards over the short form of the tests
# of session 58's kernels, then, on an H200, the shapes off the issue's
# list, ours and PyTorch's. Outputs archived in one file.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 330 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'GPU|Span' > $W/suite.txt 2>&1); echo "suite rc=$?"
grep -E "^(--- |ok|PASS|FAIL)" $W/suite.txt | grep -v "^--- PASS" | head -5; grep -c "^--- PASS" $W/suite.txt; grep -m5 "_test.go" $W/suite.txt | cut -c1-230
date -u >> $W/date.txt
tar czf $OUT/s59-call3.tgz -C $W .
(cd cuda && GPU_TEST_GUARD=0 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPU(Strided|Shifted|Dispatch)$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -6; tail -n 1 $W/memcheck.txt
date -u >> $W/date.txt
tar czf $OUT/s59-call3.tgz -C $W .
if grep -q H200 $W/smi.txt; then
  S=1024x50257,512x32001,8192x1000,65536x77,64x12x197x197,16x12x577x577,1048576x10,131072x33,16384x1025,32768x300,4x3000001,1x1000
  timeout 80 bin/softmax-bench -graph=false -shapes $S -commit "$1" -out $W/odd-ours.json > $W/odd-ours.log 2>&1; echo "odd ours rc=$?"
  timeout 80 python3 bench/torch_bench.py --shapes $S --out $W/odd-torch.json > $W/odd-torch.log 2>&1; echo "odd torch rc=$?"
  grep -h "failed checks" $W/odd-ours.log
fi
date -u >> $W/date.txt
tar czf $OUT/s59-call3.tgz -C $W .
