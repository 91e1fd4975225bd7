#!/bin/bash
# Session 70 call 1, at the commit given (the lean backward reduction,
# grad_reduce: tier 1's groups of at most a warp sum c in float32 and take
# log-softmax's bits from ballots; 5 shuffles a row where 15 were).
# bin/softmax-bench and bin/cuda.test are built there with the sm_90 cubins
# of the committed fatbins embedded (the whole fatbins do not fit a call's
# 64 MiB with the base); bin/base-sm90.cubin is the sm_90 cubin of
# cd5cb51's fatbin (the commit before; the same Go code), which the base
# runs through -fatbin (the span fatbin did not change). First
# the A/B, two rounds alternated: base against new (the plan both ways),
# and new with SOFTMAX_STRIDED_BATCH=1 (the batched strided kernel, whose
# per-row cost the change cuts most), backward ops only, every half and
# float32, on the short rows where PyTorch led on the H100 (33, 36, 50,
# 56-63 columns) and on the issue's tier 1 backward rows; then PyTorch's
# once; then the GPU tests of tier 1's backward rows in their short form.
# One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
S=131072x33,262144x33,65536x36,262144x36,131072x50,131072x63,256x12x50x50,262144x56,262144x60,1048576x3,1048576x16,64x12x197x197,65536x128,32768x512,2048x1024,128x1024
O=softmax_backward,log_softmax_backward
D=float32,float16,bfloat16
for r in 1 2; do
  for v in base new sb1; do
    F=""; E=""
    [ $v = base ] && F="-fatbin bin/base-sm90.cubin"
    [ $v = sb1 ] && E="SOFTMAX_STRIDED_BATCH=1"
    env $E timeout 90 bin/softmax-bench $F -graph=false -dtypes $D -shapes $S -ops $O -commit "$1" -out $W/s-$v-$r.json > $W/s-$v-$r.log 2>&1; echo "s $v $r rc=$?"
  done
done
date -u >> $W/date.txt
tar czf $OUT/s70-call1.tgz -C $W .
timeout 90 python3 bench/torch_bench.py --dtypes $D --shapes $S --ops $O --out $W/s-torch.json > $W/s-torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/s-*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s70-call1.tgz -C $W .
T='TestGPU(Random|TinyGradients|TinyScaleBackward|ExtremeValues|RowsBoundaries|LogBackwardSumPastRange|SoftmaxBackwardPastRange|LogBackward|PipeDispatch|Packed|Strided|StridedBatch|Staged|Once|Shifted|Dispatch)$'
(cd cuda && timeout 240 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run "$T" > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- FAIL|ok|PASS|FAIL)" $W/tests.txt | head; grep -c "^--- PASS" $W/tests.txt; grep -hm8 "_test.go" $W/tests.txt | cut -c1-300
date -u >> $W/date.txt
tar czf $OUT/s70-call1.tgz -C $W .
