package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestRun trains a short run and checks that the loss falls and the
// held-out accuracy passes the bar the example states.
func TestRun(t *testing.T) {
	cfg := defaultConfig()
	cfg.Epochs = 15
	cfg.Plot = filepath.Join(t.TempDir(), "loss.png")
	out := io.Discard
	if testing.Verbose() {
		out = os.Stdout
	}
	res, err := run(cfg, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Losses) != cfg.Epochs {
		t.Fatalf("got %d epoch losses; want %d", len(res.Losses), cfg.Epochs)
	}
	if first, last := res.Losses[0], res.Losses[len(res.Losses)-1]; !(last < first/5) {
		t.Errorf("loss fell from %.4f to %.4f; want it at least five times lower", first, last)
	}
	if res.Accuracy < 0.95 {
		t.Errorf("held-out accuracy %.3f; want >= 0.95", res.Accuracy)
	}
	if fi, err := os.Stat(cfg.Plot); err != nil || fi.Size() == 0 {
		t.Errorf("loss plot not written: %v", err)
	}
}
