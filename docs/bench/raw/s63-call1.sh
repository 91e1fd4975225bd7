#!/bin/bash
# Session 63 call 1, at the commit given (branch s62-strided-batch's
# binaries, which also hold main's plans): (a) float32 backward of short
# rows, 33 to 128 columns, under the default plan (rule) and the batched
# strided kernels of 2 and 4 rows a warp (SOFTMAX_STRIDED_BATCH=2, =4),
# where s62 call 4 (H100) found R = 2 1.02-1.08x faster at 64-77 columns;
# (b) s62-call3.sh's tier 1 knobs on whole-pack backward rows; two rounds
# alternated each, and PyTorch's once on both shape sets. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
A=65536x33,65536x48,65536x64,65536x68,65536x72,65536x77,65536x80,65536x88,65536x96,65536x100,65536x112,65536x128,131072x64,131072x80
O=softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in rule b2 b4; do
    E=""; [ $v = b2 ] && E="SOFTMAX_STRIDED_BATCH=2"; [ $v = b4 ] && E="SOFTMAX_STRIDED_BATCH=4"
    env $E timeout 40 bin/softmax-bench -graph=false -shapes $A -dtypes float32 -ops $O -commit "$1" -out $W/sb-$v-$r.json > $W/sb-$v-$r.log 2>&1; echo "sb $v $r rc=$?"
  done
  tar czf $OUT/s63-call1.tgz -C $W .
done
timeout 60 python3 bench/torch_bench.py --shapes $A --dtypes float32 --ops $O --out $W/sb-torch.json > $W/sb-torch.log 2>&1; echo "sb torch rc=$?"
tar czf $OUT/s63-call1.tgz -C $W .
B=65536x68,65536x100,65536x136,65536x232,65536x256,16384x600,16384x640
for r in 1 2; do
  for v in rule k1 k4 p1 b64 b256; do
    case $v in
      rule) E="";; k1) E="SOFTMAX_ROWS_K=1";; k4) E="SOFTMAX_ROWS_K=4";; p1) E="SOFTMAX_PIPE=1";;
      b64) E="SOFTMAX_ROWS_BLOCK=64";; b256) E="SOFTMAX_ROWS_BLOCK=256";;
    esac
    env $E timeout 40 bin/softmax-bench -graph=false -shapes $B -dtypes float32,float16 -ops $O -commit "$1" -out $W/kn-$v-$r.json > $W/kn-$v-$r.log 2>&1; echo "kn $v $r rc=$?"
  done
  tar czf $OUT/s63-call1.tgz -C $W .
done
timeout 60 python3 bench/torch_bench.py --shapes $B --dtypes float32,float16 --ops $O --out $W/kn-torch.json > $W/kn-torch.log 2>&1; echo "kn torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s63-call1.tgz -C $W .
