#!/bin/bash
# session 44 call 2 (entry 68): the fused split kernel's masked form (its
# own kernel, split_fused_masked; float16 and bfloat16 at 512 threads),
# the head form's kernels as before. A/B at 4x8388608, three rounds
# alternated: base = 9a5823c's kernels (bin/base.fatbin), its masked rows
# on the plain form (SOFTMAX_SPLIT_HEAD=0 there); new = the embedded
# kernels and rules. Then TestGPUSplitFused in full mode, then memcheck
# over the benchmark's masked launches there. Each part archived as it ends.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
S=4x8388608
B="timeout 40 bin/softmax-bench -shapes $S -graph=false"
for r in 1 2 3; do
  $B -fatbin bin/base.fatbin -ops softmax,log_softmax -out $W/ab-base-$r-u.json > $W/ab-base-$r-u.txt 2>&1; echo "base $r rc=$?"
  SOFTMAX_SPLIT_HEAD=0 $B -fatbin bin/base.fatbin -ops masked_softmax -out $W/ab-base-$r-m.json > $W/ab-base-$r-m.txt 2>&1; echo "base $r masked rc=$?"
  $B -ops softmax,log_softmax,masked_softmax -out $W/ab-new-$r.json > $W/ab-new-$r.txt 2>&1; echo "new $r rc=$?"
done
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
python3 docs/bench/raw/entry68-abcmp.py $W/ab base new 2>&1 | cut -c1-200
(cd cuda && timeout 330 ../bin/cuda.test -test.v -test.count=1 -test.run 'GPUSplitFused$' > $W/fused.txt 2>&1; echo fused rc=$?)
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W fused.txt date.txt
rem=$((560 - SECONDS)); echo "memcheck gets ${rem}s"
timeout $rem compute-sanitizer --tool memcheck --error-exitcode 9 bin/softmax-bench -shapes $S -ops masked_softmax -reps 2 -copy-mib 64 -graph=false -out $W/mc.json > $W/memcheck.txt 2>&1
echo "memcheck rc=$?"
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W fused.txt memcheck.txt date.txt
grep -E "^(--- |ok|PASS|FAIL)" $W/fused.txt; grep -m5 "_test.go" $W/fused.txt | cut -c1-300
grep -o "[^"]*masked form[^"]*" $W/mc.json | head -3 | cut -c1-200; tail -n 3 $W/memcheck.txt | cut -c1-200
cat $W/date.txt
