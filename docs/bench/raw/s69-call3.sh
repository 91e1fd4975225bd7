#!/bin/bash
# Session 69 call 3, at the commit given (main: gpu.ShiftOn gives unmasked
# backward rows of a part pack of 41-64 columns the shifted kernels, and
# float32's staged rule leaves them; binaries built there with the
# committed full fatbins). TestGPUShifted (its new plan cases, the shifted
# kernels' values), TestGPUStaged, TestGPUDispatch, TestGPUStrided and
# TestGPUStridedBatch; then the rule against the plans before it, two
# rounds alternated: below 262144 rows against SOFTMAX_SHIFT=0 (the
# column-at-a-time kernel), from 262144 float32 rows against
# SOFTMAX_STAGED=1 (the staged kernels); 33 and 38 columns are controls
# (the same plan both ways); and the batched strided kernel
# (SOFTMAX_STRIDED_BATCH=1) at every shape, which call 1 ran 1.07-1.11x the
# old plan at 49-50 columns (shifted: 1.12-1.16x) and which was not
# measured at 57-63. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 200 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUShifted$|TestGPUStaged$|TestGPUDispatch$|TestGPUStrided$|TestGPUStridedBatch$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests.txt | head; grep -hm8 "_test.go" $W/tests.txt | cut -c1-300
S=16384x50,65536x41,65536x57,131072x50,131072x57,131072x63,256x12x50x50,131072x38,131072x33
L=262144x50,262144x57,32x192x49x49,1048576x50,262144x33
O=softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in rule old sb1; do
    E=""; [ $v = old ] && E="SOFTMAX_SHIFT=0"; [ $v = sb1 ] && E="SOFTMAX_STRIDED_BATCH=1"
    env $E timeout 40 bin/softmax-bench -graph=false -dtypes float32,float16 -shapes $S -ops $O -commit "$1" -out $W/s-$v-$r.json > $W/s-$v-$r.log 2>&1; echo "s $v $r rc=$?"
    E=""; [ $v = old ] && E="SOFTMAX_STAGED=1"; [ $v = sb1 ] && E="SOFTMAX_STRIDED_BATCH=1"
    env $E timeout 40 bin/softmax-bench -graph=false -dtypes float32 -shapes $L -ops $O -commit "$1" -out $W/l-$v-$r.json > $W/l-$v-$r.log 2>&1; echo "l $v $r rc=$?"
  done
done
grep -h "failed checks" $W/[sl]-*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s69-call3.tgz -C $W .
