#!/bin/bash
# Session 67 call 3, at the commit given (tier 1's one-row kernel at K = 2,
# once2 and once2w{8,16,32}, beside K = 4's; bin/softmax-bench and
# bin/cuda.test built with an sm_90-only fatbin; no rule takes K = 2 yet).
# TestGPUOnce in full, by the rule and under SOFTMAX_ROWS_K=2 (every group
# at K = 2), memcheck over both in short form; then float32's forward of
# rows of 36-512 columns: the plan (K = 4, once4), SOFTMAX_ROWS_K=2 (once2)
# and SOFTMAX_ROWS_K=2 SOFTMAX_ONCE=0 (call 2's K = 2, fwd_rows), two
# rounds alternated, and PyTorch's once; then the whole GPU suite in short
# form (no memcheck or racecheck). One archive, written twice.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
for k in rule 2; do
  E=""; [ $k = 2 ] && E="SOFTMAX_ROWS_K=2"
  (cd cuda && env $E timeout 100 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUOnce$' > $W/tests-$k.txt 2>&1; echo "tests $k rc=$?")
  grep -hE "^(--- |ok|PASS|FAIL)" $W/tests-$k.txt | head -6; grep -hm8 "_test.go" $W/tests-$k.txt | cut -c1-300
  (cd cuda && env $E GPU_TEST_GUARD=0 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUOnce$' > $W/memcheck-$k.txt 2>&1; echo "memcheck $k rc=$?")
  tail -n 1 $W/memcheck-$k.txt
done
S=""
for c in $(seq 36 4 128) 192 256; do S="$S,262144x$c"; done
for c in 36 44 48 52 60 64 80 96 112 128 256 512; do S="$S,65536x$c"; done
S="$S,16384x60,16384x128,4096x128,1048576x44,1048576x52,1048576x60,1048576x96,1048576x128"
S=${S#,}
O=softmax,log_softmax
for r in 1 2; do
  for v in plan k2 k2o0; do
    case $v in plan) E="";; k2) E="SOFTMAX_ROWS_K=2";; k2o0) E="SOFTMAX_ROWS_K=2 SOFTMAX_ONCE=0";; esac
    env $E timeout 120 bin/softmax-bench -graph=false -dtypes float32 -shapes $S -ops $O -commit "$1" -out $W/oo-$v-$r.json > $W/oo-$v-$r.log 2>&1; echo "oo $v $r rc=$?"
  done
done
timeout 120 python3 bench/torch_bench.py --dtypes float32 --shapes $S --ops $O --out $W/oo-torch.json > $W/oo-torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
tar czf $OUT/s67-call3.tgz -C $W .
(cd cuda && GPU_TEST_SHORT=1 GPU_TEST_MEMCHECK=0 GPU_TEST_RACECHECK=0 GPU_TEST_TIMEOUT=300 bash ../scripts/cuda-gpu-test.sh $W > $W/summary.txt 2>&1; echo "suite rc=$?")
tail -n 4 $W/summary.txt
date -u >> $W/date.txt
tar czf $OUT/s67-call3.tgz -C $W .
