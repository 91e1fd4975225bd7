#!/bin/bash
# Session 65 call 5 (for a later session), at the commit given: on an H200
# only (it stops at once elsewhere), every rule that rests on H100 runs
# alone: the staged kernels' (GPU entries 103 and 104: rows of up to 32
# columns, and of 33-64) against SOFTMAX_STAGED=0, and session 63's
# batched strided rule (entry 102) against SOFTMAX_STRIDED_BATCH=0, two
# rounds alternated, then PyTorch's once. It replaces raw/s64-call7.sh
# (its shapes are A and B here). One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
grep -q H200 $W/smi.txt || { echo "not an H200: nothing run"; exit 0; }
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
A=131072x10,1048576x10,1048576x5,1048576x7,1048576x16,1048576x20,1048576x30,1048576x32
C=65536x33,65536x49,1048576x33,262144x50,32x192x49x49,256x12x50x50,262144x60
B=24576x68,65536x68,65536x77,131072x80
O=softmax,log_softmax,softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in rule s0; do
    E=""; [ $v = s0 ] && E="SOFTMAX_STAGED=0"
    env $E timeout 60 bin/softmax-bench -graph=false -shapes $A -dtypes float32,float16,bfloat16 -ops $O -commit "$1" -out $W/st-$v-$r.json > $W/st-$v-$r.log 2>&1; echo "st $v $r rc=$?"
    env $E timeout 60 bin/softmax-bench -graph=false -shapes $C -dtypes float32,float16,bfloat16 -ops $O -commit "$1" -out $W/wd-$v-$r.json > $W/wd-$v-$r.log 2>&1; echo "wd $v $r rc=$?"
    E=""; [ $v = s0 ] && E="SOFTMAX_STRIDED_BATCH=0"
    env $E timeout 40 bin/softmax-bench -graph=false -shapes $B -dtypes float32 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/fl-$v-$r.json > $W/fl-$v-$r.log 2>&1; echo "fl $v $r rc=$?"
  done
done
timeout 150 python3 bench/torch_bench.py --shapes $A,$C,$B --dtypes float32,float16,bfloat16 --ops $O --out $W/torch.json > $W/torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s65-call5.tgz -C $W .
