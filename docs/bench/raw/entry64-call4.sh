#!/bin/bash
# session 41 call 4 (entry 64): the committed stash (the head form, up to
# 3 steps a block, embedded kernels) against the base kernels (sm_90 build
# of f82a9c7, SOFTMAX_SPLIT_STASH=0), one round each; then
# TestGPUSplitFused in full mode on the default
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
S=4x8388608,4x33554432
SOFTMAX_SPLIT_STASH=0 timeout 40 bin/softmax-bench -fatbin bin/base.fatbin -shapes $S -ops softmax,log_softmax,masked_softmax -graph=false -out $W/ab-base.json > $W/ab-base.txt 2>&1; echo base rc=$?
timeout 40 bin/softmax-bench -shapes $S -ops softmax,log_softmax,masked_softmax -graph=false -out $W/ab-new.json > $W/ab-new.txt 2>&1; echo new rc=$?
tar czf $OUT/call4.tgz -C $W .
(cd cuda && timeout 150 ../bin/cuda.test -test.v -test.count=1 -test.run 'GPUSplitFused$' > $W/tests.txt 2>&1; echo tests rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call4.tgz -C $W .
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt; grep -m5 "_test.go" $W/tests.txt | cut -c1-300
grep -h "4x8388608" $W/ab-base.txt $W/ab-new.txt | cut -c1-110
cat $W/date.txt
