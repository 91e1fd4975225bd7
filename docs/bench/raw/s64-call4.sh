#!/bin/bash
# Session 64 call 4, at the commit given (the staged kernels' rule,
# gpu.StagedOn and gpu.StagedRows: GPU entry 103): TestGPUStaged in full
# (its rule table), the whole suite in short form (no memcheck, no
# racecheck), and the rule against SOFTMAX_STAGED=0 on call 2's shapes,
# three types, four ops, two rounds alternated. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 120 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStaged$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -4; grep -hm8 "_test.go" $W/tests.txt | cut -c1-300
A=65536x10,131072x10,262144x10,1048576x10,1048576x3,1048576x5,1048576x7,1048576x8,1048576x12,1048576x16,1048576x20,1048576x24,1048576x30,1048576x32,131072x32,262144x32
O=softmax,log_softmax,softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in rule s0; do
    E=""; [ $v = s0 ] && E="SOFTMAX_STAGED=0"
    env $E timeout 90 bin/softmax-bench -graph=false -shapes $A -dtypes float32,float16,bfloat16 -ops $O -commit "$1" -out $W/st-$v-$r.json > $W/st-$v-$r.log 2>&1; echo "st $v $r rc=$?"
  done
done
grep -h "failed checks" $W/st-*.log | sort | uniq -c
tar czf $OUT/s64-call4.tgz -C $W .
GPU_TEST_SHORT=1 GPU_TEST_MEMCHECK=0 GPU_TEST_RACECHECK=0 GPU_TEST_TIMEOUT=330 bash scripts/cuda-gpu-test.sh $W/suite > $W/suite.txt 2>&1; echo "suite rc=$?"; tail -n 4 $W/suite.txt
grep -E "^--- FAIL" $W/suite/tests.log | head
date -u >> $W/date.txt
tar czf $OUT/s64-call4.tgz -C $W .
