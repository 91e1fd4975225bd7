#!/bin/bash
# session 43 call 1 (entry 66): the fused head form's knobs at 4x8388608,
# three rounds alternated, one binary (the committed kernels): base; 448
# threads a block with 4 stash steps (224 KiB an SM, against 192) and with
# 3; the share of L2 left unmarked at the rows' ends at 0, 25, 75 and 100%
# (50 is base)
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
S=4x8388608
run() { # name env...
  local v=$1; shift
  env "$@" timeout 40 bin/softmax-bench -shapes $S -ops softmax,log_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
}
for r in 1 2 3; do
  run base X=1
  run t448s4 SOFTMAX_SPLIT_THREADS=448 SOFTMAX_SPLIT_STASH=4
  run t448s3 SOFTMAX_SPLIT_THREADS=448 SOFTMAX_SPLIT_STASH=3
  run tail0 SOFTMAX_SPLIT_TAIL=0
  run tail25 SOFTMAX_SPLIT_TAIL=25
  run tail75 SOFTMAX_SPLIT_TAIL=75
  run tail100 SOFTMAX_SPLIT_TAIL=100
  tar czf $OUT/call1.tgz -C $W .
done
date -u >> $W/date.txt
tar czf $OUT/call1.tgz -C $W .
python3 -c "
import json,sys
for f in sys.argv[1:]:
  for x in json.load(open(f))['records']: print(f.split('/')[-1], x['op'], x['dtype'], x['median_us'], x.get('note','')[:160])
" $W/ab-base-1.json $W/ab-t448s4-1.json $W/ab-tail0-1.json
cat $W/date.txt
