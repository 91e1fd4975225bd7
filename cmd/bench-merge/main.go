// Command bench-merge joins one run of cmd/softmax-bench (ours) and one of
// bench/torch_bench.py (PyTorch) on (op, dtype, shape) and writes, under
// -out, h200.json (both implementations, ratio = torch_us/our_us), h200.md
// (a table per dtype and a summary against the targets of issue 6) and
// h200.png (softmax GB/s against row length, a panel per dtype).
//
//	go run ./cmd/bench-merge -ours ours.json -torch torch.json -out docs/bench
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	ours := flag.String("ours", "", "JSON of cmd/softmax-bench (impl gosoftmax)")
	torch := flag.String("torch", "", "JSON of bench/torch_bench.py (impl torch)")
	out := flag.String("out", "docs/bench", "folder for h200.json, h200.md and h200.png")
	name := flag.String("name", "h200", "base name of the files written")
	flag.Parse()
	if *ours == "" || *torch == "" {
		fmt.Fprintln(os.Stderr, "usage: bench-merge -ours FILE -torch FILE [-out DIR]")
		os.Exit(2)
	}
	m, err := run(*ours, *torch, *out, *name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-merge:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s.{json,md,png} in %s: %d rows\n", *name, *out, len(m.Rows))
	for _, l := range m.Summary.Lines {
		fmt.Println(l)
	}
}

// run reads both files, merges them and writes the three outputs.
func run(oursPath, torchPath, outDir, name string) (*Merged, error) {
	ours, err := readRun(oursPath)
	if err != nil {
		return nil, err
	}
	torch, err := readRun(torchPath)
	if err != nil {
		return nil, err
	}
	m, err := merge(ours, torch)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(outDir, name+".json"), m); err != nil {
		return nil, err
	}
	if err := writeChart(filepath.Join(outDir, name+".png"), m); err != nil {
		return nil, err
	}
	md := markdown(m, name+".png")
	if err := os.WriteFile(filepath.Join(outDir, name+".md"), []byte(md), 0o644); err != nil {
		return nil, err
	}
	return m, nil
}
