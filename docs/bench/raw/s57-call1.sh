#!/bin/bash
# Session 57 call 1, at the commit given (binaries built there: main with
# tier 8's shifted kernels merged, first by default, and their tests as
# session 56's call found them): memcheck without the test guards over the
# short form of the tests whose expectations changed, then the same tests
# in full mode. The published run follows with raw/s55-call4.sh.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u >> $W/date.txt
T='TestGPUCGrid$|TestGPUCluster$|TestGPUCGridBalance$|TestGPUDispatch$'
(cd cuda && GPU_TEST_GUARD=0 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run "$T" > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -12; tail -n 2 $W/memcheck.txt
(cd cuda && timeout 200 ../bin/cuda.test -test.count=1 -test.v -test.run "$T" > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -10; grep -m8 "_test.go" $W/tests.txt | cut -c1-300
date -u >> $W/date.txt
