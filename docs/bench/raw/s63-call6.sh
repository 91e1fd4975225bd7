#!/bin/bash
# Session 63 call 6, at the commit given (session 63's last code commit:
# the batched strided kernel's eligibility in one check,
# gpu.StridedBatchKernels): TestGPUStridedBatch in full, memcheck over
# it, then the whole suite in short form (no memcheck, no racecheck).
# One archive.
set -u
cd "$(dirname "$0")/../../.."
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv > $W/smi.txt 2>&1; cat $W/smi.txt
xz -d -f bin/cuda.test.xz 2>/dev/null; chmod +x bin/*
date -u > $W/date.txt
(cd cuda && timeout 90 ../bin/cuda.test -test.count=1 -test.v -test.run 'TestGPUStridedBatch$' > $W/tests-batch.txt 2>&1; echo "batch test rc=$?")
grep -hE "^(--- |ok|PASS|FAIL)" $W/tests-batch.txt | head -4; grep -hm8 "_test.go" $W/tests-batch.txt | cut -c1-300
(cd cuda && GPU_TEST_GUARD=0 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 ../bin/cuda.test -test.short -test.count=1 -test.run 'TestGPUStridedBatch$' > $W/memcheck.txt 2>&1; echo "memcheck rc=$?")
tail -n 1 $W/memcheck.txt
tar czf $OUT/s63-call6.tgz -C $W .
GPU_TEST_SHORT=1 GPU_TEST_MEMCHECK=0 GPU_TEST_RACECHECK=0 GPU_TEST_TIMEOUT=330 bash scripts/cuda-gpu-test.sh $W/suite > $W/suite.txt 2>&1; echo "suite rc=$?"; tail -n 4 $W/suite.txt
grep -E "^--- FAIL" $W/suite/tests.log | head
date -u >> $W/date.txt
tar czf $OUT/s63-call6.tgz -C $W .
