#!/bin/bash
# session 39 call 4: the span kernels (softmax_span.fatbin). The tests
# that run float32 and bfloat16 log-softmax at scales under 1 or tiny
# scales, in full mode (the split tier's in short form); memcheck over
# TestGPUSpanScales' short form; then log-softmax at scale 0.5 on every
# shape, float32 and bfloat16, on the span kernels (span) and with
# SOFTMAX_SPAN=0 (default), two rounds
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz bin/cuda.test.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 260 ../bin/cuda.test -test.v -test.count=1 -test.run 'SpanCall|GPU(SpanScales|ExtremeValues|TinyScale|Random|TierBoundaries|RowsBoundaries|Packed|Once|Cluster|Grid|CGrid|Unaligned|Errors)$' > $W/tests.txt 2>&1; echo tests rc=$?)
date -u >> $W/date.txt
(cd cuda && timeout 80 ../bin/cuda.test -test.v -test.short -test.count=1 -test.run 'GPUSplit' > $W/split-short.txt 2>&1; echo split-short rc=$?)
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W .
(cd cuda && timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'GPUSpanScales$' > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
for r in 1 2; do for v in span default; do
  if [ $v = default ]; then export SOFTMAX_SPAN=0; else unset SOFTMAX_SPAN; fi
  timeout 50 bin/softmax-bench -scale 0.5 -dtypes float32,bfloat16 -ops log_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
unset SOFTMAX_SPAN
date -u >> $W/date.txt
tar czf $OUT/call4.tgz -C $W .
grep -E '^(--- |ok|FAIL|PASS)' $W/tests.txt $W/split-short.txt; grep -c 'cuda_test.go' $W/tests.txt; grep -m4 'cuda_test.go' $W/tests.txt | cut -c1-300; tail -2 $W/memcheck.txt; cat $W/date.txt
