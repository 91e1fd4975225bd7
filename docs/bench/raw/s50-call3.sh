#!/bin/bash
# session 50 call 3: session 49's probe of the public API (313 cases
# against a float64 reference; raw/s49-probe-src.tgz, its go.mod's replace
# pointed at the checkout, built with `go build -tags cu -o bin/probe-cu`
# at f633903 in the environment of scripts/cuda-sdk.sh) with every host
# call forced onto the GPU (SOFTMAX_BACKEND=gpu). In session 49 its 12
# failures were the float32 backward's limits that entries 80 and 81 fix.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/probe-cu
date -u > $W/date.txt
SOFTMAX_BACKEND=gpu timeout 240 bin/probe-cu > $W/probe-gpu.txt 2>&1; echo "probe gpu rc=$?"
grep -E "^FAIL|^SUMMARY|^Backend" $W/probe-gpu.txt | cut -c1-300 | head -40
date -u >> $W/date.txt
tar czf $OUT/s50-call3.tgz -C $W .
