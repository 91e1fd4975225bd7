//go:build cu

package cuda

import (
	"fmt"
	"os"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gosoftmax/softmax/internal/backend"
	"github.com/gosoftmax/softmax/internal/cpu"
	"github.com/gosoftmax/softmax/internal/gpu"
	"github.com/gosoftmax/softmax/internal/layout"
)

// worthBytes is the tensor size from which the Gorgonia ops send host
// tensors to the GPU in automatic mode. The H200 run of 2026-11-29
// (docs/PERFORMANCE.md, GPU entry 0) found this host path, which copies
// through pageable memory and allocates device memory per call, slower than
// the CPU kernels at every size tried (128x1024 to 8192x4096 float32:
// 0.39-0.55x), so automatic mode keeps host tensors on the CPU below 1 GiB
// until the path keeps pinned staging and device buffers between calls.
// SOFTMAX_BACKEND=gpu still sends everything to the GPU.
const worthBytes = 1 << 30

func init() {
	n, err := cu.NumDevices()
	if err == nil && n == 0 {
		err = fmt.Errorf("no CUDA device visible")
	}
	if err != nil {
		backend.Register(nil, fmt.Errorf("cuda: %w", err))
		return
	}
	backend.Register(Backend{}, nil)
}

// Backend is the backend.Accelerator over host buffers: it copies x (or y
// and dy) and the mask to device 0, computes there, and copies the result
// back. Masks the kernels cannot address (more than 4 outer or 4 inner
// dimensions after merging) go to the CPU kernels.
type Backend struct{}

func (Backend) Name() string { return "cuda" }

func (Backend) Worth(n, elemSize int) bool { return n*elemSize >= worthBytes }

func (Backend) Forward(v *layout.View, x, y any, mask []bool) error {
	if !gpu.Supported(v) {
		return cpu.Backend{}.Forward(v, x, y, mask)
	}
	return hosted.Forward(v, x, y, mask)
}

func (Backend) Backward(v *layout.View, y, dy, dx any, mask []bool) error {
	if !gpu.Supported(v) {
		return cpu.Backend{}.Backward(v, y, dy, dx, mask)
	}
	return hosted.Backward(v, y, dy, dx, mask)
}

// hosted checks host calls' buffers and hands them to host.
var hosted = backend.Host{Float32: host[float32], Float64: host[float64]}

// host runs one call on host buffers that backend.Host checked (not
// empty): bufs are the inputs then the output.
func host[T float32 | float64](v *layout.View, bwd bool, mask []bool, bufs ...[]T) error {
	t := gpu.HostDtype[T]()
	d, err := Default()
	if err != nil {
		if os.Getenv(backend.EnvVar) == "gpu" {
			return err
		}
		// The device is visible but would not open (no kernel image for
		// it, say): automatic mode runs on the CPU instead of failing.
		return cpuFallback(v, bwd, mask, bufs)
	}
	return d.do(func() (err error) {
		bytes := int64(v.Len()) * int64(t.Size())
		c := &call{dt: t, v: v, bwd: bwd}
		var ptrs []cu.DevicePtr
		defer func() {
			for _, p := range ptrs {
				if e := cu.MemFree(p); e != nil && err == nil {
					err = fmt.Errorf("cuda: freeing device memory: %w", e)
				}
			}
		}()
		alloc := func(n int64) (cu.DevicePtr, error) {
			p, err := cu.MemAlloc(n)
			if err != nil {
				return 0, fmt.Errorf("cuda: allocating %d bytes: %w", n, err)
			}
			ptrs = append(ptrs, p)
			return p, nil
		}
		for i, b := range bufs {
			p, err := alloc(bytes)
			if err != nil {
				return err
			}
			c.bufs = append(c.bufs, p)
			if i < len(bufs)-1 {
				if err := cu.MemcpyHtoD(p, unsafe.Pointer(&b[0]), bytes); err != nil {
					return fmt.Errorf("cuda: copying input %d to the device: %w", i, err)
				}
			}
		}
		if mask != nil {
			p, err := alloc(int64(len(mask)))
			if err != nil {
				return err
			}
			if err := cu.MemcpyHtoD(p, unsafe.Pointer(&mask[0]), int64(len(mask))); err != nil {
				return fmt.Errorf("cuda: copying the mask to the device: %w", err)
			}
			c.mask = p
		}
		if err := d.run(c); err != nil {
			return err
		}
		out := bufs[len(bufs)-1]
		if err := cu.MemcpyDtoH(unsafe.Pointer(&out[0]), c.bufs[len(c.bufs)-1], bytes); err != nil {
			return fmt.Errorf("cuda: copying the result from the device: %w", err)
		}
		return nil
	})
}

// cpuFallback runs a host call on the CPU kernels: bufs are the inputs then
// the output.
func cpuFallback[T float32 | float64](v *layout.View, bwd bool, mask []bool, bufs [][]T) error {
	if bwd {
		return cpu.Backend{}.Backward(v, bufs[0], bufs[1], bufs[2], mask)
	}
	return cpu.Backend{}.Forward(v, bufs[0], bufs[1], mask)
}
