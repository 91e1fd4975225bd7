#!/bin/bash
# Session 67 call 5, for a later session, at the commit given (main;
# bin/softmax-bench built there). Leads from entry 106, each the plan
# against SOFTMAX_ROWS_K=1, 2 and 4, two rounds alternated, then PyTorch's
# once. One archive.
#  A: float32 rows of an odd number of packs below the staged kernels'
#     131072 rows (20 and 28 columns: 5 and 7 packs, K = 4 in groups of 2,
#     32-byte loads, every other row across two sectors), forward;
#  B: the half types' rows of 9-16 packs (72-128 columns; K = 2 in groups
#     of 8 by rowsK, 128-byte loads), odd against even, forward;
#  C: float32's backward at 26-32 packs (104-128 columns), where K = 4 ran
#     1.00-1.04x against the plan's K = 2 in call 2.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
A=16384x20,16384x28,65536x20,65536x28,65536x24,65536x32
B=262144x72,262144x80,262144x88,262144x96,262144x104,262144x112,262144x120,262144x128,65536x88,65536x120
C=65536x104,65536x120,65536x128,262144x104,262144x116,262144x124,262144x128,1048576x120
for r in 1 2; do
  for v in plan k1 k2 k4; do
    case $v in plan) E="";; k1) E="SOFTMAX_ROWS_K=1";; k2) E="SOFTMAX_ROWS_K=2";; k4) E="SOFTMAX_ROWS_K=4";; esac
    env $E timeout 60 bin/softmax-bench -graph=false -dtypes float32 -shapes $A -ops softmax,log_softmax -commit "$1" -out $W/a-$v-$r.json > $W/a-$v-$r.log 2>&1; echo "a $v $r rc=$?"
    env $E timeout 90 bin/softmax-bench -graph=false -dtypes float16,bfloat16 -shapes $B -ops softmax,log_softmax -commit "$1" -out $W/b-$v-$r.json > $W/b-$v-$r.log 2>&1; echo "b $v $r rc=$?"
    env $E timeout 60 bin/softmax-bench -graph=false -dtypes float32 -shapes $C -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/c-$v-$r.json > $W/c-$v-$r.log 2>&1; echo "c $v $r rc=$?"
  done
done
timeout 60 python3 bench/torch_bench.py --dtypes float32 --shapes $A --ops softmax,log_softmax --out $W/a-torch.json > $W/a-torch.log 2>&1; echo "torch a rc=$?"
timeout 90 python3 bench/torch_bench.py --dtypes float16,bfloat16 --shapes $B --ops softmax,log_softmax --out $W/b-torch.json > $W/b-torch.log 2>&1; echo "torch b rc=$?"
timeout 60 python3 bench/torch_bench.py --dtypes float32 --shapes $C --ops softmax_backward,log_softmax_backward --out $W/c-torch.json > $W/c-torch.log 2>&1; echo "torch c rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s67-call5.tgz -C $W .
