#!/bin/bash
# Session 61 call 1, at the commit given (main with the strided rule of GPU
# entry 99): session 60's call 5 (the plan tables and dispatch tests in
# short form, the rule's rows against SOFTMAX_STRIDED=0), memcheck over
# TestGPUStrided and TestGPUShifted, then the shapes off the issue's list,
# ours and PyTorch's, on whichever card came (smi.txt); then rows the rule
# leaves alone (whole packs, past 640 columns), the default plan against
# SOFTMAX_STRIDED=1 (the one-row strided kernels wherever they fit), two
# rounds alternated, and PyTorch's on them. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 100 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUStrided$|TestGPUShifted$|TestGPUDispatch$|TestGPUPipeDispatch$|TestGPUOnce$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -8; grep -m8 "_test.go" $W/tests.txt | cut -c1-300
tar czf $OUT/s61-call1.tgz -C $W .
B=65536x77,65536x250,64x12x197x197,16x12x577x577
for v in rule s0; do
  E=""; [ $v = s0 ] && E="SOFTMAX_STRIDED=0"
  env $E timeout 40 bin/softmax-bench -graph=false -shapes $B -ops softmax,log_softmax_backward -commit "$1" -out $W/bw-$v.json > $W/bw-$v.log 2>&1; echo "bw $v rc=$?"
done
date -u >> $W/date.txt
tar czf $OUT/s61-call1.tgz -C $W .
(cd cuda && GPU_TEST_GUARD=0 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPU(Strided|Shifted)$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -6; tail -n 1 $W/memcheck.txt
tar czf $OUT/s61-call1.tgz -C $W .
S=1024x50257,512x32001,8192x1000,65536x77,64x12x197x197,16x12x577x577,1048576x10,131072x33,16384x1025,32768x300,4x3000001,1x1000
timeout 80 bin/softmax-bench -graph=false -shapes $S -commit "$1" -out $W/odd-ours.json > $W/odd-ours.log 2>&1; echo "odd ours rc=$?"
timeout 80 python3 bench/torch_bench.py --shapes $S --out $W/odd-torch.json > $W/odd-torch.log 2>&1; echo "odd torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s61-call1.tgz -C $W .
A=65536x128,65536x136,65536x256,32768x300,32768x512,32768x768,8192x1000
for r in 1 2; do
  for v in rule s1; do
    E=""; [ $v = s1 ] && E="SOFTMAX_STRIDED=1"
    env $E timeout 60 bin/softmax-bench -graph=false -shapes $A -ops softmax,log_softmax,softmax_backward,log_softmax_backward -commit "$1" -out $W/ab-$v-$r.json > $W/ab-$v-$r.log 2>&1; echo "ab $v $r rc=$?"
  done
done
tar czf $OUT/s61-call1.tgz -C $W .
timeout 90 python3 bench/torch_bench.py --shapes $A --ops softmax,log_softmax,softmax_backward,log_softmax_backward --out $W/ab-torch.json > $W/ab-torch.log 2>&1; echo "ab torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s61-call1.tgz -C $W .
