#!/bin/bash
# Session 67 call 4, at the commit given (main: gpu.OnceShape takes
# float32's forward of rows of 9, 11, 13 and 15 packs at K = 2 in groups
# of 8, the one-row kernel once2w8; bin/softmax-bench and bin/cuda.test
# built there with the full fatbins). The tests that plan or run tier 1's
# forward, by the rule and TestGPUOnce under SOFTMAX_ROWS_K=2 too (every
# group at K = 2: the kernel of any group), memcheck over TestGPUOnce and
# TestGPURowsBoundaries in short form; then the rule against
# SOFTMAX_ROWS_K=4 (the plan before it), forward, one round. One archive,
# written twice.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
T='TestGPUOnce$|TestGPURandom$|TestGPUTierBoundaries$|TestGPURowsBoundaries$|TestGPUDispatch$|TestGPUPipeDispatch$|TestGPUStaged$|TestGPUExtremeValues$|TestGPUSpanScales$'
(cd cuda && timeout 150 ../bin/cuda.test -test.count=1 -test.v -test.run "$T" > $W/tests.txt 2>&1; echo "tests rc=$?")
(cd cuda && SOFTMAX_ROWS_K=2 timeout 60 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUOnce$' > $W/tests-k2.txt 2>&1; echo "tests k2 rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests*.txt | head -14; grep -hm8 "_test.go" $W/tests*.txt | cut -c1-300
(cd cuda && GPU_TEST_GUARD=0 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUOnce$|TestGPURowsBoundaries$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
tail -n 1 $W/memcheck.txt
tar czf $OUT/s67-call4.tgz -C $W .
S=262144x36,262144x44,262144x52,262144x56,262144x60,1048576x60,65536x36,65536x60,16384x44
for v in rule k4; do
  E=""; [ $v = k4 ] && E="SOFTMAX_ROWS_K=4"
  env $E timeout 60 bin/softmax-bench -graph=false -dtypes float32 -shapes $S -ops softmax,log_softmax -commit "$1" -out $W/ab-$v.json > $W/ab-$v.log 2>&1; echo "ab $v rc=$?"
done
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s67-call4.tgz -C $W .
