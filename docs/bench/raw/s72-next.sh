#!/bin/bash
# Session 72's call for a later session, at the commit given (bin/: the
# code of 7560116, the sm_90 cubins of its fatbins embedded; its kernels
# are those of b9b3c9f). On an H200: scripts/h200-run.sh, the full run of
# issue 6, the first of entries 102-111's code on the card the issue
# judges. On any other card it stops at once: entry 111 ran the same run
# on an H100, and the lead that s71-call1.sh ran there is closed.
set -u
cd "$(dirname "$0")/../../.."
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  bash scripts/h200-run.sh "$1"
else
  nvidia-smi --query-gpu=name --format=csv,noheader
  echo "not an H200: nothing run"
  exit 3
fi
