#!/bin/bash
# Session 57 call 3, at the commit given (binaries built there), in place
# of s57-call2.sh after more refused calls left too little device time
# for the published run (which would measure nothing new: every shape on
# the issue's list is rows of whole packs, which tier 8's shifted kernels
# do not take). Memcheck without the test guards over TestGPUCGrid's
# short form, the GPU suite's short form, then the twelve shapes off the
# issue's list, ours and PyTorch's. Each part archived as it ends.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && GPU_TEST_GUARD=0 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUCGrid$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -8; tail -n 1 $W/memcheck.txt
(cd cuda && timeout 330 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'GPU|Span' > $W/suite.txt 2>&1); echo "suite rc=$?"
grep -E "^(--- |ok|PASS|FAIL)" $W/suite.txt | grep -v "^--- PASS" | head -5; grep -c "^--- PASS" $W/suite.txt; grep -m5 "_test.go" $W/suite.txt | cut -c1-230
tar czf $OUT/tests.tgz -C $W .
S=1024x50257,512x32001,8192x1000,65536x77,64x12x197x197,16x12x577x577,1048576x10,131072x33,16384x1025,32768x300,4x3000001,1x1000
timeout 80 bin/softmax-bench -graph=false -shapes $S -commit "$1" -out $W/odd-ours.json > $W/odd-ours.log 2>&1; echo "odd ours rc=$?"
timeout 80 python3 bench/torch_bench.py --shapes $S --out $W/odd-torch.json > $W/odd-torch.log 2>&1; echo "odd torch rc=$?"
grep -h "failed checks" $W/odd-ours.log
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W .
