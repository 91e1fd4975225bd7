#!/bin/bash
# session 35 call 5: tier 8's cluster size at 1024x32000 float32 (SOFTMAX_CGRID_BLOCKS 8 and 16 against the default, 4), one binary (b4f4b0e), two rounds
set -u
cd "$(dirname "$0")/.."
mkdir -p $OUT
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz; chmod +x bin/softmax-bench
for r in 1 2; do for v in def 8 16; do
  if [ $v = def ]; then unset SOFTMAX_CGRID_BLOCKS; else export SOFTMAX_CGRID_BLOCKS=$v; fi
  timeout 60 bin/softmax-bench -shapes 1024x32000 -dtypes float32 -graph=false -out $W/cl-$v-$r.json > $W/cl-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
tar czf $OUT/cl.tgz -C $W .
