#!/usr/bin/env bash
# h200-run.sh is the full run of issue 6 on the GPU machine: the benchmark
# (ours, then PyTorch's), the `cu` suite but the split tier's tests, and
# memcheck over its short form. Everything it writes goes into one archive,
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

step() { # name timeout command...: output to $work/name.log, rc and seconds to the summary
	local name=$1 limit=$2
	shift 2
	local t0=$SECONDS
	timeout "$limit" "$@" >"$work/$name.log" 2>&1
	local rc=$?
	[ $rc -ne 0 ] && status=1
	echo "$name rc=$rc $((SECONDS - t0))s" >>"$work/summary.txt"
}

date -u >"$work/date.txt"
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.sm --format=csv >"$work/smi.txt" 2>&1
step ours 240 "$bin/softmax-bench" -commit "$commit" -out "$work/ours.json"
step torch 200 python3 "$repo/bench/torch_bench.py" --out "$work/torch.json"
step suite 200 bash -c "cd '$repo/cuda' && '$bin/cuda.test' -test.count=1 -test.run TestGPU -test.skip TestGPUSplit"
step memcheck 150 bash -c "cd '$repo/cuda' && compute-sanitizer --tool memcheck --error-exitcode 9 '$bin/cuda.test' -test.count=1 -test.run TestGPU -test.short -test.skip TestGPUSplit"
date -u >>"$work/date.txt"

mkdir -p "$out"
tar czf "$out/run.tgz" -C "$work" . || status=1
cat "$work/summary.txt"
tail -n 3 "$work/ours.log" "$work/suite.log" "$work/memcheck.log" 2>/dev/null
rm -rf "$work"
exit $status
