#!/bin/bash
# session 42 call 3: the published run at the commit given (h200-run.sh:
# the benchmark, PyTorch's, the suite but the split tier's tests, memcheck
# over its short form), then TestGPUSplit and TestGPUSplitPieces in full
# mode (TestGPUSplitFused passed on these kernels in call 2)
set -u
cd "$(dirname "$0")/../../.."
bash scripts/h200-run.sh "$1"; echo "h200-run rc=$?"
W=$(mktemp -d)
date -u > $W/date.txt
(cd cuda && timeout 120 ../bin/cuda.test -test.v -test.count=1 -test.run 'GPUSplit(Pieces)?$' > $W/split.txt 2>&1; echo split rc=$?)
date -u >> $W/date.txt
tar czf $OUT/split.tgz -C $W .
grep -E "^(--- |ok|PASS|FAIL)" $W/split.txt; grep -m5 "_test.go" $W/split.txt | cut -c1-300
cat $W/date.txt
