#!/bin/bash
# Session 58 call 2, branch s57-hybrid at the commit given (bin/h-cuda.test
# built there): fetch_tail only in the forward's shifted pipelined
# kernels, the backward's only where the rows end on a pack. Memcheck
# without the test guards over the short form of the tests that take
# those kernels (0 errors wanted), then the same tests in full mode.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
T='TestGPUShifted|TestGPUCluster$|TestGPUPipeDispatch|TestGPUPacked|TestGPUCGrid$'
(cd cuda && GPU_TEST_GUARD=0 timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/h-cuda.test -test.short -test.count=1 -test.run "$T" > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -12; tail -n 1 $W/memcheck.txt
(cd cuda && timeout 250 ../bin/h-cuda.test -test.count=1 -test.v -test.run "$T|TestGPUDispatch$" > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -10; grep -m8 "_test.go" $W/tests.txt | cut -c1-300
date -u >> $W/date.txt
tar czf $OUT/s58-call2.tgz -C $W .
