#!/bin/bash
# session 48 call 4: the commit given (the half types' head form at 448
# threads and 4 stash steps, and the long tier's bfloat16 outputs on the
# biased exponential; the binaries built at it): the whole
# GPU suite in its short form; if it passes, the rule against the old
# choice (SOFTMAX_SPLIT_THREADS=512 SOFTMAX_SPLIT_STASH=3) at 4x8388608,
# three rounds alternated, then the published run (the benchmark, then
# PyTorch's); then memcheck over the grid and fused tests with the time
# left. Each part archived as it ends.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 220 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run GPU > $W/suite.txt 2>&1); rc=$?; echo suite rc=$rc
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W .
grep -E "^(--- FAIL|ok|PASS|FAIL)" $W/suite.txt | head; echo "pass $(grep -c -- '--- PASS' $W/suite.txt) skip $(grep -c -- '--- SKIP' $W/suite.txt)"
grep -m5 "_test.go" $W/suite.txt | cut -c1-300
if [ $rc = 0 ]; then
  B="timeout 40 bin/softmax-bench -graph=false -shapes 4x8388608 -ops softmax,log_softmax"
  for r in 1 2 3; do
    $B -out $W/ab-rule-$r.json > $W/ab-rule-$r.txt 2>&1; echo "rule $r rc=$?"
    SOFTMAX_SPLIT_THREADS=512 SOFTMAX_SPLIT_STASH=3 $B -out $W/ab-old-$r.json > $W/ab-old-$r.txt 2>&1; echo "old $r rc=$?"
  done
  python3 docs/bench/raw/entry68-abcmp.py $W/ab old rule 2>&1 | cut -c1-200
  tar czf $OUT/tests.tgz -C $W .
  P=$(mktemp -d)
  timeout 200 bin/softmax-bench -commit "$1" -out $P/ours.json > $P/ours.log 2>&1; echo ours rc=$?
  cp $W/smi.txt $P/smi.txt
  tar czf $OUT/ours.tgz -C $P .
  timeout 200 python3 bench/torch_bench.py --out $P/torch.json > $P/torch.log 2>&1; echo torch rc=$?
  date -u >> $W/date.txt; cp $W/date.txt $P/date.txt
  tar czf $OUT/ours.tgz -C $P .
  tail -n 2 $P/ours.log $P/torch.log
fi
rem=$((520 - SECONDS)); echo "memcheck gets ${rem}s"
(cd cuda && timeout $rem compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUSplitFused|TestGPUTierBoundaries' > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W .
grep -E "^(--- FAIL|ok|PASS|FAIL)" $W/memcheck.txt | head; tail -n 2 $W/memcheck.txt | cut -c1-200
cat $W/date.txt
