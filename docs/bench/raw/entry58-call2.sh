#!/bin/bash
# session 37 call 2: masked columns set to -Inf in the packs (mask_in) and packs zeroed a word at a time (entry 58):
# A/B of sm_90 builds (HEAD's kernels, the change), the suite's short form, the split tests in full, memcheck of the fused kernel's tests
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz bin/cuda.test.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
for r in 1 2; do for v in base new; do
  timeout 90 bin/softmax-bench -fatbin bin/$v.fatbin -shapes 4x8388608,4x33554432 -ops masked_softmax,softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
date -u >> $W/date.txt
(cd cuda && timeout 200 ../bin/cuda.test -test.short -test.count=1 > $W/suite-short.txt 2>&1; echo suite-short rc=$?)
(cd cuda && timeout 230 ../bin/cuda.test -test.run 'GPUSplit$|GPUSplitFused' -test.v -test.count=1 > $W/split-full.txt 2>&1; echo split-full rc=$?)
(cd cuda && timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.run 'GPUSplitFused' -test.short -test.count=1 > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call2.tgz -C $W .
tail -2 $W/suite-short.txt; grep -E "^(--- |ok|PASS|FAIL)" $W/split-full.txt; tail -2 $W/memcheck.txt
for f in $W/ab-*.txt; do echo "== $(basename $f)"; grep -E '^(masked_softmax|softmax) ' $f | awk '{print $1,$2,$3,$4,$6}' | tr '\n' ';'; echo; done
