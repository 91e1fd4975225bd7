#!/bin/bash
# session 35 call 2: the one-row kernel's occupancy and time against a plain kernel (entry 54's probe, on the committed fatbin), then the full run
set -u
cd "$(dirname "$0")/.."
mkdir -p $OUT
chmod +x bin/bw6
timeout 60 bin/bw6 cukernels/softmax.fatbin > /tmp/bw6.txt 2>&1; echo "rc $?" >> /tmp/bw6.txt
cat /tmp/bw6.txt | tail -8
OUT=/tmp/runout bash scripts/h200-run.sh "$1"; rc=$?
cp /tmp/runout/run.tgz $OUT/run.tgz; cp /tmp/bw6.txt $OUT/bw6.txt
exit $rc
