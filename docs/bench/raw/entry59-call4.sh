#!/bin/bash
# session 37 call 4: tiny scales after gpu.KernelScale and make_expo's lo floor; a probe of huge scales
# (TestGPUHugeScaleProbe, a scratch test not in the history); the suite's short form (entry 59)
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/cuda.test.xz; chmod +x bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 120 ../bin/cuda.test -test.run 'GPUTinyScale' -test.v -test.count=1 > $W/tiny.txt 2>&1; echo tiny rc=$?)
(cd cuda && timeout 150 ../bin/cuda.test -test.run 'GPUHugeScaleProbe' -test.v -test.count=1 > $W/huge.txt 2>&1; echo huge rc=$?)
(cd cuda && timeout 200 ../bin/cuda.test -test.short -test.count=1 > $W/suite-short.txt 2>&1; echo suite-short rc=$?)
date -u >> $W/date.txt
tar czf $OUT/call4.tgz -C $W .
grep -E "^(--- |ok|PASS|FAIL)" $W/tiny.txt | head -3; grep -E "^(--- |ok|PASS|FAIL)" $W/huge.txt | head -3; grep -c "^    " $W/huge.txt
grep "^    " $W/huge.txt | sed -E 's/.*rows([0-9x]+)\/(v[0-9]) (\w+) tier=(\w+).*log=(\w+) scale=([0-9e.+-]+).*(forward|backward): ([0-9]+ of [0-9]+).*/\3 \4 log=\5 s=\6 \7/' | sort | uniq -c | sort -rn | head -40
grep -m3 "^    " $W/huge.txt | cut -c1-400; tail -3 $W/suite-short.txt
