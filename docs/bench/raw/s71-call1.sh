#!/bin/bash
# Session 71 call 1, at the commit given (bin/: 02a6808's binaries with the
# sm_90 cubins of its fatbins embedded, and session 70's va/vb cubins). On
# an H200: scripts/h200-run.sh, the full run of issue 6 (the published
# figures stand at af2dfae; entries 102-109 have not run on an H200). On
# any other card: raw/s70-call2.sh, the batched strided kernel at more
# blocks an SM (entry 109's lead).
set -u
cd "$(dirname "$0")/../../.."
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  bash scripts/h200-run.sh "$1"
else
  bash docs/bench/raw/s70-call2.sh "$1"
fi
