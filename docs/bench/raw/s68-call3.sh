#!/bin/bash
# Session 68 call 3, at the commit given (main: gpu.PackedOn takes the
# packed kernels for the half types' softmax of rows of 9-16 packs from
# 2^26 elements; binaries built there with the committed full fatbins).
# TestGPUPacked (its new rule cases, and the packed kernels' values over
# rows of 1-4096 packs), TestGPUPipeDispatch and TestGPUDispatch; then the
# rule against SOFTMAX_PACKED=0 (the pipelined kernels, the plan before it
# for softmax), softmax forward, one round each, alternated. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 90 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUPacked$|TestGPUPipeDispatch$|TestGPUDispatch$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests.txt | head; grep -hm8 "_test.go" $W/tests.txt | cut -c1-300
S=1048576x72,1048576x96,1048576x128,524288x128,524288x104,786432x88
for r in 1 2; do
  for v in rule p0; do
    E=""; [ $v = p0 ] && E="SOFTMAX_PACKED=0"
    env $E timeout 40 bin/softmax-bench -graph=false -dtypes float16,bfloat16 -shapes $S -ops softmax -commit "$1" -out $W/pk-$v-$r.json > $W/pk-$v-$r.log 2>&1; echo "pk $v $r rc=$?"
  done
done
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s68-call3.tgz -C $W .
