#!/bin/bash
# session 51 call 1 (entry 83): softmax backward's fast path as
# s*(y*dy - y*c), with rows at scales past 2^22 whose |c| is under 2^102
# sent to the exact path (tiers 1, 7, 8) or the old order (long tiers).
# bin/go90.fatbin is an sm_90 build of the change; the binaries embed the
# committed kernels (base). TestGPUSoftmaxBackwardPastRange on both (base
# must fail), memcheck of it on the change, the whole GPU suite in its
# short form on the change, then base against new, three rounds
# alternated, every backward row of the benchmark's shapes.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
F="-fatbin $PWD/bin/go90.fatbin"
(cd cuda && timeout 90 ../bin/cuda.test -test.count=1 -test.run 'TestGPUSoftmaxBackwardPastRange' > $W/sum-base.txt 2>&1; echo "sum base rc=$? (1 expected)")
(cd cuda && timeout 90 ../bin/cuda.test $F -test.count=1 -test.v -test.run 'TestGPUSoftmaxBackwardPastRange' > $W/sum-new.txt 2>&1; echo "sum new rc=$?")
(cd cuda && timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test $F -test.short -test.count=1 -test.run 'TestGPUSoftmaxBackwardPastRange' > $W/memcheck-new.txt 2>&1; echo "memcheck new rc=$?")
(cd cuda && timeout 200 ../bin/cuda.test $F -test.short -test.count=1 -test.v -test.run 'GPU|Span' > $W/suite-new.txt 2>&1; echo "suite new rc=$?")
for f in $W/sum-base.txt $W/sum-new.txt $W/memcheck-new.txt $W/suite-new.txt; do echo "== $f"; grep -E "^(--- |ok|PASS|FAIL)|ERROR SUMMARY" $f | grep -v "^--- PASS" | head -5; grep -c "^--- PASS" $f; grep -m3 "_test.go" $f | cut -c1-220; done
grep -o "tier=[a-z0-9]*" $W/sum-base.txt | sort | uniq -c | head
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
grep -E "[+-][0-9]+\.[0-9]%" $W/ab-summary.txt | awk '{for(i=1;i<=NF;i++) if ($i ~ /^[+-][0-9.]+%$/) {v=$i; gsub("%","",v); print v, $0}}' | sort -g | sed -n '1,6p;$p' | cut -c1-170
tail -n +2 $W/ab-summary.txt | wc -l
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
