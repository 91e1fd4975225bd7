#!/bin/bash
# Session 65 call 1, at the commit given (main; bin/softmax-bench and
# bin/cuda.test built there). On an H200 it is the published run
# (scripts/h200-run.sh, $OUT/run.tgz) and nothing else. On any other card:
# rows of 33-80 columns as models make them (Swin's 7x7 windows, 49;
# ViT-B/32's 50 tokens; CLIP's 77; 33 and 40-64 as plain rows), every op
# and type, ours twice and PyTorch's once, before any kernel for them.
set -u
cd "$(dirname "$0")/../../.."
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash scripts/h200-run.sh "$1"
fi
W=$OUT/w; mkdir -p $W
xz -d -f bin/softmax-bench.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
S=131072x33,1048576x33,262144x40,262144x48,32x192x49x49,256x12x50x50,128x8x77x77,262144x60,262144x64
O=softmax,log_softmax,softmax_backward,log_softmax_backward
for r in 1 2; do
  timeout 100 bin/softmax-bench -graph=false -shapes $S -ops $O -commit "$1" -out $W/sv-$r.json > $W/sv-$r.log 2>&1; echo "sv $r rc=$?"
done
timeout 120 python3 bench/torch_bench.py --shapes $S --ops $O --out $W/torch.json > $W/torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s65-call1.tgz -C $W .
