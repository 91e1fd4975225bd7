#!/bin/bash
# session 43 call 3: the final kernels (3f9df2e's) under compute-sanitizer:
# memcheck over the whole suite's short form, the split tier's tests too,
# then racecheck over the split and grid tiers' short tests in what time
# is left
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/cuda.test.xz; chmod +x bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 270 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run GPU > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/san.tgz -C $W .
rem=$((365 - SECONDS)); echo "racecheck gets ${rem}s"
(cd cuda && timeout $rem compute-sanitizer --tool racecheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'GPU(Split|SplitFused|Grid|CGrid)$' > $W/racecheck.txt 2>&1; echo racecheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/san.tgz -C $W .
grep -E "^(--- FAIL|ok|PASS|FAIL)" $W/memcheck.txt | head; tail -n 2 $W/memcheck.txt | cut -c1-200
grep -E "^(--- |ok|PASS|FAIL)" $W/racecheck.txt | head; tail -n 2 $W/racecheck.txt | cut -c1-200
cat $W/date.txt
