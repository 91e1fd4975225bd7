// Command bench-ab compares runs of cmd/softmax-bench taken under several
// settings (knobs or builds) in one device call, the notebook's A/B
// tables (docs/PERFORMANCE.md). The runs are files named
// PREFIX-VARIANT-ROUND.json in one folder, as the call scripts under
// docs/bench/raw write them; for each case (op, dtype, shape) it prints
// each variant's times over the rounds (min-max, microseconds), the
// fastest variant's ratio to the first (first / fastest: above 1 the
// fastest is faster), and each variant's plan where the variants' plans
// differ.
//
//	go run ./cmd/bench-ab -dir DIR -prefix half -variants rule,k4,p0
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/gosoftmax/softmax/internal/benchfmt"
)

func main() {
	dir := flag.String("dir", ".", "folder of the runs")
	prefix := flag.String("prefix", "", "the runs' file prefix (PREFIX-VARIANT-ROUND.json)")
	variants := flag.String("variants", "", "comma-separated variants, the first the baseline")
	flag.Parse()
	vs := strings.Split(*variants, ",")
	if *prefix == "" || *variants == "" || slices.Contains(vs, "") {
		fmt.Fprintln(os.Stderr, "usage: bench-ab -dir DIR -prefix PREFIX -variants A,B[,C...]")
		os.Exit(2)
	}
	t, err := load(os.DirFS(*dir), *prefix, vs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-ab:", err)
		os.Exit(1)
	}
	t.write(os.Stdout)
}

// runFile is the part of a softmax-bench file the comparison reads.
type runFile struct {
	Records []benchfmt.Record `json:"records"`
}

// table is every case's times and plans, by variant.
type table struct {
	variants []string
	cases    []string                        // "op dtype shape", in the first run's order
	times    map[string]map[string][]float64 // case, variant: one median per round
	plans    map[string]map[string]string    // case, variant: the first round's plan
}

// load reads every round of every variant: files PREFIX-VARIANT-R.json
// for R = 1, 2, ... up to the first missing one. A variant with no round
// is an error (a misspelt variant would otherwise print an empty column).
func load(fsys fs.FS, prefix string, variants []string) (*table, error) {
	t := &table{variants: variants, times: map[string]map[string][]float64{}, plans: map[string]map[string]string{}}
	for _, v := range variants {
		for r := 1; ; r++ {
			name := fmt.Sprintf("%s-%s-%d.json", prefix, v, r)
			b, err := fs.ReadFile(fsys, name)
			if errors.Is(err, fs.ErrNotExist) {
				if r == 1 {
					return nil, fmt.Errorf("variant %q: no run %s", v, name)
				}
				break
			}
			if err != nil {
				return nil, err
			}
			var run runFile
			if err := json.Unmarshal(b, &run); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			for _, rec := range run.Records {
				t.add(v, rec)
			}
		}
	}
	return t, nil
}

func (t *table) add(variant string, rec benchfmt.Record) {
	c := fmt.Sprintf("%-21s %-9s %s", rec.Op, rec.Dtype, benchfmt.ShapeString(rec.Shape))
	if t.times[c] == nil {
		t.cases = append(t.cases, c)
		t.times[c], t.plans[c] = map[string][]float64{}, map[string]string{}
	}
	t.times[c][variant] = append(t.times[c][variant], rec.MedianUS)
	if _, ok := t.plans[c][variant]; !ok {
		t.plans[c][variant] = plan(rec.Note)
	}
}

// plan is the dispatch part of a record's note: what follows "; " after
// the timing figures (softmax-bench writes "b2b ..., warm-up N; PLAN").
func plan(note string) string {
	if i := strings.LastIndex(note, "; "); i >= 0 {
		return note[i+2:]
	}
	return note
}

func (t *table) write(w io.Writer) {
	fmt.Fprintf(w, "%-48s", "case (us, min-max over rounds)")
	for _, v := range t.variants {
		fmt.Fprintf(w, " %15s", v)
	}
	fmt.Fprintf(w, "  %s\n", "best (first/best, by min)")
	for _, c := range t.cases {
		fmt.Fprintf(w, "%-48s", c)
		best, bestMin := "", 0.0
		for _, v := range t.variants {
			ts := t.times[c][v]
			if len(ts) == 0 {
				fmt.Fprintf(w, " %15s", "-")
				continue
			}
			lo, hi := slices.Min(ts), slices.Max(ts)
			fmt.Fprintf(w, " %15s", fmt.Sprintf("%.2f-%.2f", lo, hi))
			if best == "" || lo < bestMin {
				best, bestMin = v, lo
			}
		}
		if first := t.times[c][t.variants[0]]; len(first) > 0 {
			fmt.Fprintf(w, "  %s %.3f", best, slices.Min(first)/bestMin)
		}
		fmt.Fprintln(w)
		if !t.samePlans(c) {
			for _, v := range t.variants {
				if p, ok := t.plans[c][v]; ok {
					fmt.Fprintf(w, "    %-10s %s\n", v, p)
				}
			}
		}
	}
}

func (t *table) samePlans(c string) bool {
	first, seen := "", false
	for _, v := range t.variants {
		p, ok := t.plans[c][v]
		if !ok {
			continue
		}
		if seen && p != first {
			return false
		}
		first, seen = p, true
	}
	return true
}
