#!/bin/bash
# session 39 call 5: TestGPUSpanScales (gradients of order 1) in full mode,
# and memcheck over its short form
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/cuda.test.xz; chmod +x bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 90 ../bin/cuda.test -test.v -test.count=1 -test.run 'GPUSpanScales$|SpanCall' > $W/tests.txt 2>&1; echo tests rc=$?)
(cd cuda && timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'GPUSpanScales$' > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call5.tgz -C $W .
grep -E '^(--- |ok|FAIL|PASS)' $W/tests.txt; grep -c 'cuda_test.go' $W/tests.txt; grep -m3 'cuda_test.go' $W/tests.txt | cut -c1-300; tail -2 $W/memcheck.txt; cat $W/date.txt
