#!/bin/bash
# session 44 call 4: 511d0c5's test binary: the whole GPU suite in its short
# form, then memcheck over it, then racecheck over the split and grid
# tiers' short tests in what time is left
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/cuda.test.xz; chmod +x bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 120 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run GPU > $W/suite.txt 2>&1; echo suite rc=$?)
date -u >> $W/date.txt
tar czf $OUT/san.tgz -C $W .
(cd cuda && timeout 230 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run GPU > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/san.tgz -C $W .
rem=$((400 - SECONDS)); echo "racecheck gets ${rem}s"
(cd cuda && timeout $rem compute-sanitizer --tool racecheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'GPU(SplitFused|Split)$' > $W/racecheck.txt 2>&1; echo racecheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/san.tgz -C $W .
grep -E "^(--- FAIL|ok|PASS|FAIL)" $W/suite.txt | head; grep -c -- "--- PASS" $W/suite.txt; grep -c -- "--- SKIP" $W/suite.txt
grep -E "^(--- FAIL|ok|PASS|FAIL)" $W/memcheck.txt | head; tail -n 2 $W/memcheck.txt | cut -c1-200
grep -E "^(--- |ok|PASS|FAIL)" $W/racecheck.txt | head; tail -n 2 $W/racecheck.txt | cut -c1-200
cat $W/date.txt
