#!/bin/bash
# Session 58 call 3: $1 the main commit the strided kernels were built on
# (working tree; bin/m-bench and bin/m-cuda.test, sm_90 fatbins), $2
# branch s57-hybrid's commit (bin/h-bench, sm_90 fatbin).
# 1. TestGPUStrided in full mode, then under memcheck without the test
#    guards in its short form (0 errors wanted).
# 2. The strided backward against the rule (SOFTMAX_STRIDED=1 against
#    unset), both backward ops, the three types with kernels, rows of
#    10 to 1024 columns, two rounds alternated.
# 3. s57-hybrid against main (the same build without SOFTMAX_STRIDED) on
#    GPU entry 92's pipe-end shapes, two rounds alternated.
# Outputs archived in one file ($OUT holds at most 8 files).
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 120 ../bin/m-cuda.test -test.count=1 -test.v -test.run 'TestGPUStrided$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -5; grep -m8 "_test.go" $W/tests.txt | cut -c1-300
(cd cuda && GPU_TEST_GUARD=0 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/m-cuda.test -test.short -test.count=1 -test.run 'TestGPUStrided$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -6; tail -n 1 $W/memcheck.txt
date -u >> $W/date.txt
S=64x12x197x197,16x12x577x577,32768x300,65536x77,131072x33,1048576x10,8192x1000,32768x512,65536x128,2048x1024,128x1024
for r in 1 2; do
  timeout 100 bin/m-bench -graph=false -shapes $S -dtypes float32,float16,bfloat16 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/st-rule-$r.json > $W/st-rule-$r.log 2>&1; echo "rule $r rc=$?"
  SOFTMAX_STRIDED=1 timeout 100 bin/m-bench -graph=false -shapes $S -dtypes float32,float16,bfloat16 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/st-strided-$r.json > $W/st-strided-$r.log 2>&1; echo "strided $r rc=$?"
done
date -u >> $W/date.txt
for r in 1 2; do
  for b in m h; do
    c=$1; [ $b = h ] && c=$2
    timeout 60 bin/$b-bench -graph=false -shapes 16384x1025,16384x1100,32768x300,64x12x197x197 -dtypes float16,bfloat16 -ops softmax_backward,log_softmax_backward -commit "$c" -out $W/hbwd-$b-$r.json > $W/hbwd-$b-$r.log 2>&1; echo "hbwd $b $r rc=$?"
    timeout 60 bin/$b-bench -graph=false -shapes 16x12x577x577,32768x300,64x12x197x197 -dtypes float16,bfloat16 -ops softmax,log_softmax -commit "$c" -out $W/hfwd-$b-$r.json > $W/hfwd-$b-$r.log 2>&1; echo "hfwd $b $r rc=$?"
    timeout 60 bin/$b-bench -graph=false -shapes 32768x300,64x12x197x197,32768x256 -dtypes float32 -ops softmax_backward,log_softmax_backward -commit "$c" -out $W/fbwd-$b-$r.json > $W/fbwd-$b-$r.log 2>&1; echo "fbwd $b $r rc=$?"
  done
done
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s58-call3.tgz -C $W .
