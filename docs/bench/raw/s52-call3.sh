#!/bin/bash
# session 52 call 3 (GPU entry 87): tier 1's shifted kernels, on binaries
# built at the commit given. TestGPUShifted in full mode; the twelve
# shapes of call 2, ours with the shifted kernels and without
# (SOFTMAX_SHIFT=0), two rounds alternated, and PyTorch's once; memcheck
# over TestGPUShifted's short form; then the whole GPU suite's short form.
# Each part archived as it ends.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 150 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUShifted' > $W/shifted.txt 2>&1; echo "shifted rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/shifted.txt | head -5; grep -m5 "_test.go" $W/shifted.txt | cut -c1-300
tar czf $OUT/c3.tgz -C $W .
S=1024x50257,512x32001,8192x1000,65536x77,64x12x197x197,16x12x577x577,1048576x10,131072x33,16384x1025,32768x300,4x3000001,1x1000
for r in 1 2; do
  for v in shift scalar; do
    E=""; [ $v = scalar ] && E="SOFTMAX_SHIFT=0"
    env $E timeout 100 bin/softmax-bench -graph=false -shapes $S -commit "$1" -out $W/odd-$v-$r.json > $W/odd-$v-$r.log 2>&1; echo "$v $r rc=$?"
  done
  tar czf $OUT/c3.tgz -C $W .
done
grep -h "failed checks" $W/odd-*.log
timeout 100 python3 bench/torch_bench.py --shapes $S --out $W/odd-torch.json > $W/odd-torch.log 2>&1; echo torch rc=$?
tar czf $OUT/c3.tgz -C $W .
(cd cuda && timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUShifted' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
tail -n 2 $W/memcheck.txt
tar czf $OUT/c3.tgz -C $W .
(cd cuda && timeout 280 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'GPU|Span' > $W/suite.txt 2>&1; echo "suite rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/suite.txt | grep -v "^--- PASS" | head -5; grep -c "^--- PASS" $W/suite.txt; grep -m3 "_test.go" $W/suite.txt | cut -c1-300
date -u >> $W/date.txt
tar czf $OUT/c3.tgz -C $W .
cat $W/date.txt
