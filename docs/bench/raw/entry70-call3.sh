#!/bin/bash
# (As run, the comparison was entry69-abcmp.py, a copy of entry68-abcmp.py,
# which it now names.)
# session 45 call 3 (entry 70; the patches as entry70-v1.patch and -v3.patch): the head form's write pass loading its
# rereads evict-first (v1), and that with the queues handing out the
# rows' steps front to back (v3), sm_90 builds through -fatbin, against
# the embedded kernels (2254869's), at 4x8388608, softmax and log-softmax,
# three rounds alternated.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
B="timeout 60 bin/softmax-bench -shapes 4x8388608 -ops softmax,log_softmax -graph=false"
for r in 1 2 3; do
  $B -out $W/ab-base-$r.json > $W/ab-base-$r.txt 2>&1; echo "base $r rc=$?"
  $B -fatbin bin/v1.fatbin -out $W/ab-v1-$r.json > $W/ab-v1-$r.txt 2>&1; echo "v1 $r rc=$?"
  $B -fatbin bin/v3.fatbin -out $W/ab-v3-$r.json > $W/ab-v3-$r.txt 2>&1; echo "v3 $r rc=$?"
done
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
python3 docs/bench/raw/entry68-abcmp.py $W/ab base v1 v3 2>&1 | cut -c1-220
cat $W/date.txt
