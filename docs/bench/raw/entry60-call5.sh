#!/bin/bash
# session 38 call 5 (the final tests after the review; kernels of 5685cd6): the scale and
# extreme-value tests in full mode with the shared case tables and SpanOverflow bounded by the row length, the error
# and host-backend tests, then memcheck over their short form
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/cuda.test.xz; chmod +x bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 200 ../bin/cuda.test -test.v -test.count=1 -test.run 'GPU(TinyScale|HugeScale|ExtremeValues|Errors|Backend)$' > $W/suite.txt 2>&1; echo suite rc=$?)
date -u >> $W/date.txt
(cd cuda && timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'GPU(TinyScale|HugeScale|ExtremeValues)$' > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call5.tgz -C $W .
grep -E '^(--- |ok|FAIL|PASS)' $W/suite.txt; grep -c "cuda_test.go" $W/suite.txt; grep -m3 "cuda_test.go" $W/suite.txt | cut -c1-300; tail -3 $W/memcheck.txt
