#!/bin/bash
# session 44 call 3 (entry 68): call 2's A/B again with a base that runs
# (9a5823c's fatbin lacks the masked form's kernels, so call 2's base
# failed to load): the same binary, the masked rows on the plain form
# (SOFTMAX_SPLIT_HEAD=0; the plain kernel's SASS is 9a5823c's) against
# the masked form, three rounds alternated; then the published run at the
# commit given (the benchmark, then PyTorch's). Each part archived as it ends.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
B="timeout 40 bin/softmax-bench -shapes 4x8388608 -ops masked_softmax -graph=false"
for r in 1 2 3; do
  SOFTMAX_SPLIT_HEAD=0 $B -out $W/ab-plain-$r.json > $W/ab-plain-$r.txt 2>&1; echo "plain $r rc=$?"
  $B -out $W/ab-masked-$r.json > $W/ab-masked-$r.txt 2>&1; echo "masked $r rc=$?"
done
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
python3 docs/bench/raw/entry68-abcmp.py $W/ab plain masked 2>&1 | cut -c1-200
P=$(mktemp -d)
timeout 200 bin/softmax-bench -commit "$1" -out $P/ours.json > $P/ours.log 2>&1; echo ours rc=$?
cp $W/smi.txt $P/smi.txt
tar czf $OUT/ours.tgz -C $P .
timeout 200 python3 bench/torch_bench.py --out $P/torch.json > $P/torch.log 2>&1; echo torch rc=$?
date -u >> $W/date.txt; cp $W/date.txt $P/date.txt
tar czf $OUT/ours.tgz -C $P .
tail -n 2 $P/ours.log $P/torch.log
cat $W/date.txt
