package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gosoftmax/softmax/internal/benchfmt"
)

// h200L2 is the H200's L2 as PyTorch reports it (props.L2_cache_size).
const h200L2 = 62914560

// The cases, byte counts and buffer counts must be torch_bench.py's, or
// bench-merge refuses the pair. testdata/torch_cases.txt is its output for
// the H200's L2 (dtype, shape, op, bytes, bufs per line), made with
//
//	cd bench && python3 -c 'import torch_bench as t
//	for dt in t.DTYPES:
//	  for s in t.SHAPES:
//	    for op in t.ops_for(s):
//	      b = t.op_bytes(op, s, dt); print(dt, t.shape_str(s), op, b, t.num_bufs(b, 62914560))'
func TestCasesMatchTorchBench(t *testing.T) {
	want, err := os.ReadFile("testdata/torch_cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, dt := range allDtypes {
		for _, s := range allShapes {
			for _, op := range opsFor(s) {
				b, err := opBytes(op, s, dt)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&got, "%s %s %s %d %d\n", dt, benchfmt.ShapeString(s), op, b, numBufs(b, h200L2))
			}
		}
	}
	if got.String() != string(want) {
		g, w := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("line %d: got %q, torch_bench.py gives %q", i+1, g[i], w[i])
			}
		}
		t.Fatalf("got %d lines, torch_bench.py gives %d", len(g), len(w))
	}
}

func TestParse(t *testing.T) {
	s, err := parseShapes("128x1024,16x16x2048x2048")
	if err != nil || len(s) != 2 || benchfmt.ShapeString(s[1]) != "16x16x2048x2048" {
		t.Errorf("parseShapes = %v, %v", s, err)
	}
	for _, bad := range []string{"128x", "0x4", "axb"} {
		if _, err := parseShapes(bad); err == nil {
			t.Errorf("parseShapes(%q) gave no error", bad)
		}
	}
	if l, err := parseList("float16,float32", allDtypes, "dtype"); err != nil || len(l) != 2 {
		t.Errorf("parseList = %v, %v", l, err)
	}
	if _, err := parseList("float64", allDtypes, "dtype"); err == nil {
		t.Error("parseList accepted float64")
	}
	if l, _ := parseList("", allOps, "op"); len(l) != len(allOps) {
		t.Errorf("empty list gave %v", l)
	}
}

func TestRecord(t *testing.T) {
	r := makeRecord("gosoftmax", "softmax", "float32", []int{2, 3}, 2, 4000, 1, 4000, 100, "")
	if r.GBs != 2 || r.PctCopy != 0.05 {
		t.Errorf("record %+v: want 2 GB/s, 0.05%% of copy", r)
	}
}
