#!/bin/bash
# session 55 call 2: binaries built at the commit given ($1), with the
# buffer's last pack of the shifted pipelined kernels copied a byte at a
# time (memcheck in call 1 found the cp.async of the last row's part pack
# read as 16 bytes past the buffer's end) and entry 90's rules (K = 4 for
# rows of 17 to 128 packs: the half types both ways, float32 backward from
# 33 packs; no packed kernel past 2048 packs). First memcheck without the
# test guards over the tests that take those kernels and rules, then the
# same tests in full mode, then the rules against the old ones (K = 2:
# SOFTMAX_ROWS_K=2) at lengths call 1 did not measure, and the half
# types' backward at 129-256 packs (K = 4, 2, 1), two rounds alternated.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
T='TestGPUShifted|TestGPUCluster$|TestGPUPipeDispatch|TestGPUPacked'
(cd cuda && GPU_TEST_GUARD=0 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run "$T" > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $W/memcheck.txt | head -12; tail -n 2 $W/memcheck.txt
tar czf $OUT/c2.tgz -C $W .
(cd cuda && timeout 200 ../bin/cuda.test -test.count=1 -test.v -test.run "$T" > $W/tests.txt 2>&1; echo "tests rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/tests.txt | head -6; grep -m5 "_test.go" $W/tests.txt | cut -c1-300
tar czf $OUT/c2.tgz -C $W .
for r in 1 2; do
  for v in rule k2; do
    E=""; [ $v = k2 ] && E="SOFTMAX_ROWS_K=2"
    env $E timeout 60 bin/softmax-bench -graph=false -shapes 65536x136,32768x256,16384x512,16384x800,16384x1024,32768x300,16x12x577x577 -dtypes float16,bfloat16 -ops softmax,log_softmax -commit "$1" -out $W/hfwd-$v-$r.json > $W/hfwd-$v-$r.log 2>&1; echo "hfwd $v $r rc=$?"
    env $E timeout 60 bin/softmax-bench -graph=false -shapes 32768x136,32768x256,16384x512,16384x520,32768x300 -dtypes float32 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/fbwd-$v-$r.json > $W/fbwd-$v-$r.log 2>&1; echo "fbwd $v $r rc=$?"
  done
  for v in rule k2 k1; do
    E=""
    case $v in k2) E="SOFTMAX_ROWS_K=2";; k1) E="SOFTMAX_ROWS_K=1";; esac
    env $E timeout 60 bin/softmax-bench -graph=false -shapes 65536x136,32768x256,16384x1025,16384x1100,8192x1536,16384x2048 -dtypes float16,bfloat16 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/hbwd-$v-$r.json > $W/hbwd-$v-$r.log 2>&1; echo "hbwd $v $r rc=$?"
  done
  tar czf $OUT/c2.tgz -C $W .
done
grep -h "failed checks" $W/*.log | sort | uniq -c
date -u >> $W/date.txt
tar czf $OUT/c2.tgz -C $W .
cat $W/date.txt
# Tables: go run ./cmd/bench-ab -dir DIR -prefix hfwd -variants rule,k2
# (fbwd: rule,k2; hbwd: rule,k2,k1).
