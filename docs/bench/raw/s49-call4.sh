#!/bin/bash
# session 49 call 4: a review's probe of the public API (313 cases against a
# float64 reference; its source is raw/s49-probe-src.tgz: extract it, point
# its go.mod's replace at the checkout, `go build -tags cu -o bin/probe-cu`
# with the environment of scripts/cuda-sdk.sh) with every host call
# forced onto the GPU (SOFTMAX_BACKEND=gpu), then on the CPU for comparison;
# then the negative control of TestGPUSpanFloat64 (SOFTMAX_SPAN=0: the
# default kernels must fail it).
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/probe-cu bin/cuda.test
date -u > $W/date.txt
SOFTMAX_BACKEND=gpu timeout 240 bin/probe-cu > $W/probe-gpu.txt 2>&1; echo "probe gpu rc=$?"
grep -E "^FAIL|^SUMMARY|^Backend" $W/probe-gpu.txt | cut -c1-300 | head -40
(cd cuda && SOFTMAX_SPAN=0 timeout 100 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUSpanFloat64' > $W/span0.txt 2>&1; echo "span=0 rc=$? (1 expected)")
grep -E "^(--- |ok|PASS|FAIL)" $W/span0.txt | head -3; grep -m3 "_test.go" $W/span0.txt | cut -c1-250
date -u >> $W/date.txt
tar czf $OUT/s49-call4.tgz -C $W .
