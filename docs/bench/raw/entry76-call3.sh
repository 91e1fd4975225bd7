#!/bin/bash
# session 48 call 3 (entry 76): the long tier's bfloat16 outputs on fwd_row's
# biased exponential (long_out: one MUFU.EX2 where sm_exp2 takes four
# instructions). First the split, tier and extreme-value tests on a test
# binary with an sm_90 build of the change embedded; then base (b10eec0's
# embedded kernels) against new (that build by -fatbin), three rounds
# alternated, bfloat16 rows of the split and block tiers, a float16 control.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda-new.test
date -u > $W/date.txt
(cd cuda && timeout 150 ../bin/cuda-new.test -test.short -test.count=1 -test.v -test.run 'TestGPUSplitFused|TestGPUTierBoundaries|TestGPUExtremeValues|TestGPURandom|TestGPUUnaligned' > $W/tests.txt 2>&1; echo tests rc=$?)
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head; grep -m4 "_test.go" $W/tests.txt | cut -c1-250
tar czf $OUT/ab.tgz -C $W .
B="timeout 40 bin/softmax-bench -graph=false"
for r in 1 2 3; do
  for v in base new; do
    F=""; [ $v = new ] && F="-fatbin bin/new.fatbin"
    $B $F -dtypes bfloat16 -shapes 4x8388608,4x33554432,4x262144,4x65536,1x1048576,2048x8192 -ops softmax,masked_softmax,causal_softmax -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1; echo "$v $r rc=$?"
    $B $F -dtypes float16 -shapes 4x8388608 -ops softmax -out $W/ab-$v-${r}c.json > $W/ab-$v-${r}c.txt 2>&1; echo "$v ${r}c rc=$?"
  done
  tar czf $OUT/ab.tgz -C $W .
done
grep -h "check failed" $W/ab-*.txt | head -3
python3 docs/bench/raw/entry68-abcmp.py $W/ab base new 2>&1 | cut -c1-200
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
