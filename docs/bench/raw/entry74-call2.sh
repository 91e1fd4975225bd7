#!/bin/bash
# session 47 call 2 (entry 74): the fused kernel's held form (FUSED_HELD:
# one 256-thread block an SM holds its first steps in registers, 10 a
# block for float32 and float16, 6 for bfloat16, and 14 more in shared
# memory). Both binaries embed sm_90 builds of the held sources (softmax
# and softmax_span). First the split tier's tests; then, three rounds
# alternated: base (SOFTMAX_SPLIT_HELD=0: the head form as before), held
# (the rule: 4x8388608), held forced at 4x33554432, and held8 (-fatbin: 8
# steps for float32 and float16); then ncu's PM sampling of the held form.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda-held.test
date -u > $W/date.txt
(cd cuda && timeout 150 ../bin/cuda-held.test -test.short -test.count=1 -test.v -test.run 'TestGPUSplit|TestGPUTierBoundaries|TestGPUUnaligned|TestGPUDispatch' > $W/tests.txt 2>&1; echo tests rc=$?)
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -20; grep -m6 "_test.go" $W/tests.txt | cut -c1-300
tar czf $OUT/ab.tgz -C $W .
B="timeout 40 bin/softmax-bench -ops softmax,log_softmax,masked_softmax -graph=false"
for r in 1 2 3; do
  SOFTMAX_SPLIT_HELD=0 $B -shapes 4x8388608,4x33554432 -out $W/ab-base-$r.json > $W/ab-base-$r.txt 2>&1; echo "base $r rc=$?"
  $B -shapes 4x8388608 -out $W/ab-held-$r.json > $W/ab-held-$r.txt 2>&1; echo "held $r rc=$?"
  SOFTMAX_SPLIT_HELD=1 $B -shapes 4x33554432 -ops softmax,log_softmax -out $W/ab-held-${r}b.json > $W/ab-held-${r}b.txt 2>&1; echo "held33 $r rc=$?"
  $B -fatbin bin/held8.fatbin -shapes 4x8388608 -ops softmax,log_softmax -out $W/ab-held8-$r.json > $W/ab-held8-$r.txt 2>&1; echo "held8 $r rc=$?"
  tar czf $OUT/ab.tgz -C $W .
done
grep -h "check failed" $W/ab-*.txt | head -3
grep -h "4x8388608\|4x33554432" $W/ab-held-1.txt $W/ab-held-1b.txt | head -12 | cut -c1-200
python3 docs/bench/raw/entry68-abcmp.py $W/ab base held held8 2>&1 | cut -c1-220
timeout 40 ncu --clock-control none --kernel-name regex:split_fused --launch-skip 4 --launch-count 1 --section PmSampling --pm-sampling-interval 1000 -o $W/pm-held bin/softmax-bench -reps 8 -copy-mib 64 -shapes 4x8388608 -dtypes float16 -ops softmax -graph=false -out $W/b-pm.json > $W/run-pm.txt 2>&1; echo "pm rc=$?"
timeout 20 ncu --import $W/pm-held.ncu-rep --page raw --csv --print-metric-instances values > $W/raw-pm-held.csv 2>&1; echo "raw rc=$?"
rm -f $W/pm-held.ncu-rep
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
