#!/bin/bash
# session 48 call 2 (entry 75): the pipe form again, its Parts merged by
# the whole block (meet_gather; call 1's one warp read 264 Parts, nine
# round trips to L2 a lane, at every row). pipe: SOFTMAX_SPLIT_PIPE=1 on
# the embedded sm_90 build; seq: the same with -DSM_PIPE_AHEAD=0 (each row
# written right after its own barrier: L2's reuse without the pipeline),
# by -fatbin; base: SOFTMAX_SPLIT_PIPE=0. Tests first, then three rounds.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 200 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUSplitPipe' > $W/tests.txt 2>&1; echo pipe tests rc=$?)
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head; grep -m6 "_test.go" $W/tests.txt | cut -c1-250
tar czf $OUT/ab.tgz -C $W .
B="timeout 60 bin/softmax-bench -graph=false -shapes 4x8388608,4x33554432 -ops softmax,log_softmax,masked_softmax"
for r in 1 2 3; do
  SOFTMAX_SPLIT_PIPE=0 $B -out $W/ab-base-$r.json > $W/ab-base-$r.txt 2>&1; echo "base $r rc=$?"
  SOFTMAX_SPLIT_PIPE=1 $B -out $W/ab-pipe-$r.json > $W/ab-pipe-$r.txt 2>&1; echo "pipe $r rc=$?"
  SOFTMAX_SPLIT_PIPE=1 $B -fatbin bin/seq.fatbin -out $W/ab-seq-$r.json > $W/ab-seq-$r.txt 2>&1; echo "seq $r rc=$?"
  tar czf $OUT/ab.tgz -C $W .
done
grep -h "check failed" $W/ab-*.txt | head -3
python3 docs/bench/raw/entry68-abcmp.py $W/ab base pipe seq 2>&1 | cut -c1-220
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
