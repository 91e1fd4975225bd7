#!/bin/bash
# session 39 call 2: on the embedded kernels (57e4ddf's), TestGPUExtremeValues
# in full mode with scale 1e-30 added, and a scratch probe of rows spanning
# past float32's range at scales 1e-36 to 1e-38 (entry61-call2-probe_test.go.txt);
# on an sm_90 build of the grid tiers' fold summed in the compute type (f),
# the grid, cgrid and extreme-value tests' short form; then A/B of sm_90
# builds of 57e4ddf's kernels (base) and of f on tiers 7 and 8's forward
# shapes, three rounds
set -u
cd "$(dirname "$0")/../../.."
W=$(mktemp -d)
xz -d -f bin/softmax-bench.xz bin/cuda.test.xz; chmod +x bin/softmax-bench bin/cuda.test
date -u > $W/date.txt
(cd cuda && timeout 120 ../bin/cuda.test -test.run 'GPUExtremeValues$' -test.v -test.count=1 > $W/extreme.txt 2>&1; echo extreme rc=$?)
(cd cuda && timeout 60 ../bin/cuda.test -test.run 'ProbeTinySpan$' -test.v -test.count=1 > $W/probe.txt 2>&1; echo probe rc=$?)
date -u >> $W/date.txt
(cd cuda && timeout 120 ../bin/cuda.test -fatbin ../bin/f.fatbin -test.short -test.run 'GPU(Grid|CGrid|CGridBalance|ExtremeValues)$' -test.v -test.count=1 > $W/tests-f.txt 2>&1; echo tests-f rc=$?)
date -u >> $W/date.txt
S=4x16384,4x32768,4x65536,4x114688,4x262144,4x1048576,1x1048576,1024x32000,256x128256
for r in 1 2 3; do for v in base f; do
  timeout 60 bin/softmax-bench -fatbin bin/$v.fatbin -shapes $S -ops softmax,log_softmax,masked_softmax -graph=false -out $W/ab-$v-$r.json > $W/ab-$v-$r.txt 2>&1
  echo "$v $r rc=$?"
done; done
date -u >> $W/date.txt
tar czf $OUT/call2.tgz -C $W .
for f in $W/extreme.txt $W/probe.txt $W/tests-f.txt; do echo "== $(basename $f)"; grep -E "^(--- |ok|PASS|FAIL)" $f; grep -c "^    " $f; grep -m4 "^    " $f | cut -c1-300; done
cat $W/date.txt
