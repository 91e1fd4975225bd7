#!/bin/bash
# Session 59 call 1, at the commit given: branch s58-strided-fwd with main
# merged (bin/softmax-bench and bin/cuda.test built there with the
# branch's full fatbins). The backward kernels are main's; the forward
# gains fwd_rows_strided (SOFTMAX_STRIDED=1 only).
# 1. TestGPUStrided in full mode, then under memcheck without the test
#    guards in short form (0 errors wanted).
# 2. The strided backward rule on the H200 (session 58 set it on an H100):
#    float32 backward rows of 131 to 255 columns, SOFTMAX_STRIDED=0 against
#    the rule, two rounds alternated.
# 3. The strided forward: rows of 10 to 1024 columns, three types, the
#    rule (never) against SOFTMAX_STRIDED=1, two rounds alternated.
# 4. Ours (the rule) and PyTorch's on the off-list rows where we trailed.
# Outputs archived in one file ($OUT holds at most 8 files).
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 120 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStrided$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -5; grep -m8 "_test.go" $W/tests.txt | cut -c1-300
(cd cuda && GPU_TEST_GUARD=0 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUStrided$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -6; tail -n 1 $W/memcheck.txt
date -u >> $W/date.txt
tar czf $OUT/s59-call1.tgz -C $W .
B=65536x131,65536x150,65536x175,65536x193,65536x229,65536x250,65536x255,64x12x197x197
F=64x12x197x197,16x12x577x577,32768x300,65536x255,65536x77,131072x33,1048576x10,8192x1000,65536x128,32768x512,2048x1024
for r in 1 2; do
  for v in 0 rule; do
    SOFTMAX_STRIDED=${v/rule/} timeout 60 bin/softmax-bench -graph=false -shapes $B -dtypes float32 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/bw-$v-$r.json > $W/bw-$v-$r.log 2>&1; echo "bw $v $r rc=$?"
  done
  for v in rule 1; do
    SOFTMAX_STRIDED=${v/rule/} timeout 100 bin/softmax-bench -graph=false -shapes $F -dtypes float32,float16,bfloat16 -ops softmax,log_softmax -commit "$1" -out $W/fw-$v-$r.json > $W/fw-$v-$r.log 2>&1; echo "fw $v $r rc=$?"
  done
done
date -u >> $W/date.txt
tar czf $OUT/s59-call1.tgz -C $W .
S2=64x12x197x197,16x12x577x577,32768x300,16384x1025
timeout 60 bin/softmax-bench -graph=false -shapes $S2 -commit "$1" -out $W/ours.json > $W/ours.log 2>&1; echo "ours rc=$?"
timeout 90 python3 bench/torch_bench.py --shapes $S2 --out $W/torch.json > $W/torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s59-call1.tgz -C $W .
