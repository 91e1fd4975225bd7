#!/bin/bash
# session 36 call 7: the split tier's tests in full mode on a1bb911's binary
set -u
cd "$(dirname "$0")/.."
W=$(mktemp -d)
xz -d -f bin/cuda.test.xz; chmod +x bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 420 ../bin/cuda.test -test.run 'GPUSplit' -test.v -test.count=1 > $W/split-full.txt 2>&1; echo split rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call7.tgz -C $W .
grep -E '^(--- |ok|FAIL|PASS)' $W/split-full.txt | head
