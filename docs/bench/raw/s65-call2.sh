#!/bin/bash
# Session 65 call 2, at the commit given (the staged kernels at N = 48 and
# 64, taken only under SOFTMAX_STAGED=1; binaries built with an sm_90-only
# fatbin of that commit's sources): TestGPUStaged in full, memcheck and
# racecheck over it in short form; then rows of 33-64 columns, every op and
# type: the rule (the staged kernels off past 32 columns) against
# SOFTMAX_STAGED=1 and SOFTMAX_SHIFT=1 (tier 1's shifted kernels wherever
# they fit), two rounds alternated. PyTorch's ran in call 1 (same shapes
# but 65536x33 and 65536x50). One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 200 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStaged$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -6; grep -hm8 "_test.go" $W/tests.txt | cut -c1-300
for tool in memcheck racecheck; do
  (cd cuda && GPU_TEST_GUARD=0 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUStaged$' > $W/$tool.txt 2>&1; echo "$tool rc=$?")
  tail -n 1 $W/$tool.txt
done
S=65536x33,131072x33,1048576x33,262144x40,262144x48,65536x50,32x192x49x49,256x12x50x50,262144x60,262144x64
O=softmax,log_softmax,softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in rule st1 sh1; do
    E=""; [ $v = st1 ] && E="SOFTMAX_STAGED=1"; [ $v = sh1 ] && E="SOFTMAX_SHIFT=1"
    env $E timeout 100 bin/softmax-bench -graph=false -shapes $S -ops $O -commit "$1" -out $W/ab-$v-$r.json > $W/ab-$v-$r.log 2>&1; echo "ab $v $r rc=$?"
  done
done
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s65-call2.tgz -C $W .
