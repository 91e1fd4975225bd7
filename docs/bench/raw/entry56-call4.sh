#!/bin/bash
# session 36 call 4: ncu of the fused split kernel, masked against unmasked (entry 57)
set -u
cd "$(dirname "$0")/.."
W=$(mktemp -d)
[ -f bin/softmax-bench ] || { xz -d -f bin/softmax-bench.xz; chmod +x bin/softmax-bench; }
date -u > $W/date.txt
for c in 4x33554432:masked_softmax:float16 4x33554432:softmax:float16 4x8388608:masked_softmax:float16 4x8388608:softmax:float16 4x8388608:masked_softmax:float32; do
  IFS=: read s op dt <<< "$c"
  timeout 110 ncu --clock-control none --kernel-name regex:split_fused --launch-skip 4 --launch-count 1 --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section LaunchStats --section Occupancy bin/softmax-bench -reps 8 -shapes $s -dtypes $dt -ops $op -graph=false -out $W/n-$s-$op-$dt.json > $W/ncu-$s-$op-$dt.txt 2>&1
  echo "$s $op $dt rc=$?"
done
date -u >> $W/date.txt
tar czf $OUT/call4.tgz -C $W .
for f in $W/ncu-*.txt; do echo "== $(basename $f)"; grep -E 'Duration|DRAM Throughput|Compute \(SM\) Throughput|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Warp Cycles Per Issued|Registers Per|Achieved Occupancy' $f | awk '{print $1,$2,$3,$4,$(NF)}' | tr '\n' ';'; echo; done
