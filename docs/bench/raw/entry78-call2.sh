#!/bin/bash
# session 49 call 2 (entry 78): tier 1's one-row backward (bwd_rows_once:
# float32, K = 2, groups of 8 to 64 fixed, 32 registers, exact rows last).
# Both binaries embed an sm_90 build of the change. Tests first (TestGPUOnce
# full, the tier-boundary, extreme-value and random tests short, memcheck over
# TestGPUOnce short), then base (SOFTMAX_BWD_ONCE=0: bwd_rows2_f32 from the
# same build) against once (the rule), three rounds alternated.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 120 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUOnce$' > $W/test-once.txt 2>&1; echo "test once rc=$?")
(cd cuda && timeout 120 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUTierBoundaries|TestGPUExtremeValues|TestGPURandom|TestGPURows$' > $W/test-more.txt 2>&1; echo "test more rc=$?")
(cd cuda && timeout 90 compute-sanitizer --tool memcheck ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUOnce$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
for f in $W/test-*.txt $W/memcheck.txt; do echo "== $f"; grep -E "^(--- |ok|PASS|FAIL)|ERROR SUMMARY" $f | head -8; grep -m4 "_test.go" $f | cut -c1-250; done
tar czf $OUT/ab.tgz -C $W .
B="timeout 60 bin/softmax-bench -graph=false -dtypes float32"
for r in 1 2 3; do
  for v in base once; do
    K=""; [ $v = base ] && K=0
    SOFTMAX_BWD_ONCE=$K $B -shapes 65536x128,131072x128,16384x256,32768x512,2048x512,128x512,8192x1024 -ops softmax_backward,log_softmax_backward -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1; echo "$v $r rc=$?"
    SOFTMAX_BWD_ONCE=$K $B -shapes 65536x128 -ops softmax,log_softmax -out $W/ab-$v-${r}c.json > $W/ab-$v-${r}c.txt 2>&1; echo "$v ${r}c rc=$?"
  done
  tar czf $OUT/ab.tgz -C $W .
done
grep -h "check failed" $W/ab-*.txt | head -3
grep -h "65536x128\|32768x512" $W/ab-once-1.txt | cut -c1-200
python3 docs/bench/raw/entry68-abcmp.py $W/ab base once 2>&1 | cut -c1-200
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
