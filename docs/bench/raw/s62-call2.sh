#!/bin/bash
# Session 62 call 2, at the commit given (92cd825: the strided rule takes
# float32 backward rows of whole packs where tier 1 gives K = 4): the rule's
# dispatch tests in short form (TestGPUStrided, TestGPUPipeDispatch,
# TestGPUShifted, TestGPUDispatch, TestGPUOnce), then float32 backward of
# whole-pack rows of 68-640 columns: the rule (rule), the plans without
# the strided kernels (s0: the plans before 92cd825 on every row here) and
# the strided kernels everywhere (s1: the powers of two too), two rounds
# alternated, and PyTorch's on them. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 100 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUStrided$|TestGPUPipeDispatch$|TestGPUShifted$|TestGPUDispatch$|TestGPUOnce$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -8; grep -m8 "_test.go" $W/tests.txt | cut -c1-300
tar czf $OUT/s62-call2.tgz -C $W .
A=65536x68,65536x100,65536x128,65536x136,32768x200,65536x232,65536x256,32768x300,32768x400,32768x480,32768x512,16384x600,16384x640
for r in 1 2; do
  for v in rule s0 s1; do
    E=""; [ $v = s0 ] && E="SOFTMAX_STRIDED=0"; [ $v = s1 ] && E="SOFTMAX_STRIDED=1"
    env $E timeout 60 bin/softmax-bench -graph=false -shapes $A -dtypes float32 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/ab-$v-$r.json > $W/ab-$v-$r.log 2>&1; echo "ab $v $r rc=$?"
  done
done
date -u >> $W/date.txt
tar czf $OUT/s62-call2.tgz -C $W .
timeout 90 python3 bench/torch_bench.py --shapes $A --dtypes float32 --ops softmax_backward,log_softmax_backward --out $W/ab-torch.json > $W/ab-torch.log 2>&1; echo "ab torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s62-call2.tgz -C $W .
