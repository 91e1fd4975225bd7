#!/bin/bash
# session 41 call 1 (session 40 ran this call, but its results were lost
# before they were read): TestGPUSpanScales (its committed form) and
# TestSpanCall in full mode; TestGPUCGrid's short form on the bm build;
# A/B of tier 8's forward with the first blocks' loads staggered
# (SM_STAGGER builds, entry 63) and with the mask bytes by bulk copy (bm)
# against an sm_90 build of f82a9c7's kernels (base), two rounds; then
# the GPU suite but the split tier's tests, and memcheck over its short form
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 100 ../bin/cuda.test -test.v -test.count=1 -test.run 'SpanCall|GPUSpanScales$' > $W/span.txt 2>&1; echo span rc=$?)
(cd cuda && timeout 60 ../bin/cuda.test -fatbin ../bin/bm.fatbin -test.short -test.v -test.count=1 -test.run 'GPU(CGrid|CGridBalance)$' > $W/cgrid-bm.txt 2>&1; echo cgrid-bm rc=$?)
date -u >> $W/date.txt
S=1024x32000,256x128256,2048x32000
for r in 1 2; do for v in base st400_132 st800_132 st1500_132 st300_66 bm; do
  timeout 40 bin/softmax-bench -fatbin bin/$v.fatbin -shapes $S -ops softmax,log_softmax,masked_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
date -u >> $W/date.txt
tar czf $OUT/call1.tgz -C $W .
(cd cuda && timeout 220 ../bin/cuda.test -test.v -test.count=1 -test.run GPU -test.skip TestGPUSplit > $W/tests.txt 2>&1; echo tests rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call1.tgz -C $W .
(cd cuda && timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run GPU -test.skip TestGPUSplit > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call1.tgz -C $W .
for f in $W/span.txt $W/cgrid-bm.txt $W/tests.txt $W/memcheck.txt; do echo "== $(basename $f)"; grep -E "^(--- FAIL|ok|PASS|FAIL)" $f; grep -c "cuda_test.go" $f; grep -m6 "_test.go" $f | cut -c1-300; done
grep -E "ERROR SUMMARY|^=+ (ERROR|Invalid)" $W/memcheck.txt | sort | uniq -c | head
cat $W/date.txt
