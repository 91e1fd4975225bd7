#!/bin/bash
# session 47 call 3 (entry 74): v11 against a control. c11 is v11
# (entry73-v11.patch) with GridMeet::of (the row's barrier word taken in
# one place), an sm_90 build; h90 is 1fbb394's sources built the same way
# (call 1 compared v11 with the committed fatbin only, and every variant
# there was 0.4-2% slower at 4x33554432). First the grid and fused tests on
# a test binary with c11 embedded; then base (embedded), h90 and c11
# (-fatbin), three rounds alternated, on the fused kernel's rows and on
# tier 7's (whose kernels GridMeet::of also touches).
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda-c11.test
date -u > $W/date.txt
(cd cuda && timeout 120 ../bin/cuda-c11.test -test.short -test.count=1 -test.v -test.run 'TestGPUSplitFused|TestGPUGrid|TestGPUTierBoundaries|TestGPUUnaligned' > $W/tests.txt 2>&1; echo tests rc=$?)
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head; grep -m4 "_test.go" $W/tests.txt | cut -c1-250
tar czf $OUT/ab.tgz -C $W .
B="timeout 40 bin/softmax-bench -graph=false"
for r in 1 2 3; do
  for v in base h90 c11; do
    F=""; [ $v != base ] && F="-fatbin bin/$v.fatbin"
    $B $F -shapes 4x8388608,4x33554432 -ops softmax,log_softmax,masked_softmax -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1; echo "$v $r rc=$?"
    $B $F -shapes 4x262144,4x1048576 -ops softmax,softmax_backward -out $W/ab-$v-${r}g.json > $W/ab-$v-${r}g.txt 2>&1; echo "$v ${r}g rc=$?"
  done
  tar czf $OUT/ab.tgz -C $W .
done
grep -h "check failed" $W/ab-*.txt | head -3
python3 docs/bench/raw/entry68-abcmp.py $W/ab h90 c11 base 2>&1 | cut -c1-220
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
