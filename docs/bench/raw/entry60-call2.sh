#!/bin/bash
# session 38 call 2 (ee65630, kernels of f525334): the new scale and
# extreme-value tests, the suite's tests call 1 did not reach, then
# memcheck over the new tests' short form
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/cuda.test.xz; chmod +x bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 330 ../bin/cuda.test -test.v -test.count=1 -test.run 'GPU(HugeScale|ExtremeValues|Errors|Backend|CGrid|CGridBalance|Dispatch|Unaligned|Concurrent)$' > $W/suite.txt 2>&1; echo suite rc=$?)
date -u >> $W/date.txt
grep -E '^(--- |ok|FAIL|PASS)' $W/suite.txt > $W/suite-summary.txt
tar czf $OUT/suite.tgz -C $W .
(cd cuda && timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'GPU(HugeScale|ExtremeValues)$' > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/memcheck.tgz -C $W memcheck.txt date.txt
cat $W/suite-summary.txt; grep -c "cuda_test.go" $W/suite.txt; tail -4 $W/memcheck.txt
