package main

// The cases and byte counts, shared with bench/torch_bench.py: the same
// shapes, ops per shape, byte counts and buffer rotation, so that
// cmd/bench-merge can join the two runs row by row. No GPU code here: the
// default build tests it.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gosoftmax/softmax/internal/benchfmt"
)

// Shapes of issue 6, in its order (torch_bench.py's SHAPES).
var allShapes = func() [][]int {
	s := [][]int{{128, 1024}}
	for _, c := range []int{1024, 2048, 4096, 8192} {
		s = append(s, []int{2048, c})
	}
	for _, c := range []int{16384, 32768, 65536, 114688, 262144, 1048576, 8388608, 33554432} {
		s = append(s, []int{4, c})
	}
	s = append(s, []int{65536, 128}, []int{32768, 512}, []int{16384, 2048}, []int{8192, 4096},
		[]int{1024, 32000}, []int{256, 128256}, []int{1, 1048576})
	return append(s, []int{16, 16, 2048, 2048})
}()

// quickShapes is torch_bench.py's QUICK_SHAPES.
var quickShapes = [][]int{{128, 1024}, {2048, 4096}, {4, 1048576}, {8192, 4096}, {2, 4, 512, 512}}

var allDtypes = []string{"float32", "float16", "bfloat16"}

// knownDtypes are the dtypes -dtypes takes: float64 too, which issue 6
// does not judge (PyTorch's script has none), left out of the default.
var knownDtypes = append(slices.Clone(allDtypes), "float64")

var elemSize = map[string]int{"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8}

var (
	ops2D  = []string{"softmax", "log_softmax", "masked_softmax", "softmax_backward", "log_softmax_backward"}
	ops4D  = []string{"softmax", "causal_softmax", "softmax_backward", "log_softmax_backward"}
	allOps = []string{"softmax", "log_softmax", "masked_softmax", "causal_softmax", "softmax_backward", "log_softmax_backward"}
)

// keepDensity is the fraction of mask entries that keep their element.
const keepDensity = 0.9

// opsFor returns the ops run on a shape: the 4-D causal attention scores
// get softmax, causal softmax and the two backwards; 2-D shapes the rest.
func opsFor(shape []int) []string {
	if len(shape) == 4 {
		return ops4D
	}
	return ops2D
}

func numel(shape []int) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= int64(d)
	}
	return n
}

func isBackward(op string) bool { return strings.HasSuffix(op, "_backward") }

// opBytes counts one call's bytes, reads plus writes: forward 2*n*es,
// masked plus the 1-byte mask per element, causal 2*n*es (its mask is
// computed in the kernel), backward 3*n*es (y and dy read, dx written).
func opBytes(op string, shape []int, dtype string) (int64, error) {
	n, es := numel(shape), int64(elemSize[dtype])
	if es == 0 {
		return 0, fmt.Errorf("unknown dtype %q", dtype)
	}
	switch op {
	case "softmax", "log_softmax", "causal_softmax":
		return 2 * n * es, nil
	case "masked_softmax":
		return 2*n*es + n, nil
	case "softmax_backward", "log_softmax_backward":
		return 3 * n * es, nil
	}
	return 0, fmt.Errorf("unknown op %q", op)
}

// numBufs is the number of buffer sets to rotate among: 1 when one set is
// at least 3x the L2, else enough that together they exceed it
// (floor(3*L2/bytes)+1, at most 4096).
func numBufs(setBytes, l2 int64) int {
	if setBytes >= 3*l2 {
		return 1
	}
	return int(min(4096, 3*l2/setBytes+1))
}

// parseShapes reads "128x1024,16x16x2048x2048".
func parseShapes(s string) ([][]int, error) {
	var out [][]int
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		var shape []int
		n := 1
		for _, f := range strings.Split(part, "x") {
			d, err := strconv.Atoi(f)
			if err != nil || d <= 0 || n > (1<<40)/d {
				return nil, fmt.Errorf("bad shape %q (positive dimensions, at most 2^40 elements)", part)
			}
			n *= d
			shape = append(shape, d)
		}
		out = append(out, shape)
	}
	return out, nil
}

// parseList reads a comma-separated list and checks each entry is known.
func parseList(s string, known []string, what string) ([]string, error) {
	if s == "" {
		return known, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		ok := false
		for _, k := range known {
			ok = ok || f == k
		}
		if !ok {
			return nil, fmt.Errorf("unknown %s %q (want one of %s)", what, f, strings.Join(known, ","))
		}
		out = append(out, f)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// Record is one timed case (internal/benchfmt has the schema).
type Record = benchfmt.Record

// Skipped is a case not run, and why.
type Skipped struct {
	Op     string `json:"op"`
	Dtype  string `json:"dtype"`
	Shape  []int  `json:"shape"`
	Reason string `json:"reason"`
}

// Doc is the JSON file: the header bench-merge reads (device, copy_gbs,
// date, commit, records) and what else says how it was made.
type Doc struct {
	Impl      string    `json:"impl"`
	Device    string    `json:"device"`
	CopyGBs   float64   `json:"copy_gbs"`
	CopyBytes int64     `json:"copy_bytes"`
	Date      string    `json:"date"`
	Commit    string    `json:"commit"`
	L2Bytes   int       `json:"l2_bytes"`
	SMs       int       `json:"sms"`
	Method    string    `json:"method"`
	Quick     bool      `json:"quick"`
	Seconds   float64   `json:"seconds,omitempty"`
	Records   []Record  `json:"records"`
	Skipped   []Skipped `json:"skipped"`
	Failed    []string  `json:"failed_checks,omitempty"`
}

func round(v float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	if v >= 0 {
		return float64(int64(v*p+0.5)) / p
	}
	return -float64(int64(-v*p+0.5)) / p
}

// makeRecord fills the derived figures: GB/s from bytes over the median,
// and its percentage of the copy bandwidth.
func makeRecord(impl, op, dtype string, shape []int, medianUS float64, bytes int64, bufs int, copyGBs float64, runs int, note string) Record {
	gbs := float64(bytes) / medianUS / 1e3
	r := Record{Impl: impl, Op: op, Dtype: dtype, Shape: shape, MedianUS: round(medianUS, 4), GBs: round(gbs, 3),
		Bytes: bytes, Bufs: bufs, Runs: runs, Note: note}
	if copyGBs > 0 {
		r.PctCopy = round(100*gbs/copyGBs, 3)
	}
	return r
}
