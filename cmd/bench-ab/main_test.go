package main

import (
	"strings"
	"testing"
	"testing/fstest"
)

func file(recs string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(`{"records":[` + recs + `]}`)}
}

func rec(us, plan string) string {
	return `{"op":"softmax","dtype":"float16","shape":[16,577],"median_us":` + us + `,"note":"b2b 1 us, warm-up 9; ` + plan + `"}`
}

func TestCompare(t *testing.T) {
	fsys := fstest.MapFS{
		"h-rule-1.json": file(rec("10", "tier 1 pipe2s")),
		"h-rule-2.json": file(rec("12", "tier 1 pipe2s")),
		"h-k4-1.json":   file(rec("8", "tier 1 pipe4s")),
		"h-k4-2.json":   file(rec("9", "tier 1 pipe4s")),
		"h-k4-4.json":   file(rec("1", "never read: round 3 is missing")),
	}
	tab, err := load(fsys, "h", []string{"rule", "k4"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	tab.write(&b)
	out := b.String()
	for _, want := range []string{"softmax", "16x577", "10.00-12.00", "8.00-9.00", "k4 1.250", "rule       tier 1 pipe2s", "k4         tier 1 pipe4s"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "1.00-") {
		t.Errorf("round 4 was read past the missing round 3:\n%s", out)
	}
}

func TestSamePlansPrintedOnce(t *testing.T) {
	fsys := fstest.MapFS{
		"h-a-1.json": file(rec("10", "tier 1 rows")),
		"h-b-1.json": file(rec("20", "tier 1 rows")),
	}
	tab, err := load(fsys, "h", []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	tab.write(&b)
	if strings.Contains(b.String(), "tier 1 rows") {
		t.Errorf("plans printed though every variant's is the same:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "a 1.000") {
		t.Errorf("the baseline is fastest, ratio 1:\n%s", b.String())
	}
}

func TestLoadErrors(t *testing.T) {
	fsys := fstest.MapFS{
		"h-a-1.json":   file(rec("10", "p")),
		"h-bad-1.json": {Data: []byte("{")},
	}
	if _, err := load(fsys, "h", []string{"a", "missing"}); err == nil || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("a variant with no run: err %v, want one naming it", err)
	}
	if _, err := load(fsys, "h", []string{"bad"}); err == nil || !strings.Contains(err.Error(), "h-bad-1.json") {
		t.Errorf("a broken file: err %v, want one naming it", err)
	}
}
