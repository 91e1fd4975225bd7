#!/bin/bash
# Session 68's H200 call (for a later session), at the commit given: on an
# H200 only (it stops at once elsewhere). First raw/s65-call5.sh (the
# staged and batched strided rules of entries 102-105 against their
# knobs), then in the same folder, two rounds alternated and PyTorch's
# once:
#  D: entry 106's rule (float32's forward of rows of 9, 11, 13 and 15
#     packs on once2w8) against SOFTMAX_ROWS_K=4, the plan before it;
#  E: entry 107's lead: float32's backward at 26-32 packs (104-128
#     columns; 65536x128 is an issue shape), the plan (K = 2) against
#     SOFTMAX_ROWS_K=4, which ran 1.00-1.04x on the H100; on the H200
#     K = 4 lost 4-5% where K = 2's group is full (entry 90);
#  F: entry 107's lead: the half types' softmax at 12, 14 and 16 packs
#     (96, 112, 128 columns), the plan (K = 2) against SOFTMAX_ROWS_K=4
#     (1.04-1.09x on the H100 at 262144 rows);
#  G: entry 107's rule (the half types' softmax of 9-16 packs on the
#     packed kernels from 2^26 elements) against SOFTMAX_PACKED=0, the
#     pipelined kernels before it (524288x104 is below the bound: a
#     control).
# One archive.
set -u
cd "$(dirname "$0")/../../.."
bash docs/bench/raw/s65-call5.sh "$1"
W=$OUT/w
grep -q H200 $W/smi.txt || exit 0
D=262144x36,262144x44,262144x52,262144x60,1048576x60,65536x44,65536x60,65536x36
E=65536x104,65536x116,65536x128,262144x108,262144x120,262144x128,1048576x128
F=65536x96,65536x112,65536x128,262144x96,262144x112,262144x128,1048576x128
G=1048576x72,1048576x96,1048576x128,524288x128,524288x104,786432x88
for r in 1 2; do
  for v in plan k4; do
    X=""; [ $v = k4 ] && X="SOFTMAX_ROWS_K=4"
    env $X timeout 60 bin/softmax-bench -graph=false -dtypes float32 -shapes $D -ops softmax,log_softmax -commit "$1" -out $W/d-$v-$r.json > $W/d-$v-$r.log 2>&1; echo "d $v $r rc=$?"
    env $X timeout 60 bin/softmax-bench -graph=false -dtypes float32 -shapes $E -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/e-$v-$r.json > $W/e-$v-$r.log 2>&1; echo "e $v $r rc=$?"
    env $X timeout 60 bin/softmax-bench -graph=false -dtypes float16,bfloat16 -shapes $F -ops softmax -commit "$1" -out $W/f-$v-$r.json > $W/f-$v-$r.log 2>&1; echo "f $v $r rc=$?"
    g=rule; X=""; [ $v = k4 ] && g=p0 && X="SOFTMAX_PACKED=0"
    env $X timeout 60 bin/softmax-bench -graph=false -dtypes float16,bfloat16 -shapes $G -ops softmax -commit "$1" -out $W/g-$g-$r.json > $W/g-$g-$r.log 2>&1; echo "g $g $r rc=$?"
  done
done
timeout 60 python3 bench/torch_bench.py --dtypes float32 --shapes $D --ops softmax,log_softmax --out $W/d-torch.json > $W/d-torch.log 2>&1; echo "torch d rc=$?"
timeout 60 python3 bench/torch_bench.py --dtypes float32 --shapes $E --ops softmax_backward,log_softmax_backward --out $W/e-torch.json > $W/e-torch.log 2>&1; echo "torch e rc=$?"
timeout 60 python3 bench/torch_bench.py --dtypes float16,bfloat16 --shapes $F --ops softmax --out $W/f-torch.json > $W/f-torch.log 2>&1; echo "torch f rc=$?"
timeout 60 python3 bench/torch_bench.py --dtypes float16,bfloat16 --shapes $G --ops softmax --out $W/g-torch.json > $W/g-torch.log 2>&1; echo "torch g rc=$?"
grep -h "failed checks" $W/[defg]-*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s68-h200.tgz -C $W .
