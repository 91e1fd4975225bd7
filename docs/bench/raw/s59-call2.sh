#!/bin/bash
# Session 59 call 2, at the commit given (main; bin/softmax-bench and
# bin/cuda.test built there with the committed fatbins). On an H200 it is
# the published run (scripts/h200-run.sh, $OUT/run.tgz) and nothing else.
# On any other card, where a published run would not count: tier 1's
# knobs on the rows off the issue's list where ours trailed PyTorch
# (entry 94), every op and type, the rule against SOFTMAX_PIPE=0 and =1,
# SOFTMAX_ROWS_K=1, 2 and 4, SOFTMAX_ROWS_BLOCK=64 and 256, two rounds
# alternated, then PyTorch's once. Outputs archived in one file.
set -u
cd "$(dirname "$0")/../../.."
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash scripts/h200-run.sh "$1"
fi
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
S=32768x300,64x12x197x197,16x12x577x577,16384x1025,1024x50257
for r in 1 2; do
  for v in rule PIPE=0 PIPE=1 ROWS_K=1 ROWS_K=2 ROWS_K=4 ROWS_BLOCK=64 ROWS_BLOCK=256; do
    n=${v//=/}; n=${n,,}
    if [ $v = rule ]; then e=(); else e=("SOFTMAX_$v"); fi
    env "${e[@]}" timeout 100 bin/softmax-bench -graph=false -shapes $S -commit "$1" -out $W/kn-$n-$r.json > $W/kn-$n-$r.log 2>&1; echo "$v $r rc=$?"
  done
  date -u >> $W/date.txt
  tar czf $OUT/s59-call2.tgz -C $W .
done
timeout 120 python3 bench/torch_bench.py --shapes $S --out $W/torch.json > $W/torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s59-call2.tgz -C $W .
