#!/bin/bash
# Session 69 call 1, at the commit given (main; binaries built there with
# the committed full fatbins). First raw/s68-call3.sh's checks: TestGPUPacked
# (entry 107's rule cases through the planner), TestGPUPipeDispatch and
# TestGPUDispatch, and the packed rule against SOFTMAX_PACKED=0. On an H200,
# raw/s68-h200.sh after that and nothing else. Elsewhere, a knob sweep of
# float32 rows of 33-60 columns, where PyTorch led on the H100 (entry 104:
# log-softmax backward 0.84-0.92x at 131072x50, 256x12x50x50, 262144x50,
# 32x192x49x49; forward 0.91-0.97x at 50 columns):
#  B: backward (both ops, one kernel), the plan (tier 1's column-at-a-time
#     kernel below 262144 rows; staged from there) against SOFTMAX_SHIFT=1
#     (the shifted kernels), SOFTMAX_STRIDED=1, SOFTMAX_STRIDED_BATCH=1
#     (two rows a warp, as PyTorch's softmax_warp_backward) and
#     SOFTMAX_STAGED=1;
#  F: forward, the plan (tier 1 shifted, K = 4) against SOFTMAX_STRIDED=1
#     and SOFTMAX_ROWS_K=2;
# two rounds alternated, PyTorch's once. One archive.
set -u
cd "$(dirname "$0")/../../.."
OUT=$OUT/c3 bash docs/bench/raw/s68-call3.sh "$1"
W=$OUT/w; mkdir -p $W
cp $OUT/c3/w/smi.txt $W/
if grep -q H200 $W/smi.txt; then
  bash docs/bench/raw/s68-h200.sh "$1"
  exit 0
fi
date -u > $W/date.txt
B=65536x49,131072x36,131072x50,131072x60,256x12x50x50,262144x50
F=131072x50,131072x60,256x12x50x50,262144x50
for r in 1 2; do
  for v in plan shift1 str1 sb1 stg1; do
    case $v in
      plan) E="";; shift1) E=SOFTMAX_SHIFT=1;; str1) E=SOFTMAX_STRIDED=1;; sb1) E=SOFTMAX_STRIDED_BATCH=1;;
      stg1) E=SOFTMAX_STAGED=1;;
    esac
    env $E timeout 50 bin/softmax-bench -graph=false -dtypes float32 -shapes $B -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/b-$v-$r.json > $W/b-$v-$r.log 2>&1; echo "b $v $r rc=$?"
  done
  for v in plan str1 k2; do
    case $v in
      plan) E="";; str1) E=SOFTMAX_STRIDED=1;; k2) E=SOFTMAX_ROWS_K=2;;
    esac
    env $E timeout 40 bin/softmax-bench -graph=false -dtypes float32 -shapes $F -ops softmax,log_softmax -commit "$1" -out $W/f-$v-$r.json > $W/f-$v-$r.log 2>&1; echo "f $v $r rc=$?"
  done
done
timeout 60 python3 bench/torch_bench.py --dtypes float32 --shapes $B --ops softmax_backward,log_softmax_backward --out $W/b-torch.json > $W/b-torch.log 2>&1; echo "torch b rc=$?"
timeout 50 python3 bench/torch_bench.py --dtypes float32 --shapes $F --ops softmax,log_softmax --out $W/f-torch.json > $W/f-torch.log 2>&1; echo "torch f rc=$?"
grep -h "failed checks" $W/[bf]-*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s69-call1.tgz -C $W .
