#!/bin/bash
# session 52 call 5 (GPU entry 87): the shifted kernels under gpu.ShiftOn's
# rule, binaries built at the commit given (its fatbin is 0a02e3e's: the
# first form). TestGPUShifted in full mode and the dispatch-facing tests in
# short form; then the twelve shapes of call 2, ours two rounds and
# PyTorch's once.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 100 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUShifted' > $W/shifted.txt 2>&1; echo "shifted rc=$?")
(cd cuda && timeout 100 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'TestGPUUnaligned|TestGPURandom|TestGPUDispatch|TestGPUConcurrent|TestGPUTierBoundaries|TestGPUOnce|TestGPURowsBoundaries' > $W/tests.txt 2>&1; echo "tests rc=$?")
for f in $W/shifted.txt $W/tests.txt; do grep -E "^(--- |ok|PASS|FAIL)" $f | head -9; grep -m5 "_test.go" $f | cut -c1-300; done
tar czf $OUT/c5.tgz -C $W .
S=1024x50257,512x32001,8192x1000,65536x77,64x12x197x197,16x12x577x577,1048576x10,131072x33,16384x1025,32768x300,4x3000001,1x1000
for r in 1 2; do
  timeout 80 bin/softmax-bench -graph=false -shapes $S -commit "$1" -out $W/odd-ours-$r.json > $W/odd-ours-$r.log 2>&1; echo "ours $r rc=$?"
done
grep -h "failed checks" $W/odd-*.log
timeout 80 python3 bench/torch_bench.py --shapes $S --out $W/odd-torch.json > $W/odd-torch.log 2>&1; echo torch rc=$?
date -u >> $W/date.txt
tar czf $OUT/c5.tgz -C $W .
cat $W/date.txt
