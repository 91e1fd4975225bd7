#!/bin/bash
# session 51 call 2 (entry 83): the change's second form. Tiers 1, 7 and 8
# take (y*(dy - c))*s for rows SoftGrad::fits admits (|c| under 2^102,
# scale at most 2^22; other rows the exact path), the long tiers s*(y*dy -
# y*c) for every row. bin/go90.fatbin is an sm_90 build of it; the
# binaries are call 1's (they embed the committed kernels, base).
# TestGPUSoftmaxBackwardPastRange on the change (call 1 showed base
# failing it), memcheck of its short form, then base against new, three
# rounds alternated, every backward row of the benchmark's shapes.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
F="-fatbin $PWD/bin/go90.fatbin"
(cd cuda && timeout 90 ../bin/cuda.test $F -test.count=1 -test.v -test.run 'TestGPUSoftmaxBackwardPastRange|TestGPULogBackwardSumPastRange' > $W/sum-new.txt 2>&1; echo "sum new rc=$?")
(cd cuda && timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test $F -test.short -test.count=1 -test.run 'TestGPUSoftmaxBackwardPastRange' > $W/memcheck-new.txt 2>&1; echo "memcheck new rc=$?")
for f in $W/sum-new.txt $W/memcheck-new.txt; do echo "== $f"; grep -E "^(--- |ok|PASS|FAIL)|ERROR SUMMARY" $f | head -5; grep -m3 "_test.go" $f | cut -c1-220; done
tar czf $OUT/ab.tgz -C $W .
B="timeout 120 bin/softmax-bench -graph=false -ops softmax_backward,log_softmax_backward"
for r in 1 2 3; do
  for v in base new; do
    FF=""; [ $v = new ] && FF="-fatbin bin/go90.fatbin"
    $B $FF -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1; echo "$v $r rc=$?"
  done
  tar czf $OUT/ab.tgz -C $W .
done
grep -h "check failed" $W/ab-*.txt | head -3
python3 docs/bench/raw/entry68-abcmp.py $W/ab base new > $W/ab-summary.txt 2>&1
tail -n +2 $W/ab-summary.txt | wc -l
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
