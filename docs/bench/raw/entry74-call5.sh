#!/bin/bash
# session 47 call 5 (entry 74): the head and masked forms' knobs again, on
# aa4b8ab's kernels (v11 in those forms shortened the barrier's gap): 448
# threads with a fourth stash step (entry 66: level with 512 and 3 before
# v11), and a quarter of L2 left unmarked (SOFTMAX_SPLIT_TAIL=25, within
# the spread in entry 66). One binary, three rounds alternated, 4x8388608.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench
date -u > $W/date.txt
B="timeout 40 bin/softmax-bench -shapes 4x8388608 -ops softmax,log_softmax,masked_softmax -graph=false"
for r in 1 2 3; do
  $B -out $W/ab-base-$r.json > $W/ab-base-$r.txt 2>&1; echo "base $r rc=$?"
  SOFTMAX_SPLIT_THREADS=448 SOFTMAX_SPLIT_STASH=4 $B -out $W/ab-t448s4-$r.json > $W/ab-t448s4-$r.txt 2>&1; echo "t448s4 $r rc=$?"
  SOFTMAX_SPLIT_TAIL=25 $B -out $W/ab-tail25-$r.json > $W/ab-tail25-$r.txt 2>&1; echo "tail25 $r rc=$?"
  tar czf $OUT/ab.tgz -C $W .
done
grep -h "check failed" $W/ab-*.txt | head -3
grep -h "4x8388608" $W/ab-t448s4-1.txt | cut -c1-220
python3 docs/bench/raw/entry68-abcmp.py $W/ab base t448s4 tail25 2>&1 | cut -c1-220
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
