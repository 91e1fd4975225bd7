#!/bin/bash
# session 35 call 1: A/B of the clamped 32-register once kernel, its tests, the cluster launch probe
set -u
cd "$(dirname "$0")"
W=$(mktemp -d)
xz -d -f softmax-bench.xz cuda-new.test.xz; chmod +x softmax-bench cuda-new.test bw7
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
date -u > $W/date.txt
S=65536x128,32768x512,2048x1024,2048x2048,16384x2048,128x1024
for r in 1 2; do for v in base new; do
  timeout 100 ./softmax-bench -fatbin $v.fatbin -shapes $S -dtypes float32 -ops softmax,log_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
timeout 60 ./cuda-new.test -test.run 'GPUOnce' -test.v -test.count=1 > $W/once.txt 2>&1; echo once rc=$?
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 ./cuda-new.test -test.run 'GPUOnce' -test.count=1 > $W/once-memcheck.txt 2>&1; echo memcheck rc=$?
timeout 60 ./bw7 > $W/bw7.txt 2>&1; echo bw7 rc=$?
date -u >> $W/date.txt
tar czf $OUT/call1.tgz -C $W .
tail -5 $W/once.txt; tail -2 $W/once-memcheck.txt; cat $W/bw7.txt | tail -30
