#!/bin/bash
# Session 69 call 2, at the commit given (main, the binaries of call 1).
# Call 1's lead: float32 backward rows of a part pack at 49-50 columns ran
# 1.12-1.16x faster on tier 1's shifted kernels (SOFTMAX_SHIFT=1) than on
# the plan's column-at-a-time kernel (65536-307200 rows), where gpu.ShiftOn
# takes them for backward only from 128 columns (the H200's entry 87:
# 0.48-0.98x at 10-77 columns, at 0a02e3e). Here rows of a part pack of
# 33-63 columns, 16384 to 1048576 rows, backward (both ops, one kernel):
#  F: float32, the plan against SOFTMAX_SHIFT=1 and SOFTMAX_SHIFT=1
#     SOFTMAX_STAGED=0 (shifted against the staged kernels from 262144
#     rows, gpu.StagedWideF32Rows);
#  H: float16, the same three, below and at the half types' staged floor
#     (65536 rows);
# two rounds alternated, PyTorch's once. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
F=16384x50,32768x50,65536x33,65536x41,65536x45,65536x57,131072x33,131072x41,131072x63,262144x33,262144x50,262144x57,32x192x49x49,1048576x50
H=16384x50,32768x41,32768x50,65536x50,131072x50
O=softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in plan sh1 sh1s0; do
    case $v in
      plan) E="";; sh1) E="SOFTMAX_SHIFT=1";; sh1s0) E="SOFTMAX_SHIFT=1 SOFTMAX_STAGED=0";;
    esac
    env $E timeout 60 bin/softmax-bench -graph=false -dtypes float32 -shapes $F -ops $O -commit "$1" -out $W/f-$v-$r.json > $W/f-$v-$r.log 2>&1; echo "f $v $r rc=$?"
    env $E timeout 40 bin/softmax-bench -graph=false -dtypes float16 -shapes $H -ops $O -commit "$1" -out $W/h-$v-$r.json > $W/h-$v-$r.log 2>&1; echo "h $v $r rc=$?"
  done
done
timeout 60 python3 bench/torch_bench.py --dtypes float32 --shapes $F --ops $O --out $W/f-torch.json > $W/f-torch.log 2>&1; echo "torch f rc=$?"
timeout 40 python3 bench/torch_bench.py --dtypes float16 --shapes $H --ops $O --out $W/h-torch.json > $W/h-torch.log 2>&1; echo "torch h rc=$?"
grep -h "failed checks" $W/[fh]-*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s69-call2.tgz -C $W .
