#!/bin/bash
# session 41 call 2: the benchmark at 163b1bc (ours, then PyTorch's), each
# archived as it ends; then the tests of tier 8 and the dispatch in full
# mode, and memcheck over tier 8's and the unaligned tests' short form
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz bin/cuda.test.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
timeout 200 bin/softmax-bench -commit 163b1bc -out $W/ours.json > $W/ours.log 2>&1; echo ours rc=$?
tar czf $OUT/ours.tgz -C $W .
timeout 150 python3 bench/torch_bench.py --out $W/torch.json > $W/torch.log 2>&1; echo torch rc=$?
tar czf $OUT/torch.tgz -C $W torch.json torch.log
date -u >> $W/date.txt
(cd cuda && timeout 170 ../bin/cuda.test -test.v -test.count=1 -test.run 'GPU(CGrid|CGridBalance|TierBoundaries|Unaligned|Random|Dispatch|ExtremeValues)$' > $W/tests.txt 2>&1; echo tests rc=$?)
date -u >> $W/date.txt
(cd cuda && timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'GPU(CGrid|Unaligned)$' > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W tests.txt memcheck.txt date.txt
tail -2 $W/ours.log $W/torch.log; grep -E '^(--- |ok|FAIL|PASS)' $W/tests.txt; grep -m3 'cuda_test.go' $W/tests.txt | cut -c1-300; tail -2 $W/memcheck.txt; cat $W/date.txt
