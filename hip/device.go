//go:build hip

package hip

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/gosoftmax/softmax/hipkernels"
)

// Device is one GPU with the softmax kernels loaded. The HIP runtime keeps
// the current device per host thread and goroutines move between threads,
// so a Device owns one goroutine locked to one OS thread with its device
// current, and every HIP call runs there: any goroutine may call any method
// at any time, and calls are served one at a time (the same contract as
// package cuda).
type Device struct {
	calls chan func()

	// Read on the device thread only, after start (the dispatch tests fill
	// them in by hand).
	ordinal int
	props   props
	arch    string // the code object's target
	wave    int    // the code object's wavefront width: 64, or 32 (gfx1030)
	mod     module
	stream  stream
	kernels map[string]*kernel
	sms     int // compute units
	work    DevicePtr
	workB   int64
}

// kernel is one loaded entry point and what launching it needs.
type kernel struct {
	name       string
	fn         function
	maxThreads int // per block
	dynSmem    int // largest dynamic LDS a launch may ask for
}

var (
	openOnce sync.Once
	openDev  *Device
	openErr  error
)

// Default returns device 0, starting it on first use: its thread, the code
// object for its architecture and a stream. Later calls return the same
// Device, or the same error.
func Default() (*Device, error) {
	openOnce.Do(func() { openDev, openErr = start(0) })
	return openDev, openErr
}

