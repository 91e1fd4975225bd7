#!/bin/bash
# session 46 call 5 (entry 73): where the fused kernel's time goes, from
# ncu's PM sampling (a timeline of DRAM and L2 throughput over one launch;
# Nsight Compute 2025.3) rather than a trace build: the head form at
# 4x8388608 (float16, float32), the masked form (float16), and the head
# form at 4x33554432 (float16). The fifth launch of each; 3d898ca's bench
# binary. Each report is printed in full and exported raw.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz; chmod +x bin/softmax-bench
date -u > $W/date.txt
ncu --version > $W/ncu-version.txt 2>&1; head -3 $W/ncu-version.txt
for c in softmax:float16:4x8388608 softmax:float32:4x8388608 masked_softmax:float16:4x8388608 softmax:float16:4x33554432; do
  IFS=: read op dt sh <<< "$c"
  n=$op-$dt-$sh
  timeout 90 ncu --clock-control none --kernel-name regex:split_fused --launch-skip 4 --launch-count 1 --section PmSampling --section SpeedOfLight --pm-sampling-interval 1000 -o $W/pm-$n bin/softmax-bench -reps 8 -copy-mib 64 -shapes $sh -dtypes $dt -ops $op -graph=false -out $W/b-$n.json > $W/run-$n.txt 2>&1
  echo "$n rc=$?"
  timeout 60 ncu --import $W/pm-$n.ncu-rep --print-details all > $W/details-$n.txt 2>&1; echo " details rc=$?"
  timeout 60 ncu --import $W/pm-$n.ncu-rep --page raw --csv --print-metric-instances values > $W/raw-$n.csv 2>&1; echo " raw rc=$?"
  tar czf $OUT/pm.tgz -C $W .
done
date -u >> $W/date.txt
tar czf $OUT/pm.tgz -C $W .
ls -la $W | head -30
f=$W/details-softmax-float16-4x8388608.txt; wc -l $f; grep -n -i "pm sampling\|sampling\|dram\|throughput" $f | head -30
c=$W/raw-softmax-float16-4x8388608.csv; wc -c $c; head -c 1500 $c; echo; tr ',' '\n' < <(head -1 $c) | grep -n -i pmsampling | head -20
cat $W/date.txt
