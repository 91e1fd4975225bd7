#!/bin/bash
# Session 63 call 2, at the commit given (its binaries: the batched
# one-row strided kernel trimmed to float32 backward, E = 2 and 4, 2 rows
# a warp, and the rule that takes it at 64 to 80 columns, GPU entry 101):
# TestGPUStridedBatch in full, the strided and dispatch tests in short
# form, memcheck over TestGPUStridedBatch; an A/B of the rule against
# SOFTMAX_STRIDED_BATCH=0 (the plans before it) on float32 backward rows
# of 63 to 81 columns, two rounds alternated, and PyTorch's once; then the
# whole suite in short form (no memcheck, no racecheck) with what time is
# left. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 90 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStridedBatch$' > $W/tests-batch.txt 2>&1; echo "batch test rc=$?")
(cd cuda && timeout 90 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUStrided$|TestGPUShifted$|TestGPUDispatch$|TestGPUPipeDispatch$|TestGPUOnce$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests-batch.txt $W/tests.txt | head -10; grep -hm8 "_test.go" $W/tests-batch.txt $W/tests.txt | cut -c1-300
(cd cuda && GPU_TEST_GUARD=0 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUStridedBatch$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -4; tail -n 1 $W/memcheck.txt
tar czf $OUT/s63-call2.tgz -C $W .
A=65536x63,65536x64,65536x68,65536x72,65536x77,65536x80,65536x81,131072x64,131072x72,8192x77
O=softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in rule s0; do
    E=""; [ $v = s0 ] && E="SOFTMAX_STRIDED_BATCH=0"
    env $E timeout 40 bin/softmax-bench -graph=false -shapes $A -dtypes float32 -ops $O -commit "$1" -out $W/ab-$v-$r.json > $W/ab-$v-$r.log 2>&1; echo "ab $v $r rc=$?"
  done
done
timeout 60 python3 bench/torch_bench.py --shapes $A --dtypes float32 --ops $O --out $W/ab-torch.json > $W/ab-torch.log 2>&1; echo "ab torch rc=$?"
grep -h "failed checks" $W/ab-*.log | sort | uniq -c
tar czf $OUT/s63-call2.tgz -C $W .
GPU_TEST_SHORT=1 GPU_TEST_MEMCHECK=0 GPU_TEST_RACECHECK=0 GPU_TEST_TIMEOUT=270 bash scripts/cuda-gpu-test.sh $W/suite > $W/suite.txt 2>&1; echo "suite rc=$?"; tail -n 6 $W/suite.txt
date -u >> $W/date.txt
tar czf $OUT/s63-call2.tgz -C $W .
