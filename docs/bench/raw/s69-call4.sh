#!/bin/bash
# Session 69 call 4, at the commit given (main: gpu.StridedBatchMinN takes
# float32 backward rows of 62-63 columns onto the batched strided kernel;
# binaries built there with the committed full fatbins). TestGPUStridedBatch
# (its new plan cases), TestGPUShifted and TestGPUStaged in short form;
# then the rule against SOFTMAX_STRIDED_BATCH=0 (the shifted kernels, the
# plan before it), two rounds alternated (61 columns: a control, shifted
# both ways). One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 120 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUStridedBatch$|TestGPUShifted$|TestGPUStaged$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests.txt | head; grep -hm8 "_test.go" $W/tests.txt | cut -c1-300
S=24576x63,65536x63,131072x62,131072x63,262144x63,1048576x62,131072x61
for r in 1 2; do
  for v in rule b0; do
    E=""; [ $v = b0 ] && E="SOFTMAX_STRIDED_BATCH=0"
    env $E timeout 40 bin/softmax-bench -graph=false -dtypes float32 -shapes $S -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/b-$v-$r.json > $W/b-$v-$r.log 2>&1; echo "b $v $r rc=$?"
  done
done
grep -h "failed checks" $W/b-*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s69-call4.tgz -C $W .
