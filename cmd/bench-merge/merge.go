package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/gosoftmax/softmax/internal/benchfmt"
)

// Record is one timed case (internal/benchfmt has the schema).
type Record = benchfmt.Record

// Run is one benchmark process's JSON file.
type Run struct {
	Device  string   `json:"device"`
	Torch   string   `json:"torch,omitempty"`
	CopyGBs float64  `json:"copy_gbs"`
	Date    string   `json:"date"`
	Commit  string   `json:"commit,omitempty"`
	Records []Record `json:"records"`
}

// Side is one implementation's figures in a merged row.
type Side struct {
	MedianUS float64 `json:"median_us"`
	GBs      float64 `json:"gbs"`
	PctCopy  float64 `json:"pct_copy"`
	Bytes    int64   `json:"bytes"`
	Bufs     int     `json:"bufs"`
	Note     string  `json:"note,omitempty"`
}

// Row joins both implementations on (op, dtype, shape). Ratio is
// torch_us/our_us (ours faster when > 1), absent unless both sides ran.
type Row struct {
	Op     string   `json:"op"`
	Dtype  string   `json:"dtype"`
	Shape  []int    `json:"shape"`
	RowLen int      `json:"row_len"`
	Rows   int      `json:"rows"`
	Ours   *Side    `json:"ours"`
	Torch  *Side    `json:"torch"`
	Ratio  *float64 `json:"ratio"`
}

// Pick names one row and the figure it was picked for.
type Pick struct {
	Op     string  `json:"op"`
	Dtype  string  `json:"dtype"`
	Shape  []int   `json:"shape"`
	Value  float64 `json:"value"`
	Target float64 `json:"target,omitempty"`
}

// Summary holds the figures the targets are judged by.
type Summary struct {
	// WorstRatio is the lowest torch_us/our_us over all joined rows.
	WorstRatio *Pick `json:"worst_ratio"`
	// Target3Met counts joined rows at least as fast as PyTorch (0.8x
	// where PyTorch takes under 10 us) out of Target3Rows.
	Target3Met  int `json:"target3_met"`
	Target3Rows int `json:"target3_rows"`
	// WorstTarget1 is the lowest % of copy (ours) among the shapes of
	// target 1, and Target1Met of Target1Rows meet their target.
	WorstTarget1 *Pick `json:"worst_target1"`
	Target1Met   int   `json:"target1_met"`
	Target1Rows  int   `json:"target1_rows"`
	// LongRows holds ours % of copy at 4x1048576, 4x8388608 and 4x33554432.
	LongRows []Pick `json:"long_rows"`
	// Lines is the summary as text, as the Markdown file prints it.
	Lines []string `json:"lines"`
}

// Merged is docs/bench/h200.json.
type Merged struct {
	Device       string   `json:"device"`
	TorchDevice  string   `json:"torch_device"`
	Date         string   `json:"date"`
	TorchDate    string   `json:"torch_date"`
	Commit       string   `json:"commit"`
	Torch        string   `json:"torch"`
	OursCopyGBs  float64  `json:"ours_copy_gbs"`
	TorchCopyGBs float64  `json:"torch_copy_gbs"`
	Rows         []Row    `json:"rows"`
	Summary      Summary  `json:"summary"`
	Other        []Record `json:"other_records,omitempty"`
}

// Targets of issue 6.
const (
	target1Bytes     = 256e6   // input + output above 256 MB ...
	onChipRowBytes   = 2 << 20 // ... and a row that a block or a cluster of blocks can hold (2 MiB)
	target1Forward   = 90.0    // % of copy, softmax and log_softmax
	target1Other     = 85.0    // % of copy, masked, causal and backward
	target2Pct       = 60.0    // % of copy at 4x8388608 and 4x33554432 (forward and masked)
	target2L2Pct     = 85.0    // % of copy at 4x1048576
	launchBoundUS    = 10.0    // PyTorch under this: launch-bound
	launchBoundRatio = 0.8     // least ratio where launch-bound
)

// opOrder is the order of ops in the tables.
var opOrder = []string{"softmax", "log_softmax", "masked_softmax", "causal_softmax", "softmax_backward", "log_softmax_backward"}

var dtypeOrder = []string{"float32", "float16", "bfloat16"}

