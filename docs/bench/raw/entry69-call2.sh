#!/bin/bash
# session 45 call 2 (entry 69): the published run at the commit given (the
# benchmark, then PyTorch's), then TestGPUSplitFused in full mode with the
# time left. Each part archived as it ends.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
P=$(mktemp -d)
timeout 200 bin/softmax-bench -commit "$1" -out $P/ours.json > $P/ours.log 2>&1; echo ours rc=$?
cp $W/smi.txt $P/smi.txt
tar czf $OUT/ours.tgz -C $P .
timeout 200 python3 bench/torch_bench.py --out $P/torch.json > $P/torch.log 2>&1; echo torch rc=$?
date -u >> $W/date.txt; cp $W/date.txt $P/date.txt
tar czf $OUT/ours.tgz -C $P .
tail -n 2 $P/ours.log $P/torch.log
rem=$((590 - SECONDS)); echo "fused test gets ${rem}s"
(cd cuda && timeout $rem ../bin/cuda.test -test.v -test.count=1 -test.run 'GPUSplitFused$' > $W/fused.txt 2>&1; echo fused rc=$?)
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W fused.txt date.txt
grep -E "^(--- |ok|PASS|FAIL)" $W/fused.txt; grep -m5 "_test.go" $W/fused.txt | cut -c1-300
cat $W/date.txt
