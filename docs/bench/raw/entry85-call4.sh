#!/bin/bash
# session 51 call 4 (entry 85): the long tiers' SoftGrad.any keeps s*y
# first past a scale of 2^22 and holds c at float32's largest where only
# rounding took it past (a review's findings). bin/go90.fatbin is an
# sm_90 build of it; the binaries embed 93dd204's kernels (base).
# TestGPUSoftmaxBackwardPastRange (with its "large scale" rows) in short
# form on base (its block and split tiers should fail those rows), in full
# form on the change with TestGPULogBackwardSumPastRange, TestGPUSplit
# (short) on the change, then base against new on the split tier's
# softmax backward rows, three rounds alternated.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
F="-fatbin $PWD/bin/go90.fatbin"
(cd cuda && timeout 60 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUSoftmaxBackwardPastRange' > $W/range-base.txt 2>&1; echo "range base rc=$? (1 expected)")
(cd cuda && timeout 90 ../bin/cuda.test $F -test.count=1 -test.v -test.run 'TestGPUSoftmaxBackwardPastRange|TestGPULogBackwardSumPastRange' > $W/range-new.txt 2>&1; echo "range new rc=$?")
(cd cuda && timeout 60 ../bin/cuda.test $F -test.short -test.count=1 -test.v -test.run 'TestGPUSplit$' > $W/split-new.txt 2>&1; echo "split new rc=$?")
for f in $W/range-base.txt $W/range-new.txt $W/split-new.txt; do echo "== $f"; grep -E "^(--- |ok|PASS|FAIL)" $f | head -5; grep -c "_test.go" $f; grep -m2 "_test.go" $f | cut -c1-200; done
grep -o "/[a-z ]*/dy[0-9e+.]*/scale[^ ]* [a-z0-9]* tier=[a-z0-9]*" $W/range-base.txt | sort | uniq -c | head -20
tar czf $OUT/ab.tgz -C $W .
B="timeout 60 bin/softmax-bench -graph=false -ops softmax_backward -shapes 4x1048576,4x8388608,4x33554432"
for r in 1 2 3; do
  for v in base new; do
    FF=""; [ $v = new ] && FF="-fatbin bin/go90.fatbin"
    $B $FF -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1; echo "$v $r rc=$?"
  done
done
python3 docs/bench/raw/entry68-abcmp.py $W/ab base new > $W/ab-summary.txt 2>&1
cat $W/ab-summary.txt | cut -c1-120
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
