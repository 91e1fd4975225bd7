#!/bin/bash
# session 52 call 4 (GPU entry 87): the shifted kernels' second form (the
# unmasked ones read the packs a row's ends cut whole too), an sm_90 build
# through -fatbin (bin/edges90.fatbin), on call 3's binaries (0a02e3e: the
# first form embedded). TestGPUShifted in full mode and memcheck over its
# short form on the second form; then the twelve shapes of call 2: first
# form, second form and SOFTMAX_SHIFT=0, two rounds alternated.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
F="-fatbin $PWD/bin/edges90.fatbin"
(cd cuda && timeout 120 ../bin/cuda.test $F -test.count=1 -test.v -test.run 'TestGPUShifted' > $W/shifted.txt 2>&1; echo "shifted rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/shifted.txt | head -5; grep -m5 "_test.go" $W/shifted.txt | cut -c1-300
(cd cuda && timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test $F -test.short -test.count=1 -test.run 'TestGPUShifted' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
tail -n 2 $W/memcheck.txt
tar czf $OUT/c4.tgz -C $W .
S=1024x50257,512x32001,8192x1000,65536x77,64x12x197x197,16x12x577x577,1048576x10,131072x33,16384x1025,32768x300,4x3000001,1x1000
for r in 1 2; do
  for v in first edges scalar; do
    E=""; FF=""
    [ $v = scalar ] && E="SOFTMAX_SHIFT=0"
    [ $v = edges ] && FF="$F"
    env $E timeout 80 bin/softmax-bench -graph=false $FF -shapes $S -commit "$1" -out $W/odd-$v-$r.json > $W/odd-$v-$r.log 2>&1; echo "$v $r rc=$?"
  done
  tar czf $OUT/c4.tgz -C $W .
done
grep -h "failed checks" $W/odd-*.log
date -u >> $W/date.txt
tar czf $OUT/c4.tgz -C $W .
cat $W/date.txt
