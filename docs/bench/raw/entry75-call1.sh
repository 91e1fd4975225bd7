#!/bin/bash
# session 48 call 1 (entry 75): the fused kernel's pipe form
# (fwd_split_pipe: every block takes every row in turn, a row's write pass
# after the next row's statistics pass) against the forms dispatch takes,
# in one binary with sm_90 builds of the working tree embedded:
# SOFTMAX_SPLIT_PIPE=0 (base), 1 (pipe, 512 threads as dispatch gives
# these rows) and 1 at 256 threads (pipe256). First the pipe's tests and the
# fused tests; then three rounds alternated at 4x8388608 and 4x33554432.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 200 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUSplitPipe' > $W/tests.txt 2>&1; echo pipe tests rc=$?)
(cd cuda && timeout 100 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUSplitFused' >> $W/tests.txt 2>&1; echo fused tests rc=$?)
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head; grep -m6 "_test.go" $W/tests.txt | cut -c1-250
tar czf $OUT/ab.tgz -C $W .
B="timeout 60 bin/softmax-bench -graph=false -shapes 4x8388608,4x33554432 -ops softmax,log_softmax,masked_softmax"
for r in 1 2 3; do
  SOFTMAX_SPLIT_PIPE=0 $B -out $W/ab-base-$r.json > $W/ab-base-$r.txt 2>&1; echo "base $r rc=$?"
  SOFTMAX_SPLIT_PIPE=1 $B -out $W/ab-pipe-$r.json > $W/ab-pipe-$r.txt 2>&1; echo "pipe $r rc=$?"
  SOFTMAX_SPLIT_PIPE=1 SOFTMAX_SPLIT_THREADS=256 $B -out $W/ab-pipe256-$r.json > $W/ab-pipe256-$r.txt 2>&1; echo "pipe256 $r rc=$?"
  tar czf $OUT/ab.tgz -C $W .
done
grep -h "check failed" $W/ab-*.txt | head -3
python3 docs/bench/raw/entry68-abcmp.py $W/ab base pipe pipe256 2>&1 | cut -c1-220
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
