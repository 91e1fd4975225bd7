#!/bin/bash
# Session 64 call 5, at the commit given (the staged rule from 131072
# rows, gpu.StagedMinRows; Device.noStaged in TestGPUShifted: GPU entry
# 103): TestGPUStaged and TestGPUShifted in full, the dispatch tests in
# short form; the rule against SOFTMAX_STAGED=0 and =1 on 65536 to 393216
# rows of 10 and 20 columns, three types, four ops, three rounds
# alternated. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 150 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStaged$|TestGPUShifted$' > $W/tests.txt 2>&1; echo "tests rc=$?")
(cd cuda && timeout 150 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUStrided$|TestGPUStridedBatch$|TestGPUDispatch$|TestGPUPipeDispatch$|TestGPUOnce$|TestGPUPacked$' > $W/tests-dispatch.txt 2>&1; echo "dispatch tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests.txt $W/tests-dispatch.txt | head -12; grep -hm8 "_test.go" $W/tests.txt $W/tests-dispatch.txt | cut -c1-300
A=65536x10,98304x10,131072x10,196608x10,262144x10,393216x10,65536x20,131072x20,262144x20
O=softmax,log_softmax,softmax_backward,log_softmax_backward
for r in 1 2 3; do
  for v in rule s0 s1; do
    E=""; [ $v = s0 ] && E="SOFTMAX_STAGED=0"; [ $v = s1 ] && E="SOFTMAX_STAGED=1"
    env $E timeout 60 bin/softmax-bench -graph=false -shapes $A -dtypes float32,float16,bfloat16 -ops $O -commit "$1" -out $W/sm-$v-$r.json > $W/sm-$v-$r.log 2>&1; echo "sm $v $r rc=$?"
  done
done
grep -h "failed checks" $W/sm-*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s64-call5.tgz -C $W .
