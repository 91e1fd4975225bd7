#!/bin/bash
# Branch s58-strided-fwd, at the commit given (bin/softmax-bench and
# bin/cuda.test built there): the strided kernels' forward
# (fwd_rows_strided; SOFTMAX_STRIDED=1 takes them, the rule never).
# 1. TestGPUStrided in full mode (forward and backward), then under
#    memcheck without the test guards in short form (0 errors wanted).
# 2. The forward ops, the three types, rows of 10 to 1024 columns,
#    the rule against SOFTMAX_STRIDED=1, two rounds alternated.
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
S=64x12x197x197,16x12x577x577,32768x300,65536x77,131072x33,1048576x10,8192x1000,65536x128,32768x512,2048x1024
for r in 1 2; do
  timeout 100 bin/softmax-bench -graph=false -shapes $S -dtypes float32,float16,bfloat16 -ops softmax,log_softmax -commit "$1" -out $W/sf-rule-$r.json > $W/sf-rule-$r.log 2>&1; echo "rule $r rc=$?"
  SOFTMAX_STRIDED=1 timeout 100 bin/softmax-bench -graph=false -shapes $S -dtypes float32,float16,bfloat16 -ops softmax,log_softmax -commit "$1" -out $W/sf-strided-$r.json > $W/sf-strided-$r.log 2>&1; echo "strided $r rc=$?"
done
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s58-fwd.tgz -C $W .
