#!/bin/bash
# Session 60 call 1 (prepared in session 59), at the commit given: branch
# s59-strided-both (s59-strided-lean with s58-strided-fwd's forward) (bin/softmax-bench and bin/cuda.test built there with
# its full fatbins). The strided backward's lean form (GPU entry 96):
# rows of a group of 32 take constant column offsets, vy and vg are loaded
# again after the exact path. No row takes it by default; SOFTMAX_STRIDED=1
# takes it for every unmasked backward row it fits.
# 1. TestGPUStrided in full mode, then under memcheck without the test
#    guards in short form (0 errors wanted).
# 2. The forward and backward ops, the three types, rows of 10 to 577
#    columns, SOFTMAX_STRIDED=0 (the shifted and plain kernels, main's)
#    against =1 (the strided kernels), two rounds alternated.
# 3. PyTorch's on the same rows, once.
# Outputs archived in one file ($OUT returns at most 8 files). Record
# which card ran it (smi.txt): the rule needs the H200's figures.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 150 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStrided$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -5; grep -m8 "_test.go" $W/tests.txt | cut -c1-300
(cd cuda && GPU_TEST_GUARD=0 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUStrided$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -6; tail -n 1 $W/memcheck.txt
date -u >> $W/date.txt
tar czf $OUT/s60-call1.tgz -C $W .
B=65536x131,65536x150,65536x175,65536x193,65536x229,65536x250,65536x255,64x12x197x197,32768x300,16x12x577x577,65536x77,131072x33,1048576x10
for r in 1 2; do
  for v in 0 1; do
    SOFTMAX_STRIDED=$v timeout 150 bin/softmax-bench -graph=false -shapes $B -ops softmax,log_softmax,softmax_backward,log_softmax_backward -commit "$1" -out $W/bw-s$v-$r.json > $W/bw-s$v-$r.log 2>&1; echo "bw s$v $r rc=$?"
  done
done
date -u >> $W/date.txt
tar czf $OUT/s60-call1.tgz -C $W .
timeout 150 python3 bench/torch_bench.py --shapes $B --ops softmax,log_softmax,softmax_backward,log_softmax_backward --out $W/torch.json > $W/torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s60-call1.tgz -C $W .
