package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func findIn(t *testing.T, m *Merged, op, dtype string, shape ...int) Row {
	t.Helper()
	for _, r := range m.Rows {
		if r.Op == op && r.Dtype == dtype && sameShape(r.Shape, shape) {
			return r
		}
	}
	t.Fatalf("no row %s %s %v", op, dtype, shape)
	return Row{}
}

func TestMerge(t *testing.T) {
	dir := t.TempDir()
	m, err := run("testdata/ours.json", "testdata/torch.json", dir, "h200")
	if err != nil {
		t.Fatal(err)
	}

	// The join: 6 rows on both sides, 1 ours only, 1 torch only; the
	// gosoftmax-graph record is kept apart.
	if len(m.Rows) != 8 {
		t.Fatalf("rows = %d, want 8", len(m.Rows))
	}
	if len(m.Other) != 1 || m.Other[0].Impl != "gosoftmax-graph" {
		t.Errorf("other records = %+v, want the one gosoftmax-graph record", m.Other)
	}
	both := 0
	for _, r := range m.Rows {
		if r.Ratio != nil {
			both++
		}
	}
	if both != 6 {
		t.Errorf("rows with both sides = %d, want 6", both)
	}
	if r := findIn(t, m, "log_softmax", "float16", 65536, 128); r.Torch != nil || r.Ratio != nil {
		t.Errorf("ours-only row has a torch side or ratio: %+v", r)
	}
	if r := findIn(t, m, "softmax", "float32", 1, 1048576); r.Ours != nil || r.Ratio != nil {
		t.Errorf("torch-only row has our side or ratio: %+v", r)
	}

	// The ratio is torch_us/our_us.
	r := findIn(t, m, "softmax", "float32", 8192, 4096)
	if r.Ratio == nil || math.Abs(*r.Ratio-110.0/70.0) > 1e-12 {
		t.Errorf("ratio = %v, want %v", r.Ratio, 110.0/70.0)
	}
	if r.RowLen != 4096 || r.Rows != 8192 {
		t.Errorf("row_len, rows = %d, %d", r.RowLen, r.Rows)
	}
	// GB/s and % of copy are computed where a record leaves them out.
	r = findIn(t, m, "softmax", "float32", 4, 1048576)
	if math.Abs(r.Ours.GBs-3355.4432) > 1e-6 || math.Abs(r.Ours.PctCopy-100*3355.4432/4200) > 1e-6 {
		t.Errorf("computed gbs, pct = %v, %v", r.Ours.GBs, r.Ours.PctCopy)
	}
	// Tables are ordered by dtype, then op, then shape as first seen.
	if m.Rows[0].Dtype != "float32" || m.Rows[len(m.Rows)-1].Dtype != "bfloat16" {
		t.Errorf("order: first %s, last %s", m.Rows[0].Dtype, m.Rows[len(m.Rows)-1].Dtype)
	}

	// The summary.
	s := m.Summary
	if s.WorstRatio == nil || s.WorstRatio.Op != "softmax" || !sameShape(s.WorstRatio.Shape, []int{128, 1024}) {
		t.Errorf("worst ratio = %+v, want softmax float32 128x1024", s.WorstRatio)
	}
	if s.Target3Met != 5 || s.Target3Rows != 6 {
		t.Errorf("target 3: %d of %d, want 5 of 6", s.Target3Met, s.Target3Rows)
	}
	if s.Target1Met != 1 || s.Target1Rows != 2 || s.WorstTarget1 == nil || s.WorstTarget1.Op != "masked_softmax" {
		t.Errorf("target 1: %d of %d, worst %+v", s.Target1Met, s.Target1Rows, s.WorstTarget1)
	}
	want := []string{
		"Worst ratio vs PyTorch: 0.83 at softmax float32 128x1024 (ours 9.0 us, PyTorch 7.5 us).",
		"Target 3 (at least PyTorch's speed; 0.8x where PyTorch takes under 10 us): 5 of 6 rows met. " +
			"Worst where PyTorch takes 10 us or more: 0.88 at softmax bfloat16 2048x8192. Below: softmax bfloat16 2048x8192 0.88.",
		"Target 1 (over 256 MB moved, rows held on chip; 90% of copy forward, 85% masked, causal and backward): " +
			"1 of 2 rows met; worst 79.9% of copy at masked_softmax float32 8192x4096 (target 85%). Below: masked_softmax float32 8192x4096 79.9%.",
		"4x8388608 vs 60% of copy (forward and masked ops; backward shown, not judged): 1 of 1 met; worst 63.9% at softmax float32.",
		"4x33554432 vs 60% of copy: not measured.",
		"4x1048576 vs 85% of copy (second read from L2; all ops): 0 of 1 met; worst 79.9% at softmax float32.",
	}
	if strings.Join(s.Lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("summary lines:\n%s\nwant:\n%s", strings.Join(s.Lines, "\n"), strings.Join(want, "\n"))
	}

	// The JSON reads back with the same rows.
	b, err := os.ReadFile(filepath.Join(dir, "h200.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Merged
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Rows) != 8 || back.Commit != "0123456789abcdef0123456789abcdef01234567" || back.Torch != "2.11.0+cu130" ||
		back.OursCopyGBs != 4200 || back.TorchCopyGBs != 4248 {
		t.Errorf("JSON header or rows wrong: %d rows, commit %q, torch %q, copy %v/%v",
			len(back.Rows), back.Commit, back.Torch, back.OursCopyGBs, back.TorchCopyGBs)
	}

	// The Markdown: header, summary, one table per dtype, a row.
	b, err = os.ReadFile(filepath.Join(dir, "h200.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, w := range append([]string{
		"Device: NVIDIA H200",
		"Commit: 0123456789abcdef0123456789abcdef01234567",
		"ours 4200 GB/s, PyTorch 4248 GB/s",
		"## float32", "## float16", "## bfloat16",
		"| softmax | 8192x4096 | 3835 | 91.3% | 2440 | 57.4% | 1.57 | 70.0 | 110.0 |",
		"| 4x1048576 | softmax | 85% | 79.9% (below) |",
		"![Softmax GB/s against row length](h200.png)",
	}, want...) {
		if !strings.Contains(md, w) {
			t.Errorf("h200.md lacks %q", w)
		}
	}

	// The chart is a PNG with one panel per dtype.
	b, err = os.ReadFile(filepath.Join(dir, "h200.png"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("h200.png: %v", err)
	}
	if cfg.Width < 600 || cfg.Height < 3*300 {
		t.Errorf("h200.png is %dx%d, want three panels", cfg.Width, cfg.Height)
	}
}

func TestMergeErrors(t *testing.T) {
	rec := Record{Impl: "gosoftmax", Op: "softmax", Dtype: "float32", Shape: []int{2, 8}, MedianUS: 1, Bytes: 128}
	trec := rec
	trec.Impl = "torch"
	if _, err := merge(&Run{Records: []Record{rec, rec}}, &Run{}); err == nil {
		t.Error("duplicate record: no error")
	}
	trec.Bytes = 64
	if _, err := merge(&Run{Records: []Record{rec}}, &Run{Records: []Record{trec}}); err == nil {
		t.Error("bytes that differ between the sides: no error")
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"records":[{"impl":"torch","op":"softmax"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readRun(bad); err == nil {
		t.Error("record without dtype, shape, median: no error")
	}
}
