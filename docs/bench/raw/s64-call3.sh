#!/bin/bash
# Session 64 call 3, at the commit given (the staged kernels' third form:
# call 1's copy through registers, the forward at 1 and 2 rows a thread,
# the backward at 1; GPU entry 103): TestGPUStaged in full, memcheck and
# racecheck over it in short form; SOFTMAX_STAGED=1 with
# SOFTMAX_STAGED_ROWS=1 and =2 against the default plans
# (SOFTMAX_STAGED=0) on call 2's shapes, three types, four ops, two
# rounds alternated (PyTorch: call 2's). One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 120 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStaged$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -4; grep -hm8 "_test.go" $W/tests.txt | cut -c1-300
for tool in memcheck racecheck; do
  (cd cuda && GPU_TEST_GUARD=0 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUStaged$' > $W/$tool.txt 2>&1; echo "$tool rc=$?")
  tail -n 1 $W/$tool.txt
done
tar czf $OUT/s64-call3.tgz -C $W .
A=65536x10,131072x10,262144x10,1048576x10,1048576x3,1048576x5,1048576x7,1048576x8,1048576x12,1048576x16,1048576x20,1048576x24,1048576x30,1048576x32,131072x32,262144x32
O=softmax,log_softmax,softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in r1 r2 s0; do
    case $v in r1) E="SOFTMAX_STAGED=1 SOFTMAX_STAGED_ROWS=1";; r2) E="SOFTMAX_STAGED=1 SOFTMAX_STAGED_ROWS=2";; s0) E="SOFTMAX_STAGED=0";; esac
    env $E timeout 90 bin/softmax-bench -graph=false -shapes $A -dtypes float32,float16,bfloat16 -ops $O -commit "$1" -out $W/st-$v-$r.json > $W/st-$v-$r.log 2>&1; echo "st $v $r rc=$?"
  done
done
grep -h "failed checks" $W/st-*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s64-call3.tgz -C $W .
