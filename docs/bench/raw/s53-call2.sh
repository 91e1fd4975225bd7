#!/bin/bash
# session 53 call 2 (GPU entry 88): the shifted pipelined kernels with
# their whole packs stored in one access (sm_store16), and the cluster
# tier's shifted kernels (clus4s, clus4ms, cpipe4s, clus2s, clus2ms,
# cpipe2s) for rows of a part pack past tier 1; binaries built at the
# commit given. TestGPUShifted and TestGPUCluster in full mode, the
# dispatch-facing tests in short form, memcheck over the two tests' short
# form; then the twelve shapes of session 52's call 2: ours under the rule,
# SOFTMAX_PIPE=0 and SOFTMAX_CLUSTER=0 (tier 8 a column at a time, as at
# 131be83), two rounds alternated.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 200 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUShifted|TestGPUCluster$' > $W/shifted.txt 2>&1; echo "shifted rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/shifted.txt | head -5; grep -m5 "_test.go" $W/shifted.txt | cut -c1-300
(cd cuda && timeout 100 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUUnaligned|TestGPURandom|TestGPUDispatch|TestGPUConcurrent|TestGPUTierBoundaries|TestGPUOnce|TestGPURowsBoundaries|TestGPUPipeDispatch|TestGPUPacked|TestGPUCGrid' > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -14; grep -m5 "_test.go" $W/tests.txt | cut -c1-300
tar czf $OUT/c2.tgz -C $W .
(cd cuda && timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUShifted|TestGPUCluster$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
tail -n 2 $W/memcheck.txt
tar czf $OUT/c2.tgz -C $W .
S=1024x50257,512x32001,8192x1000,65536x77,64x12x197x197,16x12x577x577,1048576x10,131072x33,16384x1025,32768x300,4x3000001,1x1000
for r in 1 2; do
  for v in rule pipe0 clus0; do
    E=""
    [ $v = pipe0 ] && E="SOFTMAX_PIPE=0"
    [ $v = clus0 ] && E="SOFTMAX_CLUSTER=0"
    env $E timeout 80 bin/softmax-bench -graph=false -shapes $S -commit "$1" -out $W/odd-$v-$r.json > $W/odd-$v-$r.log 2>&1; echo "$v $r rc=$?"
  done
  tar czf $OUT/c2.tgz -C $W .
done
grep -h "failed checks" $W/odd-*.log
date -u >> $W/date.txt
tar czf $OUT/c2.tgz -C $W .
cat $W/date.txt
