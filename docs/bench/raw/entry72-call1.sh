#!/bin/bash
# session 46 call 1 (entry 72): entry 71's write-pass order. v5
# (entry71-v5.patch): the head form's queues start at the unmarked tail,
# ascend to the row's end, then wrap; the whole steps load evict-first.
# v6 (entry72-v6.patch, with a bench binary whose masked plan passes the
# same tail as the head form's `head`; the embedded masked kernel ignores
# it): v5 plus the masked form in that order. v5 also at
# SOFTMAX_SPLIT_TAIL 35 and 70 (the share of L2 left unmarked, and where
# the queues start). sm_90 builds through -fatbin against the embedded
# kernels (f6fb192's SASS), 4x8388608, three rounds alternated; then
# ncu's L2 hits of one launch each, base against v5/v6.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
B="timeout 60 bin/softmax-bench -shapes 4x8388608 -ops softmax,log_softmax,masked_softmax -graph=false"
for r in 1 2 3; do
  $B -out $W/ab-base-$r.json > $W/ab-base-$r.txt 2>&1; echo "base $r rc=$?"
  $B -fatbin bin/v5.fatbin -out $W/ab-v5-$r.json > $W/ab-v5-$r.txt 2>&1; echo "v5 $r rc=$?"
  $B -fatbin bin/v6.fatbin -out $W/ab-v6-$r.json > $W/ab-v6-$r.txt 2>&1; echo "v6 $r rc=$?"
  SOFTMAX_SPLIT_TAIL=35 $B -ops softmax,log_softmax -fatbin bin/v5.fatbin -out $W/ab-v5t35-$r.json > $W/ab-v5t35-$r.txt 2>&1; echo "v5t35 $r rc=$?"
  SOFTMAX_SPLIT_TAIL=70 $B -ops softmax,log_softmax -fatbin bin/v5.fatbin -out $W/ab-v5t70-$r.json > $W/ab-v5t70-$r.txt 2>&1; echo "v5t70 $r rc=$?"
done
python3 docs/bench/raw/entry68-abcmp.py $W/ab base v5 v6 2>&1 | cut -c1-220
python3 docs/bench/raw/entry68-abcmp.py $W/ab base v5t35 v5 v5t70 2>&1 | cut -c1-220
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write.sum
for c in softmax:float16:base softmax:float16:v5 masked_softmax:float16:base masked_softmax:float16:v6 softmax:float32:base softmax:float32:v5; do
  IFS=: read op dt k <<< "$c"
  F=""; [ $k = base ] || F="-fatbin bin/$k.fatbin"
  timeout 60 ncu --clock-control none --kernel-name regex:split_fused --launch-skip 4 --launch-count 1 --metrics $M bin/softmax-bench $F -reps 8 -copy-mib 64 -shapes 4x8388608 -dtypes $dt -ops $op -graph=false -out $W/n-$op-$dt-$k.json > $W/ncu-$op-$dt-$k.txt 2>&1
  echo "$op $dt $k rc=$?"
done
date -u >> $W/date.txt
tar czf $OUT/ab.tgz -C $W .
for f in $W/ncu-*.txt; do echo "== $(basename $f)"; grep -E 'split_fused|gpu__time|dram__bytes|lts__t' $f | sed 's/  */ /g' | cut -c1-150; done
cat $W/date.txt
