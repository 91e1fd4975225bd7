#!/bin/bash
# session 43 call 2 (entry 67): the head form's stash counted in packs (14
# a thread at 512 threads, 3.5 steps) against the kernels before it
# (bin/base.fatbin, 3f9df2e's), three rounds alternated at 4x8388608; then
# the published run at the commit given (the benchmark, then PyTorch's);
# then TestGPUSplitFused in full mode; then memcheck over the benchmark's
# head-form launches. Each part archived as it ends.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
S=4x8388608
for r in 1 2 3; do for v in base new; do
  fb=""; [ $v = base ] && fb="-fatbin bin/base.fatbin"
  timeout 40 bin/softmax-bench $fb -shapes $S -ops softmax,log_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
P=$(mktemp -d)
timeout 200 bin/softmax-bench -commit "$1" -out $P/ours.json > $P/ours.log 2>&1; echo ours rc=$?
tar czf $OUT/ours.tgz -C $P .
timeout 150 python3 bench/torch_bench.py --out $P/torch.json > $P/torch.log 2>&1; echo torch rc=$?
date -u >> $W/date.txt
tar czf $OUT/torch.tgz -C $P torch.json torch.log
(cd cuda && timeout 240 ../bin/cuda.test -test.v -test.count=1 -test.run 'GPUSplitFused$' > $W/fused.txt 2>&1; echo fused rc=$?)
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W fused.txt date.txt
rem=$((585 - SECONDS)); echo "memcheck gets ${rem}s"
timeout $rem compute-sanitizer --tool memcheck --error-exitcode 9 bin/softmax-bench -shapes $S -ops softmax,log_softmax -reps 2 -copy-mib 64 -graph=false -out $W/mc.json > $W/memcheck.txt 2>&1
echo "memcheck rc=$?"
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W fused.txt memcheck.txt date.txt
python3 docs/bench/raw/entry65-abcmp.py $W/ab base new 2>&1 | cut -c1-200
tail -n 2 $P/ours.log $P/torch.log
grep -E "^(--- |ok|PASS|FAIL)" $W/fused.txt; grep -m5 "_test.go" $W/fused.txt | cut -c1-300
tail -n 2 $W/memcheck.txt | cut -c1-200
cat $W/date.txt
