#!/bin/bash
# Session 58 call 1, at the commit given (main; binaries built there as
# bin/m-bench and bin/m-cuda.test): TestGPUDispatch (its table updated in
# 5876b3b for the rows tier 8's shifted kernels now take, not yet run on
# a GPU) under memcheck without the test guards, then the GPU suite's
# short form. Outputs archived in one file.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && GPU_TEST_GUARD=0 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/m-cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUDispatch$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | grep -E "^(---|ok|FAIL|=====)" | head -8; tail -n 1 $W/memcheck.txt
(cd cuda && timeout 400 ../bin/m-cuda.test -test.short -test.count=1 -test.v -test.run 'GPU|Span' > $W/suite.txt 2>&1); echo "suite rc=$?"
grep -E "^(--- |ok|PASS|FAIL)" $W/suite.txt | grep -v "^--- PASS" | head -5; grep -c "^--- PASS" $W/suite.txt; grep -m5 "_test.go" $W/suite.txt | cut -c1-230
date -u >> $W/date.txt
tar czf $OUT/s58-call1.tgz -C $W .
