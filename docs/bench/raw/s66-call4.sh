#!/bin/bash
# Session 66 call 4, at the commit given (main; bin/softmax-bench and
# bin/cuda.test built there with the committed fatbins). On an H200 it is
# the published run (scripts/h200-run.sh). On any other card, after the
# staged rule took float32's forward of part-pack rows of 33-64 columns
# from 262144 rows (GPU entry 105): the dispatch tests in full (archived
# at once), the rule against SOFTMAX_STAGED=0 on float32's forward (one
# round), then the whole GPU suite in short form (cuda-gpu-test.sh, no
# memcheck or racecheck).
set -u
cd "$(dirname "$0")/../../.."
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  exec bash scripts/h200-run.sh "$1"
fi
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
(cd cuda && timeout 150 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStaged$|TestGPUShifted$|TestGPUDispatch$|TestGPUStrided$|TestGPUStridedBatch$|TestGPUPipeDispatch$|TestGPUOnce$|TestGPUPacked$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -12; grep -hm8 "_test.go" $W/tests.txt | cut -c1-300
tar czf $OUT/s66-call4.tgz -C $W .
S=262144x50,32x192x49x49,1048576x33,131072x50,262144x60
for v in rule s0; do
  E=""; [ $v = s0 ] && E="SOFTMAX_STAGED=0"
  env $E timeout 60 bin/softmax-bench -graph=false -dtypes float32 -shapes $S -ops softmax,log_softmax -commit "$1" -out $W/ab-$v.json > $W/ab-$v.log 2>&1; echo "ab $v rc=$?"
done
grep -h "262144x50\|1048576x33" $W/ab-*.log | cut -c1-120
(cd cuda && GPU_TEST_SHORT=1 GPU_TEST_MEMCHECK=0 GPU_TEST_RACECHECK=0 GPU_TEST_TIMEOUT=330 bash ../scripts/cuda-gpu-test.sh $W > $W/summary.txt 2>&1; echo "suite rc=$?")
tail -n 6 $W/summary.txt
date -u >> $W/date.txt
tar czf $OUT/s66-call4.tgz -C $W .
