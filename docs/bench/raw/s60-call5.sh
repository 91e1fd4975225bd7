#!/bin/bash
# Session 60 call 5, at the commit given (branch s60-stronce with the
# strided rule of GPU entry 99): the plan tables and dispatch tests in
# short form (TestGPUStrided, TestGPUShifted, TestGPUDispatch,
# TestGPUPipeDispatch, TestGPUOnce), then the rule's rows through the
# default plan against SOFTMAX_STRIDED=0, one round.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 100 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUStrided$|TestGPUShifted$|TestGPUDispatch$|TestGPUPipeDispatch$|TestGPUOnce$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -8; grep -m8 "_test.go" $W/tests.txt | cut -c1-300
tar czf $OUT/s60-call5.tgz -C $W .
B=65536x77,65536x250,64x12x197x197,16x12x577x577
for v in rule s0; do
  E=""; [ $v = s0 ] && E="SOFTMAX_STRIDED=0"
  env $E timeout 40 bin/softmax-bench -graph=false -shapes $B -ops softmax,log_softmax_backward -commit "$1" -out $W/bw-$v.json > $W/bw-$v.log 2>&1; echo "bw $v rc=$?"
done
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s60-call5.tgz -C $W .
