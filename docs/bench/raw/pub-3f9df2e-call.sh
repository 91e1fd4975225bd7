#!/bin/bash
# session 43 call 1: the published run at the commit given (the benchmark,
# then PyTorch's, each archived as it ends), then TestGPUSplit and
# TestGPUSplitPieces in full mode, then the suite but the split tier's tests
# in what time is left of the call's 600 s
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz bin/cuda.test.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
timeout 200 bin/softmax-bench -commit "$1" -out $W/ours.json > $W/ours.log 2>&1; echo ours rc=$?
tar czf $OUT/ours.tgz -C $W .
timeout 150 python3 bench/torch_bench.py --out $W/torch.json > $W/torch.log 2>&1; echo torch rc=$?
date -u >> $W/date.txt
tar czf $OUT/torch.tgz -C $W torch.json torch.log date.txt
(cd cuda && timeout 120 ../bin/cuda.test -test.v -test.count=1 -test.run 'GPUSplit(Pieces)?$' > $W/split.txt 2>&1; echo split rc=$?)
date -u >> $W/date.txt
tar czf $OUT/split.tgz -C $W split.txt date.txt
rem=$((575 - SECONDS)); echo "suite gets ${rem}s"
(cd cuda && timeout $rem ../bin/cuda.test -test.v -test.count=1 -test.run GPU -test.skip TestGPUSplit > $W/suite.txt 2>&1; echo suite rc=$?)
date -u >> $W/date.txt
tar czf $OUT/suite.tgz -C $W suite.txt date.txt
tail -n 2 $W/ours.log $W/torch.log; grep -E "^(--- |ok|PASS|FAIL)" $W/split.txt; grep -m5 "_test.go" $W/split.txt | cut -c1-300
grep -E "^(--- FAIL|ok|PASS|FAIL)" $W/suite.txt; grep -m5 "_test.go" $W/suite.txt | cut -c1-300; tail -n 3 $W/suite.txt; cat $W/date.txt
