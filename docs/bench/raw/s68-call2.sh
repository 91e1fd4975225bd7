#!/bin/bash
# Session 68 call 2, at the commit given (main; bin/softmax-bench and
# bin/cuda.test built there with the committed full fatbins).
#  1. Entry 107's lead: the half types' softmax forward at 9-16 packs
#     (72-128 columns) ran 1.04-1.09x faster at K = 4 than the plan's K = 2
#     at 262144 rows of 12, 14 and 16 packs, 0.88-0.97x at 9, 11, 13, 15.
#     Here the same at 65536, 131072 and 1048576 rows, the plan against
#     SOFTMAX_ROWS_K=4 and SOFTMAX_PACKED=1 (the packed kernels at K = 4,
#     which log-softmax takes there from 2^24 elements), both ops, two
#     rounds alternated, then PyTorch's once.
#  2. The GPU suite in short form (no memcheck or racecheck): the last
#     full-suite run was at 4d4e2b0 (session 67's call 3). SUITE=0 leaves
#     it out (240 s on the H100).
# One archive, written twice.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
S=""
for c in 72 80 88 96 104 112 120 128; do S="$S,65536x$c,1048576x$c"; done
S="${S#,},131072x96,131072x112,131072x128"
for r in 1 2; do
  for v in plan k4 p1; do
    case $v in plan) E="";; k4) E="SOFTMAX_ROWS_K=4";; p1) E="SOFTMAX_PACKED=1";; esac
    env $E timeout 90 bin/softmax-bench -graph=false -dtypes float16,bfloat16 -shapes $S -ops softmax,log_softmax -commit "$1" -out $W/hh-$v-$r.json > $W/hh-$v-$r.log 2>&1; echo "hh $v $r rc=$?"
  done
done
timeout 90 python3 bench/torch_bench.py --dtypes float16,bfloat16 --shapes $S --ops softmax,log_softmax --out $W/hh-torch.json > $W/hh-torch.log 2>&1; echo "torch rc=$?"
grep -h "failed checks" $W/*.log | sort | uniq -c
tar czf $OUT/s68-call2.tgz -C $W .
[ "${SUITE:-1}" = 0 ] && exit 0
(cd cuda && GPU_TEST_SHORT=1 GPU_TEST_MEMCHECK=0 GPU_TEST_RACECHECK=0 GPU_TEST_TIMEOUT=300 bash ../scripts/cuda-gpu-test.sh $W > $W/summary.txt 2>&1; echo "suite rc=$?")
tail -n 4 $W/summary.txt
date -u >> $W/date.txt
tar czf $OUT/s68-call2.tgz -C $W .
