#!/bin/bash
# Session 70 call 2, at the commit given (binaries as call 1's: d1f85a1's
# code, the sm_90 cubins of its fatbins embedded). Entry 109 found float32
# backward rows of 33-50 columns bound by latency, not issue: the batched
# strided kernel (stronce{E}r2, PyTorch's layout) runs 10 blocks an SM at
# E = 2 (47 registers) and 8 at E = 4 (53), where PyTorch's runs 16. Its
# launch bounds raised, in sm_90 cubins of the same sources loaded through
# -fatbin: bin/va.cubin (E = 2 at 12 blocks, E = 4 at 10), bin/vb.cubin
# (16 and 12). Two rounds alternated, float32 backward ops: the plan, the
# batched kernel everywhere it fits (SOFTMAX_STRIDED_BATCH=1) at 10/8, at
# va's and at vb's bounds; then PyTorch's once; then TestGPUStridedBatch
# (short form) on va's and vb's kernels. One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
S=65536x33,131072x33,262144x33,65536x36,131072x36,262144x36,131072x40,131072x50,256x12x50x50,262144x50,131072x57,262144x63,65536x100,65536x128,131072x80,131072x120
O=softmax_backward,log_softmax_backward
for r in 1 2; do
  for v in plan b10 b12 b16; do
    F=""; E="SOFTMAX_STRIDED_BATCH=1"
    [ $v = plan ] && E=""
    [ $v = b12 ] && F="-fatbin bin/va.cubin"
    [ $v = b16 ] && F="-fatbin bin/vb.cubin"
    env $E timeout 60 bin/softmax-bench $F -graph=false -dtypes float32 -shapes $S -ops $O -commit "$1" -out $W/s-$v-$r.json > $W/s-$v-$r.log 2>&1; echo "s $v $r rc=$?"
  done
done
date -u >> $W/date.txt
tar czf $OUT/s70-call2.tgz -C $W .
timeout 60 python3 bench/torch_bench.py --dtypes float32 --shapes $S --ops $O --out $W/s-torch.json > $W/s-torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/s-*.log | sort | uniq -c
tar czf $OUT/s70-call2.tgz -C $W .
for c in va vb; do
  (cd cuda && timeout 60 ../bin/cuda.test -fatbin ../bin/$c.cubin -test.short -test.count=1 -test.v -test.run 'TestGPUStridedBatch$' > $W/tests-$c.txt 2>&1; echo "tests $c rc=$?")
  grep -hE "^(--- |ok|PASS|FAIL)" $W/tests-$c.txt | head -5
done
date -u >> $W/date.txt
tar czf $OUT/s70-call2.tgz -C $W .
