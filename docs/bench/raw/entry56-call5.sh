#!/bin/bash
# session 36 call 5: mask words to keep bits in six instructions a four bytes (mask_bits), A/B against HEAD's kernels; the GPU suite short
set -u
cd "$(dirname "$0")/.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz bin/cuda.test.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
for r in 1 2; do for v in new new3; do
  timeout 90 bin/softmax-bench -fatbin bin/$v.fatbin -shapes 4x8388608,4x33554432 -ops masked_softmax -graph=false -out $W/m-$v-$r.json > $W/m-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
(cd cuda && timeout 250 ../bin/cuda.test -test.short -test.count=1 > $W/suite-short.txt 2>&1; echo suite rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call5.tgz -C $W .
tail -3 $W/suite-short.txt
for f in $W/m-*.txt; do echo "== $(basename $f)"; grep -E '^masked_softmax' $f | awk '{print $2,$3,$4,$6}' | tr '\n' ';'; echo; done
