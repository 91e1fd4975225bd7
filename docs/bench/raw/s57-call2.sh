#!/bin/bash
# Session 57 call 2, at the commit given (binaries built there): memcheck
# without the test guards over TestGPUCGrid's short form (tier 8's
# shifted kernels, the forced cluster sizes that leave a share empty,
# which session 56's call did not reach), then raw/s55-call4.sh: the GPU
# suite's short form, the published run, the twelve shapes off the
# issue's list. (raw/s57-call1.sh, memcheck and full mode of the changed
# tests, was refused a device three times; this call replaces it.)
set -u
cd "$(dirname "$0")/../../.."
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench bin/cuda.test
(cd cuda && GPU_TEST_GUARD=0 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUCGrid$' > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?")
grep -v "^=========     " $OUT/memcheck.txt | head -8; tail -n 1 $OUT/memcheck.txt
bash docs/bench/raw/s55-call4.sh "$1"