var elemSize = map[string]int{"float32": 4, "float16": 2, "bfloat16": 2}

func opRank(op string) int {
	for i, o := range opOrder {
		if o == op {
			return i
		}
	}
	return len(opOrder)
}

func dtypeRank(dt string) int {
	for i, d := range dtypeOrder {
		if d == dt {
			return i
		}
	}
	return len(dtypeOrder)
}

func isForward(op string) bool { return op == "softmax" || op == "log_softmax" }

func isBackward(op string) bool { return strings.HasSuffix(op, "_backward") }

func key(op, dtype string, shape []int) string {
	return op + "|" + dtype + "|" + benchfmt.ShapeString(shape)
}

func readRun(path string) (*Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Run
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, rec := range r.Records {
		if rec.Op == "" || rec.Dtype == "" || len(rec.Shape) == 0 || rec.MedianUS <= 0 {
			return nil, fmt.Errorf("%s: record %d lacks op, dtype, shape or a positive median_us", path, i)
		}
		for _, d := range rec.Shape {
			if d <= 0 {
				return nil, fmt.Errorf("%s: record %d has shape %v; every dimension must be positive", path, i, rec.Shape)
			}
		}
	}
	return &r, nil
}

func side(rec Record, copyGBs float64) *Side {
	s := &Side{MedianUS: rec.MedianUS, GBs: rec.GBs, PctCopy: rec.PctCopy, Bytes: rec.Bytes, Bufs: rec.Bufs, Note: rec.Note}
	if s.GBs == 0 && s.Bytes > 0 {
		s.GBs = float64(s.Bytes) / s.MedianUS / 1e3
	}
	if s.PctCopy == 0 && copyGBs > 0 {
		s.PctCopy = 100 * s.GBs / copyGBs
	}
	return s
}

// merge joins ours (impl "gosoftmax") and torch (impl "torch") on (op,
// dtype, shape). Records of other impls in either file are kept in Other.
func merge(ours, torch *Run) (*Merged, error) {
	m := &Merged{
		Device: ours.Device, TorchDevice: torch.Device,
		Date: ours.Date, TorchDate: torch.Date,
		Commit: ours.Commit, Torch: torch.Torch,
		OursCopyGBs: ours.CopyGBs, TorchCopyGBs: torch.CopyGBs,
	}
	rows := map[string]*Row{}
	seen := map[string]int{} // order of first appearance of each shape
	get := func(rec Record) *Row {
		k := key(rec.Op, rec.Dtype, rec.Shape)
		if r, ok := rows[k]; ok {
			return r
		}
		if _, ok := seen[benchfmt.ShapeString(rec.Shape)]; !ok {
			seen[benchfmt.ShapeString(rec.Shape)] = len(seen)
		}
		last := rec.Shape[len(rec.Shape)-1]
		r := &Row{Op: rec.Op, Dtype: rec.Dtype, Shape: rec.Shape, RowLen: last, Rows: numel(rec.Shape) / last}
		rows[k] = r
		return r
	}
	for _, rec := range ours.Records {
		if rec.Impl != "gosoftmax" {
			m.Other = append(m.Other, rec)
			continue
		}
		r := get(rec)
		if r.Ours != nil {
			return nil, fmt.Errorf("ours: duplicate record %s %s %s", rec.Op, rec.Dtype, benchfmt.ShapeString(rec.Shape))
		}
		r.Ours = side(rec, ours.CopyGBs)
	}
	for _, rec := range torch.Records {
		if rec.Impl != "torch" {
			m.Other = append(m.Other, rec)
			continue
		}
		r := get(rec)
		if r.Torch != nil {
			return nil, fmt.Errorf("torch: duplicate record %s %s %s", rec.Op, rec.Dtype, benchfmt.ShapeString(rec.Shape))
		}
		r.Torch = side(rec, torch.CopyGBs)
	}
	for _, r := range rows {
		if r.Ours != nil && r.Torch != nil {
			if r.Ours.Bytes != 0 && r.Torch.Bytes != 0 && r.Ours.Bytes != r.Torch.Bytes {
				return nil, fmt.Errorf("%s %s %s: bytes differ (ours %d, torch %d): the two counts must match",
					r.Op, r.Dtype, benchfmt.ShapeString(r.Shape), r.Ours.Bytes, r.Torch.Bytes)
			}
			q := r.Torch.MedianUS / r.Ours.MedianUS
			r.Ratio = &q
		}
		m.Rows = append(m.Rows, *r)
	}
	sort.SliceStable(m.Rows, func(i, j int) bool {
		a, b := m.Rows[i], m.Rows[j]
		if x, y := dtypeRank(a.Dtype), dtypeRank(b.Dtype); x != y {
			return x < y
		}
		if a.Dtype != b.Dtype {
			return a.Dtype < b.Dtype
		}
		if x, y := opRank(a.Op), opRank(b.Op); x != y {
			return x < y
		}
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		return seen[benchfmt.ShapeString(a.Shape)] < seen[benchfmt.ShapeString(b.Shape)]
	})
	m.Summary = summarize(m)
	return m, nil
}

