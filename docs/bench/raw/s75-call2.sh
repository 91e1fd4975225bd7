#!/bin/bash
# Session 75's second call, at a986ba8 (far calls on the split tier below
# as many rows as SMs, far_rows to 128 columns; the kernels are 89beb4e's):
# what call 1 left unrun. Call 1's short suite stopped at its limit in
# TestGPUSplit; here that test and the ones after it in their short form,
# then TestGPUFloat64GradSubnormals and TestGPUDispatch in full under the
# new rules. bin/cuda.test.xz is built at a986ba8. Output: $OUT/s75b.tgz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-bin/out}
work=$(mktemp -d)
mkdir -p "$out"
xz -d -f bin/cuda.test.xz && chmod +x bin/cuda.test
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$work/gpu.txt"
rest='GPU(Split|SplitPieces|SplitFused|Cluster|Grid|CGrid|CGridBalance|Dispatch|Unaligned|Concurrent|Backend|Errors)$'
timeout 150 bin/cuda.test -test.v -test.count=1 -test.short -test.run "$rest" >"$work/rest.log" 2>&1
echo "rest rc=$?" | tee -a "$work/gpu.txt"
grep -E '^(--- |ok|FAIL|PASS)' "$work/rest.log" | tail -n 16
tar czf "$out/s75b.tgz" -C "$work" .
timeout 60 bin/cuda.test -test.v -test.count=1 -test.run 'TestGPUFloat64GradSubnormals$|TestGPUDispatch$' >"$work/fix.log" 2>&1
echo "fix rc=$?" | tee -a "$work/gpu.txt"
grep -E '^(--- |ok|FAIL|PASS)' "$work/fix.log" | tail -n 4
tar czf "$out/s75b.tgz" -C "$work" .
