#!/bin/bash
# Session 56 call 1, on branch s56-cgrid-shift (binaries built there, its
# commit as $1): tier 8's shifted kernels (cgrid_shift), new and never run.
# First memcheck without the test guards over TestGPUCGrid's short form
# (0 errors wanted: the last row's part pack is copied an element at a
# time), then TestGPUCGrid, TestGPUCluster and the dispatch tests in full
# mode; then the A/B, two rounds: rows of a part pack under dispatch as it
# is (a: the cluster tier's shifted kernels at 1024x50257 and 512x32001;
# tier 8's shifted kernels where tier 8 took such rows), with
# SOFTMAX_CGRID_SHIFT=1 (b: tier 8's shifted kernels wherever tier 8
# would take the rows were they whole packs) and =0 (c: tier 8's
# column-at-a-time path, as before), and the aligned neighbours once.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && GPU_TEST_GUARD=0 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUCGrid$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -12; tail -n 2 $W/memcheck.txt
tar czf $OUT/c1.tgz -C $W .
(cd cuda && timeout 200 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUCGrid$|TestGPUCluster$|TestGPUDispatch$|TestGPUCGridBalance$' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -8; grep -m5 "_test.go" $W/tests.txt | cut -c1-300
tar czf $OUT/c1.tgz -C $W .
S=1024x50257,512x32001,256x128257,64x262147
for r in 1 2; do
  timeout 60 bin/softmax-bench -graph=false -shapes $S -commit "$1" -out $W/shift-a-$r.json > $W/shift-a-$r.log 2>&1; echo "a $r rc=$?"
  SOFTMAX_CGRID_SHIFT=1 timeout 60 bin/softmax-bench -graph=false -shapes $S -commit "$1" -out $W/shift-b-$r.json > $W/shift-b-$r.log 2>&1; echo "b $r rc=$?"
  SOFTMAX_CGRID_SHIFT=0 timeout 60 bin/softmax-bench -graph=false -shapes $S -commit "$1" -out $W/shift-c-$r.json > $W/shift-c-$r.log 2>&1; echo "c $r rc=$?"
  tar czf $OUT/c1.tgz -C $W .
done
timeout 60 bin/softmax-bench -graph=false -shapes 1024x50264,512x32000,256x128256,64x262144 -commit "$1" -out $W/aligned.json > $W/aligned.log 2>&1; echo "aligned rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/c1.tgz -C $W .
cat $W/date.txt
