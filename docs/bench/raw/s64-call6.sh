#!/bin/bash
# Session 64 call 6, at the commit given (the review's test fixes:
# TestGPUShifted's staged check at gpu.StagedMinRows rows, stagedInPlace
# with dx over y and both forward rows a thread): TestGPUStaged and
# TestGPUShifted in full, memcheck and racecheck over TestGPUStaged in
# short form. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 150 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStaged$|TestGPUShifted$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -6; grep -hm8 "_test.go" $W/tests.txt | cut -c1-300
for tool in memcheck racecheck; do
  (cd cuda && GPU_TEST_GUARD=0 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUStaged$' > $W/$tool.txt 2>&1; echo "$tool rc=$?")
  tail -n 1 $W/$tool.txt
done
date -u >> $W/date.txt
tar czf $OUT/s64-call6.tgz -C $W .
