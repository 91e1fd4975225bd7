#!/bin/bash
# session 42 call 1 (entry 65): the fused head form writing its stash
# through write_chunk (StashQueue; 4382774's kernels, embedded) against
# 77fe0c9's (base.fatbin, loaded with -fatbin), three rounds alternated at
# 4x8388608; then TestGPUSplitFused in full mode on the embedded kernels
# (every stash depth, 0 to 3), then memcheck over it
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
S=4x8388608
for r in 1 2 3; do for v in base new; do
  fb=""; [ $v = base ] && fb="-fatbin bin/base.fatbin"
  timeout 40 bin/softmax-bench $fb -shapes $S -ops softmax,log_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
tar czf $OUT/call1.tgz -C $W .
(cd cuda && timeout 280 ../bin/cuda.test -test.v -test.count=1 -test.run 'GPUSplitFused$' > $W/fused.txt 2>&1; echo fused rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call1.tgz -C $W .
(cd cuda && timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.count=1 -test.run 'GPUSplitFused$' > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call1.tgz -C $W .
grep -E "^(--- |ok|PASS|FAIL)" $W/fused.txt; grep -m5 "_test.go" $W/fused.txt | cut -c1-300
tail -n 3 $W/memcheck.txt | cut -c1-200
grep -h "4x8388608" $W/ab-*.txt | cut -c1-150
cat $W/date.txt
