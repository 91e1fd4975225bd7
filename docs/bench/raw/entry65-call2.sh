#!/bin/bash
# session 42 call 2 (entry 65): three builds of the fused head form's
# stash writes at 4x8388608, three rounds alternated: base (77fe0c9's
# kernels, stash_write), sq (4382774's, embedded: StashQueue, the stash
# at the end of the queue's walk) and v1 (sm_90: StashTiles, a second
# write_chunk over the stash). Then memcheck over the benchmark's head-form
# launches (sq and v1, 2 reps), then TestGPUSplitFused in full mode on v1
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
S=4x8388608
for r in 1 2 3; do for v in base sq v1; do
  fb=""; [ $v != sq ] && fb="-fatbin bin/$v.fatbin"
  timeout 40 bin/softmax-bench $fb -shapes $S -ops softmax,log_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
tar czf $OUT/call2.tgz -C $W .
for v in sq v1; do
  fb=""; [ $v != sq ] && fb="-fatbin bin/$v.fatbin"
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 bin/softmax-bench $fb -shapes $S -ops softmax,log_softmax -reps 2 -copy-mib 64 -graph=false -out $W/mc-$v.json > $W/memcheck-$v.txt 2>&1
  echo "memcheck $v rc=$?"
done
date -u >> $W/date.txt
tar czf $OUT/call2.tgz -C $W .
(cd cuda && timeout 240 ../bin/cuda.test -fatbin ../bin/v1.fatbin -test.v -test.count=1 -test.run 'GPUSplitFused$' > $W/fused-v1.txt 2>&1; echo fused rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call2.tgz -C $W .
grep -E "^(--- |ok|PASS|FAIL)" $W/fused-v1.txt; grep -m5 "_test.go" $W/fused-v1.txt | cut -c1-300
for v in sq v1; do tail -n 2 $W/memcheck-$v.txt | cut -c1-200; done
for f in $W/ab-*.txt; do echo "== $(basename $f)"; grep "4x8388608" $f | cut -c1-80; done
cat $W/date.txt
