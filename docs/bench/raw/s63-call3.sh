#!/bin/bash
# Session 63 call 3, at the commit given (call 2's binaries): call 2 found
# the batched strided kernel slower than the plans before it at 8192x77
# (a grid under one wave), faster at 65536 and 131072 rows; this finds
# the row count where it starts to win: float32 backward of 8192-49152
# rows of 64, 68, 77 and 80 columns, SOFTMAX_STRIDED_BATCH=1 against =0,
# two rounds alternated. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/softmax-bench.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
A=""
for r in 8192 16384 24576 32768 49152; do for n in 64 68 77 80; do A="$A,${r}x$n"; done; done
A=${A#,}
for r in 1 2; do
  for v in s1 s0; do
    env SOFTMAX_STRIDED_BATCH=${v#s} timeout 60 bin/softmax-bench -graph=false -shapes $A -dtypes float32 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/rw-$v-$r.json > $W/rw-$v-$r.log 2>&1; echo "rw $v $r rc=$?"
  done
done
grep -h "failed checks" $W/rw-*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s63-call3.tgz -C $W .
