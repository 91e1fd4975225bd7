#!/usr/bin/env bash
# cuda-gpu-test.sh runs the `cu` test binaries on a machine with a GPU: the
# whole suite, then compute-sanitizer memcheck and racecheck over its short
# form. Build the binaries first, where the toolchain is:
#
#   eval "$(bash scripts/cuda-sdk.sh)"
#   go test -c -tags cu -o bin/cuda.test ./cuda
#   bash scripts/cuda-gpu-test.sh [LOGDIR]      (on the GPU machine)
#
# Logs go to LOGDIR (default $OUT, or bin/gpu-logs); a short summary is
# printed last. The exit status is non-zero if anything failed.
# GPU_TEST_SKIP=PATTERN skips those tests in the suite and memcheck,
# GPU_TEST_SHORT=1 runs the suite in its short form, GPU_TEST_TIMEOUT and
# GPU_TEST_MEMCHECK_TIMEOUT set the suite's and memcheck's limits in
# seconds (540 each by default: at af2dfae the full suite ran past 200 and
# memcheck past 240 on the H200, GPU entry 95), and GPU_TEST_MEMCHECK=0
# and GPU_TEST_RACECHECK=0 leave memcheck and racecheck out. The three
# steps together do not fit one device call (600 s): give each call one
# of them (scripts/h200-run.sh runs the short form alone: 258 s on the
# H200 at af2dfae).
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
logs=${1:-${OUT:-$repo/bin/gpu-logs}}
mkdir -p "$logs"
bin=$repo/bin/cuda.test
status=0
summary=()

step() { # name timeout command...
	local name=$1 limit=$2
	shift 2
	local t0=$SECONDS
	timeout "$limit" "$@" >"$logs/$name.log" 2>&1
	local rc=$?
	[ $rc -ne 0 ] && status=1
	summary+=("$(printf '%-10s rc=%-3s %4ss  %s' "$name" "$rc" "$((SECONDS - t0))" "$(grep -E '^(ok|FAIL|PASS)|ERROR SUMMARY|RACECHECK SUMMARY' "$logs/$name.log" | tr '\n' ' ' | cut -c1-150)")")
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$logs/gpu.txt" 2>&1
skip=()
[ -n "${GPU_TEST_SKIP:-}" ] && skip=(-test.skip "$GPU_TEST_SKIP")
short=()
[ "${GPU_TEST_SHORT:-0}" = 1 ] && short=(-test.short)
step tests "${GPU_TEST_TIMEOUT:-540}" "$bin" -test.v -test.count=1 "${short[@]}" -test.run GPU "${skip[@]}"
# Memcheck runs the test buffers without their guards (GPU_TEST_GUARD=0):
# a read past a buffer's last element then leaves its allocation.
if [ "${GPU_TEST_MEMCHECK:-1}" != 0 ]; then
	step memcheck "${GPU_TEST_MEMCHECK_TIMEOUT:-540}" env GPU_TEST_GUARD=0 compute-sanitizer --tool memcheck --error-exitcode 9 "$bin" -test.short -test.count=1 -test.run GPU "${skip[@]}"
fi
if [ "${GPU_TEST_RACECHECK:-1}" != 0 ]; then
	step racecheck 240 compute-sanitizer --tool racecheck --error-exitcode 9 "$bin" -test.short -test.count=1 -test.run 'GPU(TierBoundaries|SharedMemoryBoundary|Split|Cluster|Grid|Staged)'
fi

echo "== failures (first 30) =="
grep -hE -- '--- FAIL|cuda_test.go:[0-9]+:' "$logs/tests.log" | head -30 | cut -c1-400
grep -shE '^=+ (ERROR|Invalid|Race)' "$logs/memcheck.log" "$logs/racecheck.log" | sort | uniq -c | head -10
echo "== summary $(date -u +%FT%TZ) $(cat "$logs/gpu.txt") =="
printf '%s\n' "${summary[@]}"
exit $status
