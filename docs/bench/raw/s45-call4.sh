#!/bin/bash
# session 45 call 4: the test binary at 2a49e28 (kernels 2254869's, the
# published run's): the whole GPU suite in its short form, then memcheck
# over it. Archived as each ends.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/cuda.test.xz; chmod +x bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 200 ../bin/cuda.test -test.short -test.count=1 -test.v -test.run GPU > $W/suite.txt 2>&1; echo suite rc=$?)
date -u >> $W/date.txt
tar czf $OUT/san.tgz -C $W .
rem=$((455 - SECONDS)); echo "memcheck gets ${rem}s"
(cd cuda && timeout $rem compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run GPU > $W/memcheck.txt 2>&1; echo memcheck rc=$?)
date -u >> $W/date.txt
tar czf $OUT/san.tgz -C $W .
grep -E "^(--- FAIL|ok|PASS|FAIL)" $W/suite.txt | head; grep -c -- "--- PASS" $W/suite.txt; grep -c -- "--- SKIP" $W/suite.txt
grep -E "^(--- FAIL|ok|PASS|FAIL)" $W/memcheck.txt | head; tail -n 2 $W/memcheck.txt | cut -c1-200
cat $W/date.txt
