#!/bin/bash
# session 41 call 3 (entry 64): the fused split kernel with a stash of each
# block's first steps in shared memory (stash.fatbin, sm_90; steps a block
# by SOFTMAX_SPLIT_STASH) against an sm_90 build of f82a9c7's kernels
# (base). Tests first: TestGPUSplitFused in full mode at 3 steps, short at
# 1 and with no stash; then the A/B, two rounds
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && SOFTMAX_SPLIT_STASH=3 timeout 150 ../bin/cuda.test -fatbin ../bin/stash.fatbin -test.v -test.count=1 -test.run 'GPUSplitFused$' > $W/fused-k3.txt 2>&1; echo fused-k3 rc=$?)
(cd cuda && SOFTMAX_SPLIT_STASH=1 timeout 60 ../bin/cuda.test -fatbin ../bin/stash.fatbin -test.short -test.v -test.count=1 -test.run 'GPUSplitFused$' > $W/fused-k1.txt 2>&1; echo fused-k1 rc=$?)
(cd cuda && timeout 60 ../bin/cuda.test -fatbin ../bin/stash.fatbin -test.short -test.v -test.count=1 -test.run 'GPUSplitFused$' > $W/fused-k0.txt 2>&1; echo fused-k0 rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call3.tgz -C $W .
S=4x8388608,4x33554432
for r in 1 2; do for v in base k0 k1 k2 k3; do
  f=stash; k=${v#k}; [ $v = base ] && { f=base; k=0; }
  SOFTMAX_SPLIT_STASH=$k timeout 45 bin/softmax-bench -fatbin bin/$f.fatbin -shapes $S -ops softmax,log_softmax,masked_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; tar czf $OUT/call3.tgz -C $W .; done
date -u >> $W/date.txt
for f in $W/fused-k*.txt; do echo "== $(basename $f)"; grep -E "^(--- |ok|PASS|FAIL)" $f; grep -m5 "_test.go" $f | cut -c1-300; done
grep -h "4x8388608" $W/ab-*-1.txt | grep -v masked | cut -c1-150
cat $W/date.txt
