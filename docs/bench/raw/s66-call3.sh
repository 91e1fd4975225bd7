#!/bin/bash
# Session 66 call 3, at the commit given (the staged forward at N = 48, 56
# and 64 in the lean form, its row read in one loop of n steps for every
# lane, fwd_rows_staged_lean; the backward held again; bin/softmax-bench
# and bin/cuda.test built there with an sm_90-only fatbin, bin/bench-old
# the same at c41320c, the held form): TestGPUStaged in full, memcheck
# and racecheck over it in short form; then the forward of rows of 33-64
# columns, every type, under SOFTMAX_STAGED=1 with the lean form
# (new-st1) and the held form (old-st1), and SOFTMAX_STAGED=0 (new-s0,
# the other plans), two rounds alternated, and PyTorch's once. One
# archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 200 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStaged$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -6; grep -hm8 "_test.go" $W/tests.txt | cut -c1-300
for tool in memcheck racecheck; do
  (cd cuda && GPU_TEST_GUARD=0 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUStaged$' > $W/$tool.txt 2>&1; echo "$tool rc=$?")
  tail -n 1 $W/$tool.txt
done
S=16384x50,65536x33,65536x49,131072x50,262144x50,1048576x33,32x192x49x49,256x12x50x50,262144x56,262144x60,262144x48,262144x64,1048576x60
O=softmax,log_softmax
for r in 1 2; do
  for v in new-st1 old-st1 new-s0; do
    B=bin/softmax-bench; [ ${v%%-*} = old ] && B=bin/bench-old
    E="SOFTMAX_STAGED=1"; [ ${v##*-} = s0 ] && E="SOFTMAX_STAGED=0"
    env $E timeout 100 $B -graph=false -shapes $S -ops $O -commit "$1" -out $W/ab-$v-$r.json > $W/ab-$v-$r.log 2>&1; echo "ab $v $r rc=$?"
  done
done
timeout 120 python3 bench/torch_bench.py --shapes $S --ops $O --out $W/ab-torch.json > $W/ab-torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/s66-call3.tgz -C $W .
