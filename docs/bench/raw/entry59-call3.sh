#!/bin/bash
# session 37 call 3: the statistics pass's next step loaded before the fold (SM_STATS_PIPE), A/B of sm_90 builds; tiny scales on every tier (entry 59)
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz bin/cuda.test.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 120 ../bin/cuda.test -test.run 'GPUTinyScale' -test.v -test.count=1 > $W/tiny.txt 2>&1; echo tiny rc=$?)
for r in 1 2; do for v in base pipe; do
  timeout 90 bin/softmax-bench -fatbin bin/$v.fatbin -shapes 4x8388608,4x33554432 -ops softmax,log_softmax,masked_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
date -u >> $W/date.txt
tar czf $OUT/call3.tgz -C $W .
grep -E "^(--- |ok|PASS|FAIL)" $W/tiny.txt | head; grep -c "^    " $W/tiny.txt; grep -m5 "^    " $W/tiny.txt | cut -c1-300
for f in $W/ab-*.txt; do echo "== $(basename $f)"; grep -E '^(masked_softmax|softmax|log_softmax) ' $f | awk '{print $1,$2,$3,$4,$6}' | tr '\n' ';'; echo; done
