#!/bin/bash
# session 46 call 2 (entry 72): the fused kernel's statistics pass from
# queues (v7, entry72-v7.patch): warp steps handed out front to back by
# 32 counters a row kept in the grid tier's sync memory (a row's barrier
# on its own 128-byte line, then the counters), put back to zero after
# the barrier by subtracting what the launch took. The bench binary
# allocates the larger sync memory (the embedded kernels use its first
# words). First the GPU tests that take the fused and grid kernels, on a
# test binary with v7 embedded; then base against v7 (-fatbin), three
# rounds alternated, at 4x8388608 and 4x33554432 (the fused kernel) and
# 4x262144, 4x1048576 (tier 7: only the barrier word's line moved).
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda-v7.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 240 ../bin/cuda-v7.test -test.short -test.count=1 -test.v -test.run 'TestGPUSplitFused|TestGPUGrid|TestGPUTierBoundaries|TestGPUUnaligned|TestGPUSplit$|TestGPURandom' > $W/tests.txt 2>&1; echo tests rc=$?)
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -20
date -u >> $W/date.txt
B="timeout 90 bin/softmax-bench -shapes 4x8388608,4x33554432,4x262144,4x1048576 -ops softmax,log_softmax,masked_softmax -graph=false"
for r in 1 2 3; do
  $B -out $W/ab-base-$r.json > $W/ab-base-$r.txt 2>&1; echo "base $r rc=$?"
  $B -fatbin bin/v7.fatbin -out $W/ab-v7-$r.json > $W/ab-v7-$r.txt 2>&1; echo "v7 $r rc=$?"
done
grep -h "check failed" $W/ab-*.txt | head
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
python3 docs/bench/raw/entry68-abcmp.py $W/ab base v7 2>&1 | cut -c1-220
cat $W/date.txt
