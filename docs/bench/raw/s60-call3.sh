#!/bin/bash
# Session 60 call 3, at the commit given (branch s60-stronce: the strided
# kernels' one-row forms, GPU entry 98; bin/softmax-bench and bin/cuda.test
# built there with its full fatbins). Runs on whichever card comes and
# records it (smi.txt).
# 1. TestGPUStrided in full mode (one-row and looping forms), then under
#    memcheck in short form without the test guards (0 errors wanted).
# 2. The forward and backward ops on call 1's 13 shapes: SOFTMAX_STRIDED=0
#    (main's kernels), =1 (the one-row strided kernels where the group is
#    a warp), =1 with SOFTMAX_STRIDED_ONCE=0 (the looping form, call 1's),
#    two rounds alternated.
# 3. PyTorch's on the same rows, once.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 120 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStrided$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -5; grep -m8 "_test.go" $W/tests.txt | cut -c1-300
(cd cuda && GPU_TEST_GUARD=0 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUStrided$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -6; tail -n 1 $W/memcheck.txt
date -u >> $W/date.txt
tar czf $OUT/s60-call3.tgz -C $W .
B=65536x131,65536x150,65536x175,65536x193,65536x229,65536x250,65536x255,64x12x197x197,32768x300,16x12x577x577,65536x77,131072x33,1048576x10
for r in 1 2; do
  for v in s0 once loop; do
    case $v in s0) E="SOFTMAX_STRIDED=0";; once) E="SOFTMAX_STRIDED=1";; loop) E="SOFTMAX_STRIDED=1 SOFTMAX_STRIDED_ONCE=0";; esac
    env $E timeout 100 bin/softmax-bench -graph=false -shapes $B -ops softmax,log_softmax,softmax_backward,log_softmax_backward -commit "$1" -out $W/bw-$v-$r.json > $W/bw-$v-$r.log 2>&1; echo "bw $v $r rc=$?"
  done
  tar czf $OUT/s60-call3.tgz -C $W .
done
date -u >> $W/date.txt
timeout 120 python3 bench/torch_bench.py --shapes $B --ops softmax,log_softmax,softmax_backward,log_softmax_backward --out $W/torch.json > $W/torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s60-call3.tgz -C $W .
