#!/bin/bash
# session 36 call 2: keep bits for masked split rows (entry 56): A/B of sm_90 builds, the split tests, memcheck
set -u
cd "$(dirname "$0")/.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz bin/cuda.test.xz; chmod +x bin/softmax-bench bin/cuda.test
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
date -u > $W/date.txt
for r in 1 2; do for v in base new; do
  timeout 90 bin/softmax-bench -fatbin bin/$v.fatbin -shapes 4x8388608,4x33554432 -ops masked_softmax,softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
(cd cuda && timeout 200 ../bin/cuda.test -test.run 'GPUSplit' -test.short -test.v -test.count=1 > $W/split.txt 2>&1; echo split rc=$?)
(cd cuda && timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.run 'GPUSplitFused|GPUSplitPieces' -test.short -test.count=1 > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call2.tgz -C $W .
grep -E '^(--- |ok|FAIL|PASS)' $W/split.txt | head -20; tail -3 $W/memcheck.txt
for f in $W/ab-*.txt; do echo "== $f"; grep -E 'masked_softmax|^softmax' $f | awk '{print $1,$2,$3,$4,$6}'; done
