#!/bin/bash
# Session 62 call 3, at the commit given (92cd825's binaries): backward of
# whole-pack rows where call 2 left float32 log-softmax backward below
# PyTorch's (68, 100, 136, 232, 600, 640 columns) and two half rows near
# it (65536x136, 65536x256), float32 and float16, under tier 1's knobs:
# the default plan (rule), K = 1 and 4 (SOFTMAX_ROWS_K), the pipelined
# kernels everywhere (SOFTMAX_PIPE=1), blocks of 64 and 256
# threads for groups up to a warp (SOFTMAX_ROWS_BLOCK); two rounds
# alternated (the strided kernels everywhere: call 2). One
# archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/softmax-bench.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
A=65536x68,65536x100,65536x136,65536x232,65536x256,16384x600,16384x640
for r in 1 2; do
  for v in rule k1 k4 p1 b64 b256; do
    case $v in
      rule) E="";; k1) E="SOFTMAX_ROWS_K=1";; k4) E="SOFTMAX_ROWS_K=4";; p1) E="SOFTMAX_PIPE=1";; p0) E="SOFTMAX_PIPE=0";;
      b64) E="SOFTMAX_ROWS_BLOCK=64";; b256) E="SOFTMAX_ROWS_BLOCK=256";; s1) E="SOFTMAX_STRIDED=1";;
    esac
    env $E timeout 40 bin/softmax-bench -graph=false -shapes $A -dtypes float32,float16 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/kn-$v-$r.json > $W/kn-$v-$r.log 2>&1; echo "kn $v $r rc=$?"
  done
  tar czf $OUT/s62-call3.tgz -C $W .
done
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s62-call3.tgz -C $W .
