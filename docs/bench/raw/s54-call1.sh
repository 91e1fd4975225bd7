#!/bin/bash
# session 54 call 1: binaries built at the commit given ($1). First the
# tests session 53 could not run: TestGPUShifted and TestGPUCluster in full
# mode (their pipelined launches capped at two blocks, so groups walk
# several rows), and memcheck over their short form without the test
# guards (GPU_TEST_GUARD=0), last. Before it, knob A/Bs for the rows slowest against
# PyTorch in s53 call 3: the half types' forward at 577 and 197 columns
# (rule, SOFTMAX_ROWS_K=4, ROWS_K=4 with PIPE=0, PIPE=0, ROWS_K=1), and
# float32 backward at 300, 197 and 577 columns (rule, ROWS_K=4, PIPE=1,
# ROWS_K=4 with PIPE=1, ROWS_K=1); the half types' backward at 77 to
# 1025 columns (rule, ROWS_K=4, ROWS_K=1); the half types' packed kernels on
# long rows (rule, SOFTMAX_PACKED=0: log-softmax at 1024x32000 took the
# packed kernel at 53.6 us where softmax took the pipelined one at 40.9);
# two rounds alternated. (Written in session 54, which was lent no device:
# to be run by the next session that is.)
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 200 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUShifted|TestGPUCluster$' > $W/shifted.txt 2>&1; echo "shifted rc=$?")
grep -E "^(--- |ok|PASS|FAIL)" $W/shifted.txt | head -5; grep -m5 "_test.go" $W/shifted.txt | cut -c1-300
tar czf $OUT/c1.tgz -C $W .
H=16x12x577x577,64x12x197x197,16384x1025,32768x300
F=32768x300,64x12x197x197,16x12x577x577,8192x1000
for r in 1 2; do
  for v in rule k4 k4p0 p0 k1; do
    E=""
    case $v in k4) E="SOFTMAX_ROWS_K=4";; k4p0) E="SOFTMAX_ROWS_K=4 SOFTMAX_PIPE=0";; p0) E="SOFTMAX_PIPE=0";; k1) E="SOFTMAX_ROWS_K=1";; esac
    env $E timeout 60 bin/softmax-bench -graph=false -shapes $H -dtypes float16,bfloat16 -ops softmax,log_softmax,causal_softmax -commit "$1" -out $W/half-$v-$r.json > $W/half-$v-$r.log 2>&1; echo "half $v $r rc=$?"
  done
  for v in rule k4 p1 k4p1 k1; do
    E=""
    case $v in k4) E="SOFTMAX_ROWS_K=4";; p1) E="SOFTMAX_PIPE=1";; k4p1) E="SOFTMAX_ROWS_K=4 SOFTMAX_PIPE=1";; k1) E="SOFTMAX_ROWS_K=1";; esac
    env $E timeout 60 bin/softmax-bench -graph=false -shapes $F -dtypes float32 -ops softmax_backward,log_softmax_backward,softmax,log_softmax -commit "$1" -out $W/f32-$v-$r.json > $W/f32-$v-$r.log 2>&1; echo "f32 $v $r rc=$?"
  done
  for v in rule k4 k1; do
    E=""
    case $v in k4) E="SOFTMAX_ROWS_K=4";; k1) E="SOFTMAX_ROWS_K=1";; esac
    env $E timeout 60 bin/softmax-bench -graph=false -shapes 64x12x197x197,16384x1025,65536x77,32768x300 -dtypes float16,bfloat16 -ops softmax_backward,log_softmax_backward -commit "$1" -out $W/hbwd-$v-$r.json > $W/hbwd-$v-$r.log 2>&1; echo "hbwd $v $r rc=$?"
  done
  for v in rule pk0; do
    E=""
    [ $v = pk0 ] && E="SOFTMAX_PACKED=0"
    env $E timeout 60 bin/softmax-bench -graph=false -shapes 1024x32000,2048x16384,512x65536,4096x8192,2048x8192 -dtypes float16,bfloat16 -ops softmax,log_softmax -commit "$1" -out $W/packed-$v-$r.json > $W/packed-$v-$r.log 2>&1; echo "packed $v $r rc=$?"
  done
  tar czf $OUT/c1.tgz -C $W .
done
grep -h "failed checks" $W/*.log | sort | uniq -c
(cd cuda && GPU_TEST_GUARD=0 timeout 140 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUShifted|TestGPUCluster$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
tail -n 2 $W/memcheck.txt
tar czf $OUT/c1.tgz -C $W .
date -u >> $W/date.txt
tar czf $OUT/c1.tgz -C $W .
cat $W/date.txt
# Tables: go run ./cmd/bench-ab -dir DIR -prefix half -variants rule,k4,k4p0,p0,k1
# (f32: rule,k4,p1,k4p1,k1; hbwd: rule,k4,k1; packed: rule,pk0).
