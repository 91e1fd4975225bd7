#!/bin/bash
# Branch s57-hybrid, at the commit given (binaries built there; $2 the
# part, 1 or 2): fetch_tail only in the forward's shifted pipelined
# kernels, the backward's only where the rows end on a pack
# (pipeShiftFits). Part 1: memcheck without the test guards over the
# short form of the tests that take those kernels (0 errors wanted), the
# same tests in full mode. Part 2: the shapes of GPU entry 92's
# s55-pipe-end table, two rounds (compare raw/s57-both-*-rule-* on main,
# pipe-end, and raw/s55-call3-*, fetch_tail): the hybrid should match
# pipe-end's backward and fetch_tail's forward. Outputs archived in one
# file ($OUT holds at most 8 files).
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u >> $W/date-$2.txt
if [ "$2" = 1 ]; then
  T='TestGPUShifted|TestGPUCluster$|TestGPUPipeDispatch|TestGPUPacked|TestGPUCGrid$'
  (cd cuda && GPU_TEST_GUARD=0 timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run "$T" > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
  grep -v "^=========     " $W/memcheck.txt | head -12; tail -n 1 $W/memcheck.txt
  (cd cuda && timeout 250 ../bin/cuda.test -test.count=1 -test.v -test.run "$T|TestGPUDispatch$" > $W/tests.txt 2>&1; echo "tests rc=$?")
  grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -10; grep -m8 "_test.go" $W/tests.txt | cut -c1-300
else
  for r in 1 2; do
    timeout 60 bin/softmax-bench -graph=false -shapes 16384x1025,16384x1100,32768x300,64x12x197x197 -dtypes float16,bfloat16 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/hbwd-rule-$r.json > $W/hbwd-rule-$r.log 2>&1; echo "hbwd $r rc=$?"
    timeout 60 bin/softmax-bench -graph=false -shapes 16x12x577x577,32768x300,64x12x197x197 -dtypes float16,bfloat16 -ops softmax,log_softmax -commit "$1" -out $W/hfwd-rule-$r.json > $W/hfwd-rule-$r.log 2>&1; echo "hfwd $r rc=$?"
    timeout 60 bin/softmax-bench -graph=false -shapes 32768x300,64x12x197x197,32768x256 -dtypes float32 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/fbwd-rule-$r.json > $W/fbwd-rule-$r.log 2>&1; echo "fbwd $r rc=$?"
  done
  grep -h "failed checks" $W/*.log | sort | uniq -c
fi
date -u >> $W/date-$2.txt
tar czf $OUT/w-$2.tgz -C $W . && rm -rf $W
