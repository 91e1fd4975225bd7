#!/bin/bash
# session 35 call 4: the one-row kernels with their group fixed at 8 to 64 (once4w{W}) against the one of any group (SOFTMAX_ONCE_GROUPS=0), one binary, two rounds; then the full run
set -u
cd "$(dirname "$0")/.."
mkdir -p $OUT
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz; chmod +x bin/softmax-bench
S=65536x128,32768x512,32768x1024,8192x1024,2048x1024,16384x2048,2048x2048
for r in 1 2; do for v in any fixed; do
  if [ $v = any ]; then export SOFTMAX_ONCE_GROUPS=0; else unset SOFTMAX_ONCE_GROUPS; fi
  timeout 100 bin/softmax-bench -shapes $S -dtypes float32 -ops softmax,log_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
unset SOFTMAX_ONCE_GROUPS
tar czf $OUT/ab.tgz -C $W .
OUT=/tmp/runout bash scripts/h200-run.sh "$1"; rc=$?
cp /tmp/runout/run.tgz $OUT/run.tgz
exit $rc
