#!/bin/bash
# session 36 call 1: the L2 reuse probe (entry 56)
set -u
cd "$(dirname "$0")"
W=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
date -u > $W/date.txt
nvcc -O3 -arch=sm_90 -o l2probe entry56-l2probe.cu > $W/build.txt 2>&1; echo build rc=$?
timeout 240 ./l2probe > $W/probe.txt 2>&1; echo probe rc=$?
timeout 200 ncu --clock-control none --kernel-name rw --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum ./l2probe once > $W/ncu.txt 2>&1; echo ncu rc=$?
date -u >> $W/date.txt
tar czf $OUT/call1.tgz -C $W .
cat $W/build.txt | tail -3; cat $W/probe.txt