func numel(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

func bytesOf(r Row) int64 {
	if r.Ours != nil && r.Ours.Bytes > 0 {
		return r.Ours.Bytes
	}
	if r.Torch != nil {
		return r.Torch.Bytes
	}
	return 0
}

// inTarget1 reports whether a row's shape is one of target 1: more than
// 256 MB moved, and rows short enough to hold on chip.
func inTarget1(r Row) bool {
	es := elemSize[r.Dtype]
	if es == 0 {
		return false
	}
	return float64(bytesOf(r)) > target1Bytes && r.RowLen*es <= onChipRowBytes
}

func target1Of(op string) float64 {
	if isForward(op) {
		return target1Forward
	}
	return target1Other
}

func pick(r Row, v, target float64) *Pick {
	return &Pick{Op: r.Op, Dtype: r.Dtype, Shape: r.Shape, Value: v, Target: target}
}

func describe(p *Pick) string {
	return fmt.Sprintf("%s %s %s", p.Op, p.Dtype, benchfmt.ShapeString(p.Shape))
}

// listBelow joins at most 12 entries, saying how many more there are.
func listBelow(below []string) string {
	if len(below) == 0 {
		return ""
	}
	more := ""
	if len(below) > 12 {
		more = fmt.Sprintf(" and %d more", len(below)-12)
		below = below[:12]
	}
	return " Below: " + strings.Join(below, ", ") + more + "."
}

// longShapes are the shapes of target 2, with their % of copy targets.
var longShapes = []struct {
	shape  []int
	target float64
	what   string
}{
	{[]int{4, 8388608}, target2Pct, "forward and masked ops; backward shown, not judged"},
	{[]int{4, 33554432}, target2Pct, "forward and masked ops; backward shown, not judged"},
	{[]int{4, 1048576}, target2L2Pct, "second read from L2; all ops"},
}

// longTarget is the % of copy a row of a long shape is judged against, or
// 0 where it is shown only.
func longTarget(op string, target float64) float64 {
	if target == target2Pct && isBackward(op) {
		return 0
	}
	return target
}

func summarize(m *Merged) Summary {
	var s Summary
	var lines []string

	// Target 3 and the worst ratio.
	var below3 []string
	var worstSlow *Pick // worst where PyTorch is not launch-bound
	for _, r := range m.Rows {
		if r.Ratio == nil {
			continue
		}
		if s.WorstRatio == nil || *r.Ratio < s.WorstRatio.Value {
			s.WorstRatio = pick(r, *r.Ratio, 0)
		}
		want := 1.0
		if r.Torch.MedianUS < launchBoundUS {
			want = launchBoundRatio
		} else if worstSlow == nil || *r.Ratio < worstSlow.Value {
			worstSlow = pick(r, *r.Ratio, 1)
		}
		s.Target3Rows++
		if *r.Ratio >= want {
			s.Target3Met++
		} else {
			below3 = append(below3, fmt.Sprintf("%s %s %s %.2f", r.Op, r.Dtype, benchfmt.ShapeString(r.Shape), *r.Ratio))
		}
	}
	if w := s.WorstRatio; w != nil {
		r := findRow(m, w)
		lines = append(lines, fmt.Sprintf("Worst ratio vs PyTorch: %.2f at %s (ours %.1f us, PyTorch %.1f us).",
			w.Value, describe(w), r.Ours.MedianUS, r.Torch.MedianUS))
		l := fmt.Sprintf("Target 3 (at least PyTorch's speed; %.1fx where PyTorch takes under %.0f us): %d of %d rows met.",
			launchBoundRatio, launchBoundUS, s.Target3Met, s.Target3Rows)
		if worstSlow != nil {
			l += fmt.Sprintf(" Worst where PyTorch takes %.0f us or more: %.2f at %s.", launchBoundUS, worstSlow.Value, describe(worstSlow))
		}
		lines = append(lines, l+listBelow(below3))
	} else {
		lines = append(lines, "Worst ratio vs PyTorch: no row has both implementations.")
	}

	// Target 1: worst relative to each row's own target.
	var below1 []string
	for _, r := range m.Rows {
		if r.Ours == nil || !inTarget1(r) {
			continue
		}
		t := target1Of(r.Op)
		s.Target1Rows++
		if r.Ours.PctCopy >= t {
			s.Target1Met++
		} else {
			below1 = append(below1, fmt.Sprintf("%s %s %s %.1f%%", r.Op, r.Dtype, benchfmt.ShapeString(r.Shape), r.Ours.PctCopy))
		}
		if s.WorstTarget1 == nil || r.Ours.PctCopy-t < s.WorstTarget1.Value-s.WorstTarget1.Target {
			s.WorstTarget1 = pick(r, r.Ours.PctCopy, t)
		}
	}
	if w := s.WorstTarget1; w != nil {
		lines = append(lines, fmt.Sprintf("Target 1 (over 256 MB moved, rows held on chip; %.0f%% of copy forward, %.0f%% masked, causal and backward): "+
			"%d of %d rows met; worst %.1f%% of copy at %s (target %.0f%%).%s",
			target1Forward, target1Other, s.Target1Met, s.Target1Rows, w.Value, describe(w), w.Target, listBelow(below1)))
	} else {
		lines = append(lines, "Target 1: no row of ours among its shapes.")
	}

	// Target 2: the long rows.
	for _, ls := range longShapes {
		var worst *Pick
		met, judged := 0, 0
		for _, r := range m.Rows {
			if r.Ours == nil || !sameShape(r.Shape, ls.shape) {
				continue
			}
			t := longTarget(r.Op, ls.target)
			p := pick(r, r.Ours.PctCopy, t)
			s.LongRows = append(s.LongRows, *p)
			if t == 0 {
				continue
			}
			judged++
			if p.Value >= t {
				met++
			}
			if worst == nil || p.Value < worst.Value {
				worst = p
			}
		}
		if worst == nil {
			lines = append(lines, fmt.Sprintf("%s vs %.0f%% of copy: not measured.", benchfmt.ShapeString(ls.shape), ls.target))
			continue
		}
		lines = append(lines, fmt.Sprintf("%s vs %.0f%% of copy (%s): %d of %d met; worst %.1f%% at %s %s.",
			benchfmt.ShapeString(ls.shape), ls.target, ls.what, met, judged, worst.Value, worst.Op, worst.Dtype))
	}
	s.Lines = lines
	return s
}

// longTable is a Markdown table of ours % of copy at the long shapes.
func longTable(m *Merged) string {
	if len(m.Summary.LongRows) == 0 {
		return ""
	}
	dts := dtypesOf(m)
	var b strings.Builder
	b.WriteString("| shape | op | target |")
	for _, dt := range dts {
		fmt.Fprintf(&b, " %s |", dt)
	}
	b.WriteString("\n| --- | --- | ---: |")
	for range dts {
		b.WriteString(" ---: |")
	}
	b.WriteString("\n")
	for _, ls := range longShapes {
		for _, op := range opOrder {
			cells := make([]string, len(dts))
			any := false
			for i, dt := range dts {
				cells[i] = "—"
				for _, p := range m.Summary.LongRows {
					if p.Op == op && p.Dtype == dt && sameShape(p.Shape, ls.shape) {
						cells[i] = fmt.Sprintf("%.1f%%", p.Value)
						if p.Target > 0 && p.Value < p.Target {
							cells[i] += " (below)"
						}
						any = true
					}
				}
			}
			if !any {
				continue
			}
			t := "shown"
			if lt := longTarget(op, ls.target); lt > 0 {
				t = fmt.Sprintf("%.0f%%", lt)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", benchfmt.ShapeString(ls.shape), op, t, strings.Join(cells, " | "))
		}
	}
	return b.String()
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func findRow(m *Merged, p *Pick) Row {
	for _, r := range m.Rows {
		if r.Op == p.Op && r.Dtype == p.Dtype && sameShape(r.Shape, p.Shape) {
			return r
		}
	}
	return Row{}
}

func writeJSON(path string, m *Merged) error {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func gbs(s *Side) string {
	if s == nil {
		return "—"
	}
	return strconv.FormatFloat(s.GBs, 'f', 0, 64)
}

func pct(s *Side) string {
	if s == nil {
		return "—"
	}
	return strconv.FormatFloat(s.PctCopy, 'f', 1, 64) + "%"
}

func us(s *Side) string {
	if s == nil {
		return "—"
	}
	return strconv.FormatFloat(s.MedianUS, 'f', 1, 64)
}

func markdown(m *Merged, chart string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Softmax on the %s: gosoftmax against PyTorch\n\n", orUnknown(m.Device))
	fmt.Fprintf(&b, "Made by cmd/bench-merge from one run of cmd/softmax-bench and bench/torch_bench.py (see bench/README.md).\n\n")
	dev := orUnknown(m.Device)
	if m.TorchDevice != "" && m.TorchDevice != m.Device {
		dev += " (ours), " + m.TorchDevice + " (PyTorch)"
	}
	fmt.Fprintf(&b, "- Device: %s\n", dev)
	fmt.Fprintf(&b, "- Date: %s (ours), %s (PyTorch)\n", orUnknown(m.Date), orUnknown(m.TorchDate))
	fmt.Fprintf(&b, "- Commit: %s\n", orUnknown(m.Commit))
	fmt.Fprintf(&b, "- PyTorch: %s\n", orUnknown(m.Torch))
	fmt.Fprintf(&b, "- Copy bandwidth (device-to-device, bytes read + written), measured in each process: ours %.0f GB/s, PyTorch %.0f GB/s\n",
		m.OursCopyGBs, m.TorchCopyGBs)
	fmt.Fprintf(&b, "- GB/s counts bytes read plus written (forward 2n·size, masked +n mask bytes, backward 3n·size); %% of copy is against the copy of the same process; ratio = PyTorch time / our time, ours faster when > 1.\n\n")

	b.WriteString("## Summary\n\n")
	for _, l := range m.Summary.Lines {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	b.WriteString("\n")
	if t := longTable(m); t != "" {
		b.WriteString("Ours at the long rows, % of copy:\n\n" + t + "\n")
	}
	if chart != "" {
		fmt.Fprintf(&b, "![Softmax GB/s against row length](%s)\n\n", chart)
	}

	for _, dt := range dtypesOf(m) {
		fmt.Fprintf(&b, "## %s\n\n", dt)
		b.WriteString("| op | shape | ours GB/s | ours % of copy | PyTorch GB/s | PyTorch % of copy | ratio | ours µs | PyTorch µs |\n")
		b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, r := range m.Rows {
			if r.Dtype != dt {
				continue
			}
			ratio := "—"
			if r.Ratio != nil {
				ratio = strconv.FormatFloat(*r.Ratio, 'f', 2, 64)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				r.Op, benchfmt.ShapeString(r.Shape), gbs(r.Ours), pct(r.Ours), gbs(r.Torch), pct(r.Torch), ratio, us(r.Ours), us(r.Torch))
		}
		b.WriteString("\n")
	}
	if len(m.Other) > 0 {
		fmt.Fprintf(&b, "%d records of other implementations are kept in the JSON (other_records).\n", len(m.Other))
	}
	return b.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// dtypesOf lists the dtypes present, in the usual order.
func dtypesOf(m *Merged) []string {
	var out []string
	have := map[string]bool{}
	for _, r := range m.Rows {
		if !have[r.Dtype] {
			have[r.Dtype] = true
			out = append(out, r.Dtype)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return dtypeRank(out[i]) < dtypeRank(out[j]) })
	return out
}
