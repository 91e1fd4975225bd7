#!/bin/bash
# session 49 call 1 (entry 77): tier 8's forward walking rows. walk90.fatbin is
# an sm_90 build of fwd_cgrid with the row loop (ClusterWalkMeet: two slot
# sets and mbarriers); SOFTMAX_CGRID_WALK sets how many clusters launch (0 a
# row each; -1 as many as run at once; -2 the fewest at -1's turns; n at most
# n). Tests first (TestGPUCGrid on the walk build at 3 clusters and at -1;
# memcheck and racecheck short at 3), then base (the embedded kernels, a
# cluster a row) against w0, w1 and w2 (the walk build at 0, -1, -2), three
# rounds alternated, tier 8's forward rows.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
T="bin/cuda.test -fatbin $PWD/bin/walk90.fatbin -test.count=1 -test.v -test.run TestGPUCGrid\$"
(cd cuda && SOFTMAX_CGRID_WALK=3 timeout 100 ../$T > $W/test-w3.txt 2>&1; echo "test w3 rc=$?")
(cd cuda && SOFTMAX_CGRID_WALK=-1 timeout 60 ../$T -test.short > $W/test-w-1.txt 2>&1; echo "test w-1 rc=$?")
(cd cuda && SOFTMAX_CGRID_WALK=3 timeout 60 compute-sanitizer --tool memcheck ../$T -test.short > $W/memcheck-w3.txt 2>&1; echo "memcheck rc=$?")
(cd cuda && SOFTMAX_CGRID_WALK=3 timeout 90 compute-sanitizer --tool racecheck ../$T -test.short > $W/racecheck-w3.txt 2>&1; echo "racecheck rc=$?")
for f in $W/test-*.txt $W/*check*.txt; do echo "== $f"; grep -E "^(--- |ok|PASS|FAIL)|ERROR SUMMARY|RACECHECK SUMMARY|hazard" $f | head -5; grep -m3 "_test.go" $f | cut -c1-250; done
tar czf $OUT/ab.tgz -C $W .
B="timeout 60 bin/softmax-bench -graph=false -shapes 256x128256,1024x32000,512x65536,2048x32000 -ops softmax,log_softmax,masked_softmax"
for r in 1 2 3; do
  for v in base w0 w1 w2; do
    F="-fatbin bin/walk90.fatbin"; K=0
    case $v in base) F="";; w1) K=-1;; w2) K=-2;; esac
    SOFTMAX_CGRID_WALK=$K $B $F -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1; echo "$v $r rc=$?"
  done
  tar czf $OUT/ab.tgz -C $W .
done
grep -h "check failed" $W/ab-*.txt | head -3
python3 docs/bench/raw/entry68-abcmp.py $W/ab base w0 w1 w2 2>&1 | cut -c1-220
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
cat $W/date.txt
