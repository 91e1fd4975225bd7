#!/usr/bin/env bash
# h200-run.sh is the full run of issue 6 on the GPU machine: the benchmark
# (ours, then PyTorch's), then cuda-gpu-test.sh's suite in its short form,
# without memcheck and racecheck (the full suite and memcheck ran past their
# limits at af2dfae: GPU entry 95; run them in a call of their own).
# Everything it writes goes into one archive,
# $OUT/run.tgz, since the device returns at most 8 files from $OUT (a run
# that left its 16 files loose came back without its benchmark JSON:
# docs/PERFORMANCE.md GPU entry 54). Build the binaries here first; xz
# keeps them inside the 64 MiB a call may carry:
#
#   eval "$(bash scripts/cuda-sdk.sh)"
#   go build -tags cu -o bin/softmax-bench ./cmd/softmax-bench
#   go test -c -tags cu -o bin/cuda.test ./cuda
#   xz -f bin/softmax-bench bin/cuda.test
#   bash scripts/h200-run.sh COMMIT          (on the GPU machine, carry bin)
#
# Give the call its full 600 s and nothing else to do: the whole run took
# 560 s at af2dfae (the benchmark about 80 s, PyTorch's 40, the tests the
# rest).
#
# Then, here: tar xzf run.tgz, and merge with
# `go run ./cmd/bench-merge -ours ours.json -torch torch.json -out docs/bench`.
# The exit status is non-zero if a step failed; the archive is written
# either way.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
commit=${1:?usage: h200-run.sh COMMIT}
out=${OUT:-$repo/bin/run-out}
work=$(mktemp -d)
bin=$repo/bin
status=0

for f in "$bin"/softmax-bench.xz "$bin"/cuda.test.xz; do
	[ -f "$f" ] && xz -d -f "$f"
done
chmod +x "$bin/softmax-bench" "$bin/cuda.test" || status=1

# pack rewrites the archive after each step, so a call cut off at its
# limit still returns the steps that finished.
mkdir -p "$out"
pack() { tar czf "$out/run.tgz" -C "$work" . || status=1; }

date -u >"$work/date.txt"
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv >"$work/smi.txt" 2>&1
timeout 240 "$bin/softmax-bench" -commit "$commit" -out "$work/ours.json" >"$work/ours.log" 2>&1 || status=1
pack
timeout 200 python3 "$repo/bench/torch_bench.py" --out "$work/torch.json" >"$work/torch.log" 2>&1 || status=1
pack
(cd "$repo/cuda" && GPU_TEST_SHORT=1 GPU_TEST_TIMEOUT=330 GPU_TEST_MEMCHECK=0 GPU_TEST_RACECHECK=0 bash "$repo/scripts/cuda-gpu-test.sh" "$work" >"$work/summary.txt" 2>&1) || status=1
date -u >>"$work/date.txt"
pack
tail -n 2 "$work/ours.log" "$work/torch.log"
cat "$work/summary.txt"
rm -rf "$work"
exit $status
