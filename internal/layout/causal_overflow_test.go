package layout

import (
	"math"
	"testing"
)

// Causal rows keep columns j <= i+Offset, so with Offset >= 1 a one-column
// row keeps its column at every i. Resolve clamped Offset to N, and
// Kept's i+Offset+1 wrapped at i = MaxInt-1 (now clamped to N-1; the
// CUDA kernels compute the same sum).
func TestCausalKeptOverflowTall(t *testing.T) {
	v, err := Resolve(Params{Axis: -1, Scale: 1, Causal: true, Offset: 1}, []int{math.MaxInt, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Kept(math.MaxInt - 1); got != 1 {
		t.Errorf("Kept(MaxInt-1) = %d, want 1 (column 0 <= i+1)", got)
	}
}

// One row of MaxInt columns with Offset MaxInt keeps them all.
func TestCausalKeptOverflowWide(t *testing.T) {
	v, err := Resolve(Params{Axis: -1, Scale: 1, Causal: true, Offset: math.MaxInt}, []int{1, math.MaxInt}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Kept(0); got != math.MaxInt {
		t.Errorf("Kept(0) = %d, want %d", got, math.MaxInt)
	}
}
