#!/bin/bash
# Session 73's float64 timing (GPU entry 112) at the commit given ($1), on
# any card: softmax-bench's float64 backward (softmax's and log-softmax's)
# at scale 1 and at 1e13 (past gpu.FarGrad64's bound on every shape here:
# softmax takes tier 5), on this commit's kernels and, through -fatbin, on
# 2df6e63's (bin/old-sm90.cubin: the kernels before the subnormal-term
# fix). Two rounds, the builds alternated. bin/softmax-bench embeds this
# commit's sm_90 cubins. Everything goes into $OUT/run.tgz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-bin/out}
work=$(mktemp -d)
mkdir -p "$out"
for f in bin/*.xz; do xz -d -f "$f"; done
chmod +x bin/softmax-bench
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader | tee "$work/gpu.txt"
date -u >>"$work/gpu.txt"
shapes=4096x4096,65536x128,256x128256,4x65536
for round in 1 2; do
  for build in new old; do
    fb=()
    [ "$build" = old ] && fb=(-fatbin bin/old-sm90.cubin)
    for s in 1 1e13; do
      name=$build-s$s-r$round
      timeout 100 bin/softmax-bench "${fb[@]}" -commit "$1" -dtypes float64 -ops softmax_backward,log_softmax_backward \
        -shapes $shapes -scale $s -graph=false -reps 30 -out "$work/$name.json" >"$work/$name.log" 2>&1
      echo "$name rc=$?" | tee -a "$work/gpu.txt"
      tar czf "$out/run.tgz" -C "$work" .
    done
  done
done
grep -h "_backward" "$work"/*-r2.log | head -40
date -u >>"$work/gpu.txt"
tar czf "$out/run.tgz" -C "$work" .
