#!/bin/bash
# session 46 call 6 (entry 73): v10 (entry73-v10.patch): after the fused
# kernel's barrier each warp merges the row's Parts on its own (no block
# reduction, no block barrier), and the write pass's first take goes out
# before the Parts are read. First the fused-kernel tests on a test binary
# with v10 embedded (softmax and softmax_span, sm_90); then base against
# v10 (-fatbin), three rounds alternated; then ncu's PM sampling of v10's
# float16 head form. Archived as each part ends (the session's device
# time is nearly spent).
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda-v10.test
date -u > $W/date.txt
(cd cuda && timeout 60 ../bin/cuda-v10.test -test.short -test.count=1 -test.v -test.run 'TestGPUSplitFused|TestGPUUnaligned|TestGPUTierBoundaries' > $W/tests.txt 2>&1; echo tests rc=$?)
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head; grep -m4 "_test.go" $W/tests.txt | cut -c1-250
tar czf $OUT/ab.tgz -C $W .
B="timeout 40 bin/softmax-bench -shapes 4x8388608,4x33554432 -ops softmax,log_softmax,masked_softmax -graph=false"
for r in 1 2 3; do
  $B -out $W/ab-base-$r.json > $W/ab-base-$r.txt 2>&1; echo "base $r rc=$?"
  $B -fatbin bin/v10.fatbin -out $W/ab-v10-$r.json > $W/ab-v10-$r.txt 2>&1; echo "v10 $r rc=$?"
  tar czf $OUT/ab.tgz -C $W .
done
grep -h "check failed" $W/ab-*.txt | head -3
python3 docs/bench/raw/entry68-abcmp.py $W/ab base v10 2>&1 | cut -c1-200
timeout 30 ncu --clock-control none --kernel-name regex:split_fused --launch-skip 4 --launch-count 1 --section PmSampling --pm-sampling-interval 1000 -o $W/pm-v10 bin/softmax-bench -fatbin bin/v10.fatbin -reps 8 -copy-mib 64 -shapes 4x8388608 -dtypes float16 -ops softmax -graph=false -out $W/b-pm.json > $W/run-pm.txt 2>&1; echo "pm rc=$?"
timeout 20 ncu --import $W/pm-v10.ncu-rep --page raw --csv --print-metric-instances values > $W/raw-pm-v10.csv 2>&1; echo "raw rc=$?"
rm -f $W/pm-v10.ncu-rep
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
