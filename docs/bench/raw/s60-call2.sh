#!/bin/bash
# Session 60 call 2, at the commit given (branch s59-strided-both; the
# binaries of call 1). Runs only on an H200: call 1 got an H100, and the
# strided rule needs the H200's figures (entry 95: the H100's ranking of
# the strided and shifted kernels did not hold on the H200). On another
# card it exits at once.
# The forward and backward ops on call 1's 13 shapes, SOFTMAX_STRIDED=0
# against =1, two rounds alternated; PyTorch's once.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
cat $W/smi.txt
grep -q H200 $W/smi.txt || { echo "not an H200: exit"; exit 3; }
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
B=65536x131,65536x150,65536x175,65536x193,65536x229,65536x250,65536x255,64x12x197x197,32768x300,16x12x577x577,65536x77,131072x33,1048576x10
for r in 1 2; do
  for v in 0 1; do
    SOFTMAX_STRIDED=$v timeout 150 bin/softmax-bench -graph=false -shapes $B -ops softmax,log_softmax,softmax_backward,log_softmax_backward -commit "$1" -out $W/bw-s$v-$r.json > $W/bw-s$v-$r.log 2>&1; echo "bw s$v $r rc=$?"
  done
done
date -u >> $W/date.txt
tar czf $OUT/s60-call2.tgz -C $W .
timeout 150 python3 bench/torch_bench.py --shapes $B --ops softmax,log_softmax,softmax_backward,log_softmax_backward --out $W/torch.json > $W/torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s60-call2.tgz -C $W .