func start(ordinal int) (*Device, error) {
	d := &Device{calls: make(chan func()), ordinal: ordinal}
	ready := make(chan error)
	go d.serve(ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return d, nil
}

// serve is the device thread: it never unlocks, so the device stays
// current on it for the life of the program.
func (d *Device) serve(ready chan<- error) {
	runtime.LockOSThread()
	err := d.init()
	ready <- err
	if err != nil {
		return
	}
	for f := range d.calls {
		f()
	}
}

// do runs f on the device thread and returns its error.
func (d *Device) do(f func() error) error {
	if d == nil || d.calls == nil {
		return fmt.Errorf("hip: device not opened; use hip.Default")
	}
	done := make(chan error, 1)
	d.calls <- func() { done <- f() }
	return <-done
}

// object picks the code object for device ordinal: the one built for its
// gcnArchName, with the wavefront width it was built for.
func object(p props) (hipkernels.Object, int, error) {
	obj, err := hipkernels.Find(p.arch)
	if err != nil {
		return obj, 0, fmt.Errorf("hip: %s: %w", p.name, err)
	}
	wave, err := hipkernels.WaveSize(obj.Code)
	if err != nil {
		return obj, 0, fmt.Errorf("hip: code object for %s: %w", obj.Arch, err)
	}
	return obj, wave, nil
}

func (d *Device) init() error {
	var err error
	if err = setDevice(d.ordinal); err != nil {
		return fmt.Errorf("hip: selecting device %d: %w", d.ordinal, err)
	}
	if d.props, err = deviceProps(d.ordinal); err != nil {
		return fmt.Errorf("hip: properties of device %d: %w", d.ordinal, err)
	}
	d.sms = d.props.cus
	obj, wave, err := object(d.props)
	if err != nil {
		return err
	}
	d.arch, d.wave = obj.Arch, wave
	if d.mod, err = loadModule(obj.Code); err != nil {
		return fmt.Errorf("hip: loading the %s code object (%d bytes): %w", obj.Arch, len(obj.Code), err)
	}
	if d.stream, err = newStream(); err != nil {
		return fmt.Errorf("hip: creating a stream: %w", err)
	}
	d.kernels = make(map[string]*kernel)
	for _, name := range kernelNames() {
		k := &kernel{name: name}
		if k.fn, err = d.mod.function(name); err != nil {
			return fmt.Errorf("hip: kernel %s: %w", name, err)
		}
		if k.maxThreads, err = k.fn.maxThreads(); err != nil {
			return fmt.Errorf("hip: kernel %s: max threads: %w", name, err)
		}
		static, err := k.fn.staticLDS()
		if err != nil {
			return fmt.Errorf("hip: kernel %s: static LDS: %w", name, err)
		}
		// AMD GPUs have no opt-in: a workgroup gets up to the device's
		// LDS per block (64 KB on every target here), less the static part.
		k.dynSmem = d.props.smem - static
		d.kernels[name] = k
	}
	return nil
}

// workspace returns device memory of at least n bytes for split rows,
// reused across calls (calls run one at a time on the device thread).
func (d *Device) workspace(n int64) (DevicePtr, error) {
	if n <= d.workB {
		return d.work, nil
	}
	if d.workB > 0 {
		if err := free(d.work); err != nil {
			return 0, fmt.Errorf("hip: freeing the workspace: %w", err)
		}
		d.work, d.workB = 0, 0
	}
	p, err := malloc(n)
	if err != nil {
		return 0, fmt.Errorf("hip: allocating a %d-byte workspace: %w", n, err)
	}
	d.work, d.workB = p, n
	return p, nil
}

// Name is the device's name.
func (d *Device) Name() (string, error) {
	var name string
	err := d.do(func() error { name = d.props.name; return nil })
	return name, err
}

// Arch is the device's gcnArchName (e.g. "gfx90a:sramecc+:xnack-") and the
// wavefront width of the code object loaded for it.
func (d *Device) Arch() (arch string, wave int) {
	_ = d.do(func() error { arch, wave = d.props.arch, d.wave; return nil })
	return arch, wave
}

// Alloc allocates n bytes of device memory on the device.
func (d *Device) Alloc(n int) (DevicePtr, error) {
	var p DevicePtr
	err := d.do(func() (err error) {
		if p, err = malloc(int64(n)); err != nil {
			return fmt.Errorf("hip: allocating %d bytes: %w", n, err)
		}
		return nil
	})
	return p, err
}

// Free frees memory from Alloc.
func (d *Device) Free(p DevicePtr) error {
	return d.do(func() error {
		if err := free(p); err != nil {
			return fmt.Errorf("hip: freeing %#x: %w", uintptr(p), err)
		}
		return nil
	})
}

// Upload copies src to device memory at dst. T is the element type in
// host memory: float32, float64, uint16 (the bits of float16 or bfloat16),
// bool or byte (a mask).
func Upload[T any](d *Device, dst DevicePtr, src []T) error {
	if len(src) == 0 {
		return nil
	}
	return d.do(func() error {
		n := int64(len(src)) * int64(unsafe.Sizeof(src[0]))
		err := memcpyHtoD(dst, unsafe.Pointer(&src[0]), n)
		runtime.KeepAlive(src)
		if err != nil {
			return fmt.Errorf("hip: copying %d bytes to the device: %w", n, err)
		}
		return nil
	})
}

// Download copies device memory at src into dst.
func Download[T any](d *Device, dst []T, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	return d.do(func() error {
		n := int64(len(dst)) * int64(unsafe.Sizeof(dst[0]))
		err := memcpyDtoH(unsafe.Pointer(&dst[0]), src, n)
		runtime.KeepAlive(dst)
		if err != nil {
			return fmt.Errorf("hip: copying %d bytes from the device: %w", n, err)
		}
		return nil
	})
}

// Time runs Forward (or Backward when bwd) and returns the milliseconds the
// kernels took on the device's stream, measured with HIP events: for
// benchmarks on device buffers.
func (d *Device) Time(t Dtype, shape []int, bwd bool, bufs []DevicePtr, mask *Mask, o Options) (float32, error) {
	v, mp, err := resolve(t, shape, mask, o)
	if err != nil {
		return 0, err
	}
	if want := 2 + btoi(bwd); len(bufs) != want {
		return 0, fmt.Errorf("hip: Time takes %d buffers, got %d", want, len(bufs))
	}
	var ms float32
	err = d.do(func() (err error) {
		start, err := newEvent()
		if err != nil {
			return fmt.Errorf("hip: creating an event: %w", err)
		}
		defer func() {
			if e := start.destroy(); e != nil && err == nil {
				err = fmt.Errorf("hip: destroying an event: %w", e)
			}
		}()
		stop, err := newEvent()
		if err != nil {
			return fmt.Errorf("hip: creating an event: %w", err)
		}
		defer func() {
			if e := stop.destroy(); e != nil && err == nil {
				err = fmt.Errorf("hip: destroying an event: %w", e)
			}
		}()
		if err := start.record(d.stream); err != nil {
			return fmt.Errorf("hip: recording an event: %w", err)
		}
		if err := d.launch(&call{dt: t, v: v, bwd: bwd, bufs: bufs, mask: mp}); err != nil {
			return err
		}
		if err := stop.record(d.stream); err != nil {
			return fmt.Errorf("hip: recording an event: %w", err)
		}
		if err := stop.synchronize(); err != nil {
			return fmt.Errorf("hip: waiting for an event: %w", err)
		}
		ms, err = stop.elapsed(start)
		return err
	})
	return ms, err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
