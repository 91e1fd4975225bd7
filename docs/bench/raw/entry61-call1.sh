#!/bin/bash
# session 39 call 1: TestGPUExtremeValues (no span allowance left) on the
# embedded kernels (57e4ddf's) and on an sm_90 build of the ROW_WIDE
# change; memcheck over its short form on the change; then A/B of sm_90
# builds of 57e4ddf's kernels (base) and of the change (wide) on every
# forward op and benchmark shape, two rounds
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz bin/cuda.test.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 90 ../bin/cuda.test -test.run 'GPUExtremeValues$' -test.v -test.count=1 > $W/extreme-embedded.txt 2>&1; echo extreme-embedded rc=$?)
(cd cuda && timeout 90 ../bin/cuda.test -fatbin ../bin/new.fatbin -test.run 'GPU(ExtremeValues|TinyScale|HugeScale)$' -test.v -test.count=1 > $W/extreme-wide.txt 2>&1; echo extreme-wide rc=$?)
date -u >> $W/date.txt
(cd cuda && timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -fatbin ../bin/new.fatbin -test.short -test.count=1 -test.run 'GPUExtremeValues$' > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
for r in 1 2; do for v in base new; do
  timeout 110 bin/softmax-bench -fatbin bin/$v.fatbin -ops softmax,log_softmax,masked_softmax,causal_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"; date -u >> $W/date.txt
done; done
tar czf $OUT/call1.tgz -C $W .
for f in $W/extreme-*.txt; do echo "== $(basename $f)"; grep -E "^(--- |ok|PASS|FAIL)" $f; grep -c "^    " $f; grep -m3 "^    " $f | cut -c1-300; done
tail -3 $W/memcheck.txt; cat $W/date.txt
