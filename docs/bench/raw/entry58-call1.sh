#!/bin/bash
# session 37 call 1: where the masked half rows' instructions go, by opcode and by SASS line (entry 58)
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
[ -f bin/softmax-bench ] || { xz -d -f bin/softmax-bench.xz; chmod +x bin/softmax-bench; }
date -u > $W/date.txt
ncu --version > $W/ncu-version.txt 2>&1
for c in 4x33554432:masked_softmax:float16 4x33554432:softmax:float16; do
  IFS=: read s op dt <<< "$c"
  timeout 200 ncu --clock-control none --kernel-name regex:split_fused --launch-skip 4 --launch-count 1 --section InstructionStats --section SourceCounters --section SpeedOfLight -o $W/rep-$op bin/softmax-bench -reps 8 -shapes $s -dtypes $dt -ops $op -graph=false -out $W/n-$op.json > $W/log-$op.txt 2>&1
  echo "$op rc=$?"
  ncu -i $W/rep-$op.ncu-rep --page details --print-details all > $W/details-$op.txt 2>&1
  ncu -i $W/rep-$op.ncu-rep --page source --csv --print-source sass > $W/sass-$op.csv 2>&1
  echo "$op source rc=$? $(wc -l < $W/sass-$op.csv)"
done
date -u >> $W/date.txt
rm -f $W/*.ncu-rep
tar czf $OUT/call1.tgz -C $W .
head -c 1500 $W/sass-masked_softmax.csv
