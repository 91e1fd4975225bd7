#!/bin/bash
# session 38 call 1: the whole GPU suite on 54ac226 (kernels of f525334; the
# scale checks of 54ac226), then memcheck over the short form of the tests
# that changed since the last memcheck (huge and tiny scales, the fused split)
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/cuda.test.xz; chmod +x bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 360 ../bin/cuda.test -test.v -test.count=1 -test.run GPU > $W/suite.txt 2>&1; echo suite rc=$?)
date -u >> $W/date.txt
grep -E '^(--- |ok|FAIL|PASS)' $W/suite.txt > $W/suite-summary.txt
tar czf $OUT/suite.tgz -C $W .
(cd cuda && timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'GPU(HugeScale|TinyScale|SplitFused|Errors)' > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/memcheck.tgz -C $W memcheck.txt date.txt
cat $W/suite-summary.txt | tail -60; tail -5 $W/memcheck.txt
