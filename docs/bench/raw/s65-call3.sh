#!/bin/bash
# Session 65 call 3, at the commit given (the staged kernels at N = 48, 56
# and 64 and their rule for rows of 33-64 columns, gpu.stagedWideOn;
# binaries built with an sm_90-only fatbin of that commit's sources):
# TestGPUStaged in full, memcheck and racecheck over it in short form;
# then the rule against SOFTMAX_STAGED=0 (the plans before), rows of 33-60
# columns, every op and type, two rounds alternated, and PyTorch's once.
# One archive.
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
S=16384x50,65536x33,65536x49,131072x50,262144x50,1048576x33,32x192x49x49,256x12x50x50,262144x56,262144x60
O=softmax,log_softmax,softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in rule s0; do
    E=""; [ $v = s0 ] && E="SOFTMAX_STAGED=0"
    env $E timeout 100 bin/softmax-bench -graph=false -shapes $S -ops $O -commit "$1" -out $W/ab-$v-$r.json > $W/ab-$v-$r.log 2>&1; echo "ab $v $r rc=$?"
  done
done
timeout 120 python3 bench/torch_bench.py --shapes $S --ops $O --out $W/ab-torch.json > $W/ab-torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s65-call3.tgz -C $W .
