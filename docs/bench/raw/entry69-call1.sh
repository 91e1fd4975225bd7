#!/bin/bash
# (As run, the comparison was entry69-abcmp.py, a copy of entry68-abcmp.py,
# which it now names.)
# session 45 call 1 (entry 69): the masked form's mask words loaded
# evict-first. A/B at 4x8388608, three rounds alternated, one binary:
# base = HEAD's kernels (bin/base.fatbin), new = the embedded kernels;
# masked rows of the three types (float32 on the plain form by the rule)
# and float16 softmax as a control; b32/n32 = float32 masked rows on the
# masked form (SOFTMAX_SPLIT_MASKED32=1, an experiment's knob) with each
# build. Then TestGPUSplitFused in full mode, then memcheck over the
# benchmark's masked-form launches. Each part archived as it ends.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
S=4x8388608
B="timeout 40 bin/softmax-bench -shapes $S -graph=false"
for r in 1 2 3; do
  $B -fatbin bin/base.fatbin -ops masked_softmax -out $W/ab-base-$r-m.json > $W/ab-base-$r-m.txt 2>&1; echo "base $r rc=$?"
  $B -fatbin bin/base.fatbin -ops softmax -dtypes float16 -out $W/ab-base-$r-c.json > $W/ab-base-$r-c.txt 2>&1
  $B -ops masked_softmax -out $W/ab-new-$r-m.json > $W/ab-new-$r-m.txt 2>&1; echo "new $r rc=$?"
  $B -ops softmax -dtypes float16 -out $W/ab-new-$r-c.json > $W/ab-new-$r-c.txt 2>&1
  SOFTMAX_SPLIT_MASKED32=1 $B -fatbin bin/base.fatbin -ops masked_softmax -dtypes float32 -out $W/ab-b32-$r.json > $W/ab-b32-$r.txt 2>&1; echo "b32 $r rc=$?"
  SOFTMAX_SPLIT_MASKED32=1 $B -ops masked_softmax -dtypes float32 -out $W/ab-n32-$r.json > $W/ab-n32-$r.txt 2>&1; echo "n32 $r rc=$?"
done
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
python3 docs/bench/raw/entry68-abcmp.py $W/ab base new 2>&1 | cut -c1-220
python3 docs/bench/raw/entry68-abcmp.py $W/ab base b32 n32 2>&1 | cut -c1-220
(cd cuda && timeout 300 ../bin/cuda.test -test.v -test.count=1 -test.run 'GPUSplitFused$' > $W/fused.txt 2>&1; echo fused rc=$?)
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W fused.txt date.txt
rem=$((565 - SECONDS)); echo "memcheck gets ${rem}s"
SOFTMAX_SPLIT_MASKED32=1 timeout $rem compute-sanitizer --tool memcheck --error-exitcode 9 bin/softmax-bench -shapes $S -ops masked_softmax -reps 2 -copy-mib 64 -graph=false -out $W/mc.json > $W/memcheck.txt 2>&1
echo "memcheck rc=$?"
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W fused.txt memcheck.txt date.txt
grep -E "^(--- |ok|PASS|FAIL)" $W/fused.txt; grep -m5 "_test.go" $W/fused.txt | cut -c1-300
tail -n 3 $W/memcheck.txt | cut -c1-200
cat $W/date.txt
