#!/bin/bash
# session 52 call 2 (GPU entry 87): shapes outside the issue's list, as
# users meet them: vocabularies (50257, 32001), class counts (1000, 10),
# sequence lengths that are not multiples of a pack (77, 197, 577, 33,
# 300), a tier boundary plus one (1025), one odd long row set (4x3000001)
# and a launch-bound 1x1000. Ours (HEAD's binary, every op, three types,
# outputs checked) and PyTorch's on the same shapes in the same call.
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/*.xz 2>/dev/null; chmod +x bin/softmax-bench
date -u > $W/date.txt
S=1024x50257,512x32001,8192x1000,65536x77,64x12x197x197,16x12x577x577,1048576x10,131072x33,16384x1025,32768x300,4x3000001,1x1000
timeout 240 bin/softmax-bench -graph=false -shapes $S -commit "$1" -out $W/ours.json > $W/ours.log 2>&1; echo ours rc=$?
tar czf $OUT/odd.tgz -C $W .
timeout 240 python3 bench/torch_bench.py --shapes $S --out $W/torch.json > $W/torch.log 2>&1; echo torch rc=$?
date -u >> $W/date.txt
tar czf $OUT/odd.tgz -C $W .
tail -n 3 $W/ours.log $W/torch.log
cat $W/date.txt
