#!/bin/bash
# Session 63 call 4, at the commit given (its binaries: the batched
# strided kernel's rule with its 24576-row floor, GPU entry 102):
# TestGPUStridedBatch in full (its rule table), the strided and dispatch
# tests in short form; the rule against SOFTMAX_STRIDED_BATCH=0 on rows
# each side of the floor and of the columns, two rounds alternated, and
# PyTorch's once. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 90 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStridedBatch$' > $W/tests-batch.txt 2>&1; echo "batch test rc=$?")
(cd cuda && timeout 90 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUStrided$|TestGPUShifted$|TestGPUDispatch$|TestGPUPipeDispatch$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests-batch.txt $W/tests.txt | head -10; grep -hm8 "_test.go" $W/tests-batch.txt $W/tests.txt | cut -c1-300
A=8192x77,16384x68,24575x68,24576x68,24576x77,65536x68,65536x77,65536x81,131072x80
O=softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in rule s0; do
    E=""; [ $v = s0 ] && E="SOFTMAX_STRIDED_BATCH=0"
    env $E timeout 40 bin/softmax-bench -graph=false -shapes $A -dtypes float32 -ops $O -commit "$1" -out $W/fl-$v-$r.json > $W/fl-$v-$r.log 2>&1; echo "fl $v $r rc=$?"
  done
done
timeout 60 python3 bench/torch_bench.py --shapes $A --dtypes float32 --ops $O --out $W/fl-torch.json > $W/fl-torch.log 2>&1; echo "fl torch rc=$?"
grep -h "failed checks" $W/fl-*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s63-call4.tgz -C $W .
