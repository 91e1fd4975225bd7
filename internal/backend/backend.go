// Package backend is the seam between the Gorgonia ops and the kernels. The
// ops know nothing about CPUs or GPUs: they hand a resolved view and flat
// buffers to the backend that Select picks. A GPU backend is a package that
// implements Backend and calls Register from its init function (see the
// packages cuda (tag cu) and hip (tag hip), imported by the root
// package's backend_cu.go and backend_hip.go).
package backend

import (
	"fmt"
	"os"
	"sync"

	"github.com/gosoftmax/softmax/internal/layout"
)

// Backend computes softmax forward and backward on flat row-major buffers.
// x, y, dy and dx are all []float32 or all []float64 of v.Len() elements;
// mask is nil or has v.MaskLen() elements. Implementations must not modify
// their inputs and must be safe for concurrent use.
type Backend interface {
	Name() string
	Forward(v *layout.View, x, y any, mask []bool) error
	Backward(v *layout.View, y, dy, dx any, mask []bool) error
}

// Accelerator is a Backend that is worth calling only for large enough
// problems (host tensors are copied in and out).
type Accelerator interface {
	Backend
	// Worth reports whether the accelerator should take a problem of n
	// elements with the given element size in bytes.
	Worth(n, elemSize int) bool
}

// EnvVar forces the backend: "cpu" or "gpu". Unset means automatic.
const EnvVar = "SOFTMAX_BACKEND"

var (
	mu    sync.RWMutex
	cpu   Backend
	accel Accelerator
	// accelErr says why no accelerator is in use (compiled out, no device).
	accelErr = fmt.Errorf("no GPU backend compiled in; build with -tags cu or -tags hip")
)

// SetCPU installs the CPU backend; internal/cpu calls it from init.
func SetCPU(b Backend) { mu.Lock(); cpu = b; mu.Unlock() }

// Register installs an accelerator, or records why it is unavailable when
// err is not nil.
func Register(a Accelerator, err error) {
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		accel, accelErr = nil, err
		return
	}
	accel, accelErr = a, nil
}

// Select picks the backend for a problem of n elements of elemSize bytes,
// honouring SOFTMAX_BACKEND.
func Select(n, elemSize int) (Backend, error) {
	mu.RLock()
	defer mu.RUnlock()
	switch os.Getenv(EnvVar) {
	case "", "auto":
		if accel != nil && accel.Worth(n, elemSize) {
			return accel, nil
		}
		return cpu, nil
	case "cpu":
		return cpu, nil
	case "gpu":
		if accel == nil {
			return nil, fmt.Errorf("softmax: %s=gpu but no GPU backend is available: %v", EnvVar, accelErr)
		}
		return accel, nil
	default:
		return nil, fmt.Errorf("softmax: %s=%q; want cpu, gpu or auto", EnvVar, os.Getenv(EnvVar))
	}
}

// Describe names the backends in use: the CPU one, and the accelerator or
// the reason there is none.
func Describe() string {
	mu.RLock()
	defer mu.RUnlock()
	name := "cpu"
	if cpu != nil {
		name = cpu.Name()
	}
	if accel != nil {
		return accel.Name() + " (large tensors), " + name + " (small tensors)"
	}
	return name + " (" + accelErr.Error() + ")"
}
