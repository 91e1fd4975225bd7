#!/bin/bash
# session 50 call 2, at the commit given (the binaries built at it; the
# rescaled tiny-scale backward, entry 80's sums): TestGPUTinyScaleBackward
# and its negative control (SOFTMAX_RESCALE=0 must fail it), memcheck of
# it, the whole GPU suite in its short form, session 49's public-API probe
# on the GPU (if carried), then the published run: the benchmark and
# PyTorch's. Each part archived as it ends.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 90 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUTinyScaleBackward' > $W/tiny.txt 2>&1; echo "tiny rc=$?")
(cd cuda && SOFTMAX_RESCALE=0 timeout 90 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUTinyScaleBackward' > $W/tiny-norescale.txt 2>&1; echo "tiny rescale=0 rc=$? (1 expected)")
(cd cuda && timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUTinyScaleBackward' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
(cd cuda && timeout 200 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'GPU|Span' > $W/suite.txt 2>&1); rc=$?; echo "suite rc=$rc"
for f in $W/tiny.txt $W/tiny-norescale.txt $W/memcheck.txt $W/suite.txt; do echo "== $f"; grep -E "^(--- |ok|PASS|FAIL)|ERROR SUMMARY" $f | grep -v "^--- PASS" | head -5; grep -c "^--- PASS" $f; grep -m3 "_test.go" $f | cut -c1-230; done
grep -o "scale=[0-9e.+-]*" $W/tiny-norescale.txt | sort | uniq -c
if [ -x bin/probe-cu ]; then
  SOFTMAX_BACKEND=gpu timeout 120 bin/probe-cu > $W/probe-gpu.txt 2>&1; echo "probe gpu rc=$?"
  grep -E "^FAIL|^SUMMARY" $W/probe-gpu.txt | cut -c1-250 | head -15
fi
tar czf $OUT/tests.tgz -C $W .
if [ $rc = 0 ]; then
  P=$(mktemp -d)
  timeout 200 bin/softmax-bench -commit "$1" -out $P/ours.json > $P/ours.log 2>&1; echo ours rc=$?
  cp $W/smi.txt $P/smi.txt
  tar czf $OUT/ours.tgz -C $P .
  timeout 200 python3 bench/torch_bench.py --out $P/torch.json > $P/torch.log 2>&1; echo torch rc=$?
  date -u >> $W/date.txt; cp $W/date.txt $P/date.txt
  tar czf $OUT/ours.tgz -C $P .
  tail -n 2 $P/ours.log $P/torch.log
fi
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W .
cat $W/date.txt
