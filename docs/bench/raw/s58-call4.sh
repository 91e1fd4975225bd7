#!/bin/bash
# Session 58 call 4, at the commit given (main with s57-hybrid merged and
# the strided backward; bin/softmax-bench and bin/cuda.test built there
# with the committed fatbins). Memcheck without the test guards over
# TestGPUStrided's short form, the short form of the tests the merge and
# the strided rule touch and of the backward's value tests (a refused
# call left too little device time for the whole suite), then the
# strided kernel against the shifted path on float32 backward rows of
# 129 to 255 columns (SOFTMAX_STRIDED=0 against =1, two rounds
# alternated), then ours and PyTorch's on the backward rows that changed.
# Outputs archived in one file.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && GPU_TEST_GUARD=0 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUStrided$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -6; tail -n 1 $W/memcheck.txt
T='TestGPUStrided$|TestGPUShifted$|TestGPUDispatch$|TestGPUPipeDispatch$|TestGPURowsBoundaries$|TestGPUTierBoundaries$|TestGPUCluster$|TestGPUWide$|TestGPURandom$|TestGPUExtremeValues$|TestGPULogBackward$|TestGPUSoftmaxBackwardPastRange$|TestGPULogBackwardSumPastRange$|TestGPUTinyGradients$'
(cd cuda && timeout 250 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run "$T" > $W/suite.txt 2>&1); echo "suite rc=$?"
grep -E "^(--- |ok|PASS|FAIL)" $W/suite.txt | grep -v "^--- PASS" | head -5; grep -c "^--- PASS" $W/suite.txt; grep -m5 "_test.go" $W/suite.txt | cut -c1-230
date -u >> $W/date.txt
tar czf $OUT/s58-call4.tgz -C $W .
S=65536x131,65536x150,65536x175,65536x193,65536x229,65536x250,65536x255,64x12x197x197
for r in 1 2; do
  for v in 0 1; do
    SOFTMAX_STRIDED=$v timeout 60 bin/softmax-bench -graph=false -shapes $S -dtypes float32 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/sw-s$v-$r.json > $W/sw-s$v-$r.log 2>&1; echo "s$v $r rc=$?"
  done
done
S2=64x12x197x197,16384x1025,16384x1100,32768x300
timeout 60 bin/softmax-bench -graph=false -shapes $S2 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/bwd-ours.json > $W/bwd-ours.log 2>&1; echo "ours rc=$?"
timeout 60 python3 bench/torch_bench.py --shapes $S2 --ops softmax_backward,log_softmax_backward --out $W/bwd-torch.json > $W/bwd-torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s58-call4.tgz -C $W .
