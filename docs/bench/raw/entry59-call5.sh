#!/bin/bash
# session 37 call 5: the benchmark at 5685cd6 (ours, then PyTorch's) and the GPU suite's short form,
# each archived into $OUT as it ends (the session's device time was nearly spent)
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz bin/cuda.test.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
timeout 150 bin/softmax-bench -commit 5685cd6 -out $W/ours.json > $W/ours.log 2>&1; echo ours rc=$?
tar czf $OUT/ours.tgz -C $W .
timeout 100 python3 bench/torch_bench.py --out $W/torch.json > $W/torch.log 2>&1; echo torch rc=$?
tar czf $OUT/torch.tgz -C $W torch.json torch.log
date -u >> $W/date.txt
(cd cuda && timeout 150 ../bin/cuda.test -test.short -test.count=1 > $W/suite-short.txt 2>&1; echo suite-short rc=$?)
date -u >> $W/date.txt
tar czf $OUT/suite.tgz -C $W suite-short.txt date.txt
tail -2 $W/ours.log $W/torch.log; tail -3 $W/suite-short.txt
