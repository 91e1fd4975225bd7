#!/bin/bash
# session 38 call 3: TestGPUExtremeValues with the span-overflow check, on
# the embedded kernels and on an sm_90 build with entry60-logdiff.patch;
# then A/B of sm_90 builds of f525334's kernels (base) and of the patch
# (logdiff) on tier 1's forward shapes, two rounds
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz bin/cuda.test.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 60 ../bin/cuda.test -test.run 'GPUExtremeValues$' -test.v -test.count=1 > $W/extreme-embedded.txt 2>&1; echo extreme-embedded rc=$?)
(cd cuda && timeout 60 ../bin/cuda.test -fatbin ../bin/logdiff.fatbin -test.run 'GPUExtremeValues$' -test.v -test.count=1 > $W/extreme-logdiff.txt 2>&1; echo extreme-logdiff rc=$?)
S=128x1024,2048x1024,2048x4096,2048x8192,65536x128,32768x512,16384x2048,8192x4096
for r in 1 2; do for v in base logdiff; do
  timeout 80 bin/softmax-bench -fatbin bin/$v.fatbin -shapes $S -ops softmax,log_softmax,masked_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
date -u >> $W/date.txt
tar czf $OUT/call3.tgz -C $W .
for f in $W/extreme-*.txt; do echo "== $(basename $f)"; grep -E "^(--- |ok|PASS|FAIL)" $f; grep -c "^    " $f; grep -m3 "^    " $f | cut -c1-300; done
head -5 $W/ab-base-1.txt
