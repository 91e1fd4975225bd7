#!/bin/bash
# session 46 call 3 (entry 72): v8 (entry72-v8.patch: only the sync
# memory's layout, each row's barrier word on its own 128-byte line) and
# v9 (entry72-v9.patch: v8 plus the fused kernel's statistics pass taking
# block steps, front to back, from one counter a row, put back to zero
# after the barrier). First the fused and grid GPU tests on a test binary
# with v9's kernels embedded (softmax and softmax_span, sm_90); then base
# against v8 and v9 (-fatbin; the bench binary allocates the larger sync
# memory), three rounds alternated.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda-v9.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 200 ../bin/cuda-v9.test -test.short -test.count=1 -test.v -test.run 'TestGPUSplitFused|TestGPUGrid|TestGPUTierBoundaries|TestGPUUnaligned|TestGPUSplit$|TestGPURandom|TestGPUSpanScales|TestGPUExtremeValues' > $W/tests.txt 2>&1; echo tests rc=$?)
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -20
grep -v "^=== RUN\|--- PASS" $W/tests.txt | head -8 | cut -c1-300
date -u >> $W/date.txt
B="timeout 90 bin/softmax-bench -shapes 4x8388608,4x33554432,4x1048576 -ops softmax,log_softmax,masked_softmax -graph=false"
for r in 1 2 3; do
  $B -out $W/ab-base-$r.json > $W/ab-base-$r.txt 2>&1; echo "base $r rc=$?"
  $B -fatbin bin/v8.fatbin -out $W/ab-v8-$r.json > $W/ab-v8-$r.txt 2>&1; echo "v8 $r rc=$?"
  $B -fatbin bin/v9.fatbin -out $W/ab-v9-$r.json > $W/ab-v9-$r.txt 2>&1; echo "v9 $r rc=$?"
done
grep -h "check failed" $W/ab-*.txt | head
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
python3 docs/bench/raw/entry68-abcmp.py $W/ab base v8 v9 2>&1 | cut -c1-220
cat $W/date.txt
