#!/bin/bash
# Session 58 call 5, at the commit given (bin/cuda.test built there with
# the committed fatbins): the tests that take the strided rule's 171-255
# columns (4722590) and the shared grad_row (114a7d9), short form, after
# call 4 ran the kernels at e15c800.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
T='TestGPUStrided$|TestGPUShifted$|TestGPUDispatch$|TestGPUWide$|TestGPULogBackward$|TestGPURowsBoundaries$'
(cd cuda && timeout 120 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run "$T" > $W/tests.txt 2>&1); echo "tests rc=$?"
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -8; grep -m5 "_test.go" $W/tests.txt | cut -c1-230
date -u >> $W/date.txt
tar czf $OUT/s58-call5.tgz -C $W .
