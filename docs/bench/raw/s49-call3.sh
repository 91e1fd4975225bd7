#!/bin/bash
# session 49 call 3: float64 on the span kernels (cukernels/softmax.cuh
# SM_SPAN, spanCall). bin/cuda.test embeds the rebuilt span fatbin (the
# default fatbin rebuilt byte-identical). TestGPUSpanFloat64 and TestSpanCall
# in full mode, then the whole GPU suite in its short form, then memcheck
# over TestGPUSpanFloat64 and TestGPUSpanScales (short).
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 150 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUSpanFloat64|TestSpanCall' > $W/span64.txt 2>&1; echo "span64 rc=$?")
(cd cuda && timeout 240 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'GPU|Span' > $W/suite-short.txt 2>&1; echo "suite rc=$?")
(cd cuda && timeout 120 compute-sanitizer --tool memcheck ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUSpanFloat64|TestGPUSpanScales' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
for f in $W/span64.txt $W/suite-short.txt $W/memcheck.txt; do echo "== $f"; grep -E "^(--- |ok|PASS|FAIL)|ERROR SUMMARY" $f | grep -v "^--- PASS" | head -8; grep -c "^--- PASS" $f; grep -m6 "_test.go" $f | cut -c1-250; done
date -u >> $W/date.txt
tar czf $OUT/s49-call3.tgz -C $W .
cat $W/date.txt
