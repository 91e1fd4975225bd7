# call-lib.sh: the preamble every device call script shares, sourced from
# the repository root after `set -u`: `. docs/bench/raw/call-lib.sh NAME`.
# It unpacks bin/*.xz (cuda.test and softmax-bench, built at the commit the
# call measures), records the GPU line in gpu.txt, and defines
#   pack                      the work folder into $OUT/NAME.tgz (run it
#                             after each step: a call cut off at its limit
#                             still returns the steps that finished);
#   step NAME CMD...          CMD's output into NAME.log, its rc in gpu.txt;
#   bench NAME ENV DT SHAPES OPS [FLAG...]
#                             softmax-bench (no graph timings) under ENV
#                             ("" for none) into NAME.json, with any
#                             further flags (-fatbin FILE, say).
# $commit must be set before bench runs; $gpu holds the GPU line.
callName=${1:?call-lib.sh: a name for the archive}
out=${OUT:-bin/out}
work=$(mktemp -d)
mkdir -p "$out"
for f in bin/*.xz; do xz -d -f "$f"; done
chmod +x bin/cuda.test bin/softmax-bench
gpu=$(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader)
echo "$gpu $(date -u +%FT%TZ)" | tee "$work/gpu.txt"
pack() { tar czf "$out/$callName.tgz" -C "$work" .; }
step() {
	local name=$1
	shift
	"$@" >"$work/$name.log" 2>&1
	echo "$name rc=$?" | tee -a "$work/gpu.txt"
	pack
}
bench() {
	local name=$1 env=$2 dt=$3 shapes=$4 ops=$5
	shift 5
	step "$name" env $env timeout 90 bin/softmax-bench -commit "$commit" -dtypes "$dt" -shapes "$shapes" -ops "$ops" \
		-graph=false -out "$work/$name.json" "$@"
}
