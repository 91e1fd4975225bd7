#!/bin/bash
# Session 66 call 5, for a later session, at the commit given (main;
# bin/softmax-bench built there). Why float32's tier 1 rows of 60 columns
# (15 packs, 240 bytes) ran at 74.5% of copy where 56 and 64 columns
# reached 86-88% on the same kernel and layout (rows4, 4 lanes a row:
# GPU entry 105): a guess is that rows not a whole number of 32-byte
# sectors (n % 8 = 4: 36, 44, 52, 60) put half the rows' 64-byte chunks
# across an extra sector. float32 rows of 262144 x {36, 40, 44, 52, 56, 60,
# 64} and 1048576x60, every op, under the default plan, SOFTMAX_ROWS_K=1
# (16 lanes a row: a warp's load is two whole rows, back to back),
# SOFTMAX_ROWS_K=2 and SOFTMAX_STAGED=1, two rounds alternated, and
# PyTorch's once. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
S=262144x36,262144x40,262144x44,262144x52,262144x56,262144x60,262144x64,1048576x60
O=softmax,log_softmax,softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in plan k1 k2 st1; do
    case $v in plan) E="";; k1) E="SOFTMAX_ROWS_K=1";; k2) E="SOFTMAX_ROWS_K=2";; st1) E="SOFTMAX_STAGED=1";; esac
    env $E timeout 100 bin/softmax-bench -graph=false -dtypes float32 -shapes $S -ops $O -commit "$1" -out $W/ab-$v-$r.json > $W/ab-$v-$r.log 2>&1; echo "ab $v $r rc=$?"
  done
done
timeout 120 python3 bench/torch_bench.py --dtypes float32 --shapes $S --ops $O --out $W/ab-torch.json > $W/ab-torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s66-call5.tgz -C $W .
