#!/bin/bash
# session 47 call 1 (entry 74): the fused kernel's gap at the barrier.
# v11 (entry73-v11.patch: one warp a block merges the Parts; the first
# write take deferred to go out with the Parts' reads), v12 (v11's merge;
# each warp's first write step fixed, the queue counters starting past
# them, and that step loaded before the barrier) and v12b (v12's first
# step with the base merge), each an sm_90 build of entry74-v12.patch with
# -DSM_EXP_ONE / -DSM_EXP_FIRST. First the fused tests on a test binary
# with v12 embedded; then base against the three (-fatbin), three rounds
# alternated; then ncu's PM sampling of v12's float16 head form.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda-v12.test
date -u > $W/date.txt
(cd cuda && timeout 90 ../bin/cuda-v12.test -test.short -test.count=1 -test.v -test.run 'TestGPUSplitFused|TestGPUUnaligned|TestGPUTierBoundaries' > $W/tests.txt 2>&1; echo tests rc=$?)
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head; grep -m4 "_test.go" $W/tests.txt | cut -c1-250
tar czf $OUT/ab.tgz -C $W .
B="timeout 40 bin/softmax-bench -shapes 4x8388608,4x33554432 -ops softmax,log_softmax,masked_softmax -graph=false"
for r in 1 2 3; do
  $B -out $W/ab-base-$r.json > $W/ab-base-$r.txt 2>&1; echo "base $r rc=$?"
  for v in v11 v12 v12b; do
    $B -fatbin bin/$v.fatbin -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1; echo "$v $r rc=$?"
  done
  tar czf $OUT/ab.tgz -C $W .
done
grep -h "check failed" $W/ab-*.txt | head -3
python3 docs/bench/raw/entry68-abcmp.py $W/ab base v11 v12 v12b 2>&1 | cut -c1-220
timeout 30 ncu --clock-control none --kernel-name regex:split_fused --launch-skip 4 --launch-count 1 --section PmSampling --pm-sampling-interval 1000 -o $W/pm-v12 bin/softmax-bench -fatbin bin/v12.fatbin -reps 8 -copy-mib 64 -shapes 4x8388608 -dtypes float16 -ops softmax -graph=false -out $W/b-pm.json > $W/run-pm.txt 2>&1; echo "pm rc=$?"
timeout 20 ncu --import $W/pm-v12.ncu-rep --page raw --csv --print-metric-instances values > $W/raw-pm-v12.csv 2>&1; echo "raw rc=$?"
rm -f $W/pm-v12.ncu-rep
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
