#!/bin/bash
# session 36 call 3: masked long rows on the keep bits (new fatbin): threads 512, no pieces, fused everywhere; two rounds
set -u
cd "$(dirname "$0")/.."
W=$(mktemp -d)
[ -f bin/softmax-bench ] || { xz -d -f bin/softmax-bench.xz; chmod +x bin/softmax-bench; }
date -u > $W/date.txt
for r in 1 2; do for v in def t512 nopieces fused base; do
  unset SOFTMAX_SPLIT_THREADS SOFTMAX_SPLIT_PIECES SOFTMAX_SPLIT_FUSED
  fb=bin/new.fatbin
  case $v in t512) export SOFTMAX_SPLIT_THREADS=512;; nopieces) export SOFTMAX_SPLIT_PIECES=0;; fused) export SOFTMAX_SPLIT_FUSED=1;; base) fb=bin/base.fatbin;; esac
  timeout 90 bin/softmax-bench -fatbin $fb -shapes 4x8388608,4x33554432 -ops masked_softmax -graph=false -out $W/m-$v-$r.json > $W/m-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
date -u >> $W/date.txt
tar czf $OUT/call3.tgz -C $W .
for f in $W/m-*.txt; do echo "== $(basename $f)"; grep -E '^masked_softmax' $f | awk '{print $2,$3,$4,$6}' | tr '\n' ';'; echo; done
