// Package benchfmt is the record schema of the H200 benchmark files:
// cmd/softmax-bench writes it, bench/torch_bench.py writes the same keys,
// cmd/bench-merge reads both. One definition keeps writer and reader from
// drifting apart.
package benchfmt

import (
	"strconv"
	"strings"
)

// Record is one timed case.
type Record struct {
	Impl     string  `json:"impl"`
	Op       string  `json:"op"`
	Dtype    string  `json:"dtype"`
	Shape    []int   `json:"shape"`
	MedianUS float64 `json:"median_us"`
	GBs      float64 `json:"gbs"`
	PctCopy  float64 `json:"pct_copy"`
	Bytes    int64   `json:"bytes"`
	Bufs     int     `json:"bufs"`
	Runs     int     `json:"runs,omitempty"`
	Note     string  `json:"note,omitempty"`
}

// ShapeString writes a shape as the files and tables name it: "16x16x2048x2048".
func ShapeString(shape []int) string {
	p := make([]string, len(shape))
	for i, d := range shape {
		p[i] = strconv.Itoa(d)
	}
	return strings.Join(p, "x")
}
