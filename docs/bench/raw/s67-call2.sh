#!/bin/bash
# Session 67 call 2, at the commit given (main; bin/softmax-bench built
# there). Call 1 (raw/s66-call5.sh) found float32's forward of whole-pack
# rows of 44-64 columns 1.03-1.22x faster at K = 2 (8 lanes a row) than at
# the K = 4 rowsK prefers (4 lanes), most where a row is not a whole number
# of 32-byte sectors (52, 60), and 0.91-0.96x at 36-40. Where does K = 2
# win? Float32 rows of 36-128 columns (step 4) from 262144 rows, and fewer
# (16384, 65536) and more (1048576) rows at some, plus part-pack rows below
# the staged floor, every op: the default plan against SOFTMAX_ROWS_K=2
# and =4 (the backward prefers 2 up to 32 packs), two rounds alternated,
# then PyTorch's once. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
S=""
for c in $(seq 36 4 128); do S="$S,262144x$c"; done
for c in 36 44 52 60 64 80 96 112 128; do S="$S,65536x$c"; done
S="$S,16384x60,16384x128,1048576x44,1048576x52,1048576x96,1048576x128,65536x33,65536x49,65536x50,131072x50"
S=${S#,}
O=softmax,log_softmax,softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in plan k2 k4; do
    case $v in plan) E="";; k2) E="SOFTMAX_ROWS_K=2";; k4) E="SOFTMAX_ROWS_K=4";; esac
    env $E timeout 150 bin/softmax-bench -graph=false -dtypes float32 -shapes $S -ops $O -commit "$1" -out $W/kk-$v-$r.json > $W/kk-$v-$r.log 2>&1; echo "kk $v $r rc=$?"
  done
done
timeout 150 python3 bench/torch_bench.py --dtypes float32 --shapes $S --ops $O --out $W/kk-torch.json > $W/kk-torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s67-call2.tgz -C $W .
