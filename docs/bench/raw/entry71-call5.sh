#!/bin/bash
# session 45 call 5 (entry 71): ncu's DRAM and L2 counts for one launch of
# the fused split kernel at 4x8388608: the head form (softmax, float32,
# float16, bfloat16), the plain form (float16 softmax,
# SOFTMAX_SPLIT_HEAD=0: no marks, no stash) and the masked form (float16,
# bfloat16). Archived at the end.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz; chmod +x bin/softmax-bench
date -u > $W/date.txt
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write.sum
for c in softmax:float16:1 softmax:float16:0 softmax:bfloat16:1 softmax:float32:1 masked_softmax:float16:1 masked_softmax:bfloat16:1; do
  IFS=: read op dt head <<< "$c"
  [ $head = 1 ] && unset SOFTMAX_SPLIT_HEAD || export SOFTMAX_SPLIT_HEAD=0
  timeout 60 ncu --clock-control none --kernel-name regex:split_fused --launch-skip 4 --launch-count 1 --metrics $M bin/softmax-bench -reps 8 -copy-mib 64 -shapes 4x8388608 -dtypes $dt -ops $op -graph=false -out $W/n-$op-$dt-$head.json > $W/ncu-$op-$dt-$head.txt 2>&1
  echo "$op $dt head=$head rc=$?"
done
unset SOFTMAX_SPLIT_HEAD
date -u >> $W/date.txt
tar czf $OUT/ncu.tgz -C $W .
for f in $W/ncu-*.txt; do echo "== $(basename $f)"; grep -E 'split_fused|gpu__time|dram__bytes|lts__t' $f | sed 's/  */ /g' | cut -c1-150; done
cat $W/date.txt
