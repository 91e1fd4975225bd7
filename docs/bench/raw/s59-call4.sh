#!/bin/bash
# Session 59 call 4, at the commit given (call 2's binaries): on an H200
# only (any other card exits at once), the strided backward's rule
# against SOFTMAX_STRIDED=0 on float32 backward rows of 131 to 255
# columns, two rounds alternated. Call 3 found float32 log-softmax
# backward of 64x12x197x197 at 116.5 us on the H200 under the rule, where
# the shifted kernels ran 104.0 in session 55.
set -u
cd "$(dirname "$0")/../../.."
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200"; exit 0; }
W=$OUT/w; mkdir -p $W
xz -d -f bin/softmax-bench.xz; chmod +x bin/softmax-bench
date -u > $W/date.txt
B=65536x131,65536x150,65536x175,65536x193,65536x229,65536x250,65536x255,64x12x197x197
for r in 1 2; do
  for v in 0 rule; do
    SOFTMAX_STRIDED=${v/rule/} timeout 60 bin/softmax-bench -graph=false -shapes $B -dtypes float32 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/bw-$v-$r.json > $W/bw-$v-$r.log 2>&1; echo "bw $v $r rc=$?"
  done
done
date -u >> $W/date.txt
tar czf $OUT/s59-call4.tgz -C $W .
