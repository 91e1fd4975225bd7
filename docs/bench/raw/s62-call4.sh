#!/bin/bash
# Session 62 call 4 (for a later session), at the commit given (branch
# s62-strided-batch, binaries built there: GPU entry 101): the batched
# one-row strided kernels' test in full mode, the strided and dispatch
# tests in short form, memcheck over TestGPUStridedBatch (short form);
# then short rows under the default plan (rule) and the batched kernels
# of 2 and 4 rows a warp (SOFTMAX_STRIDED_BATCH=2, =4), two rounds
# alternated, every op of the three types, and PyTorch's once. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 120 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStridedBatch$' > $W/tests-batch.txt 2>&1; echo "batch test rc=$?")
(cd cuda && timeout 90 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUStrided$|TestGPUShifted$|TestGPUDispatch$|TestGPUPipeDispatch$|TestGPUOnce$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests-batch.txt $W/tests.txt | head -10; grep -hm8 "_test.go" $W/tests-batch.txt $W/tests.txt | cut -c1-300
tar czf $OUT/s62-call4.tgz -C $W .
(cd cuda && GPU_TEST_GUARD=0 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUStridedBatch$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -6; tail -n 1 $W/memcheck.txt
tar czf $OUT/s62-call4.tgz -C $W .
A=1048576x10,262144x32,131072x33,131072x64,65536x68,65536x77,65536x100,65536x128
for r in 1 2; do
  for v in rule b2 b4; do
    E=""; [ $v = b2 ] && E="SOFTMAX_STRIDED_BATCH=2"; [ $v = b4 ] && E="SOFTMAX_STRIDED_BATCH=4"
    env $E timeout 60 bin/softmax-bench -graph=false -shapes $A -ops softmax,log_softmax,softmax_backward,log_softmax_backward -commit "$1" -out $W/sb-$v-$r.json > $W/sb-$v-$r.log 2>&1; echo "sb $v $r rc=$?"
  done
  tar czf $OUT/s62-call4.tgz -C $W .
done
timeout 90 python3 bench/torch_bench.py --shapes $A --ops softmax,log_softmax,softmax_backward,log_softmax_backward --out $W/sb-torch.json > $W/sb-torch.log 2>&1; echo "sb torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s62-call4.tgz -C $W .
