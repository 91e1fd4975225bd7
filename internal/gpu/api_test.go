package gpu

import "testing"

// TestHostDtype checks the dtype of each host element type.
func TestHostDtype(t *testing.T) {
	if got := HostDtype[float32](); got != Float32 {
		t.Errorf("HostDtype[float32]() = %v, want float32", got)
	}
	if got := HostDtype[float64](); got != Float64 {
		t.Errorf("HostDtype[float64]() = %v, want float64", got)
	}
}
