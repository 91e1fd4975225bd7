#!/bin/bash
# session 55 call 4, at the commit given (the binaries built at it: the
# shifted pipelined kernels' last-pack copy and entry 90's rules): the
# whole GPU suite in its short form, then the published run (the
# benchmark and PyTorch's), then the twelve shapes off the issue's list,
# ours and PyTorch's. Each part archived as it ends. (Memcheck without the
# test guards and the changed tests in full mode ran in call 3.)
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz; chmod +x bin/*
date -u > $W/date.txt
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1
(cd cuda && timeout 330 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run 'GPU|Span' > $W/suite.txt 2>&1); rc=$?; echo "suite rc=$rc"
echo "== suite"; grep -E "^(--- |ok|PASS|FAIL)" $W/suite.txt | grep -v "^--- PASS" | head -5; grep -c "^--- PASS" $W/suite.txt; grep -m3 "_test.go" $W/suite.txt | cut -c1-230
tar czf $OUT/tests.tgz -C $W .
if [ $rc = 0 ]; then
  P=$(mktemp -d)
  timeout 200 bin/softmax-bench -commit "$1" -out $P/ours.json > $P/ours.log 2>&1; echo ours rc=$?
  cp $W/smi.txt $P/smi.txt
  tar czf $OUT/ours.tgz -C $P .
  timeout 200 python3 bench/torch_bench.py --out $P/torch.json > $P/torch.log 2>&1; echo torch rc=$?
  date -u >> $W/date.txt; cp $W/date.txt $P/date.txt
  tar czf $OUT/ours.tgz -C $P .
  tail -n 2 $P/ours.log $P/torch.log
  S=1024x50257,512x32001,8192x1000,65536x77,64x12x197x197,16x12x577x577,1048576x10,131072x33,16384x1025,32768x300,4x3000001,1x1000
  timeout 80 bin/softmax-bench -graph=false -shapes $S -commit "$1" -out $W/odd-ours.json > $W/odd-ours.log 2>&1; echo "odd ours rc=$?"
  timeout 80 python3 bench/torch_bench.py --shapes $S --out $W/odd-torch.json > $W/odd-torch.log 2>&1; echo "odd torch rc=$?"
  grep -h "failed checks" $W/odd-ours.log
fi
date -u >> $W/date.txt
tar czf $OUT/tests.tgz -C $W .
cat $W/date.txt
