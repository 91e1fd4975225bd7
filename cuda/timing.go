//go:build cu

package cuda

// Timing with CUDA events, for cmd/softmax-bench (issue 6). Everything here
// runs inside do, like every other CUDA call of the package.

// #include <stdlib.h>
import "C"

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"gorgonia.org/cu"
)

// queued holds the devices whose thread is inside a timed loop. There run
// leaves its launches queued on the stream (see syncRun) so that events,
// not host waits, bracket them; the loop checks the stream's errors when
// it ends. Keys are *Device.
var queued sync.Map

// syncRun waits for the launches run has just queued, except inside a
// timed loop. It runs inside do.
func (d *Device) syncRun() error {
	if _, ok := queued.Load(d); ok {
		return nil
	}
	return cu.Synchronize()
}

// BufferSet is one call's device buffers: x and y (forward) or y, dy and
// dx (backward), and its mask or nil.
type BufferSet struct {
	Bufs []cu.DevicePtr
	Mask *Mask
}

// Problem is a forward or backward call to time, with the buffer sets the
// timed launches rotate among (a new set for each launch, in turn), so
// that sets which together exceed the L2 cache keep it from serving them.
type Problem struct {
	Dtype    Dtype
	Shape    []int
	Backward bool
	Options  Options
	Sets     []BufferSet
}

// Timing is what TimeProblem measured.
type Timing struct {
	// PerLaunchUS holds each timed launch's time in microseconds, from an
	// event recorded on the stream just before it to one just after it.
	// Launches are not waited for in between, so a kernel longer than its
	// launch cost is timed alone; a shorter one includes the time the GPU
	// waits for the host to queue it (as PyTorch's per-call events do).
	PerLaunchUS []float64
	Warmup      int // launches before the timed ones
	// BatchUS is the time of Batch launches queued back to back between
	// one pair of events, over Batch: the GPU's time per launch when the
	// host keeps ahead of it.
	BatchUS float64
	Batch   int
	// QueueUS is the host's time to queue one launch during the batch:
	// planning, the parameter slots, gorgonia.org/cu's copy of them and
	// cuLaunchKernel, without waiting.
	QueueUS float64
}

// Median returns the median of PerLaunchUS.
func (t Timing) Median() float64 { return median(t.PerLaunchUS) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// events are pairs of timing events, used inside do.
type events []cu.Event

func makeEvents(n int) (events, error) {
	ev := make(events, 0, n)
	for range n {
		e, err := cu.MakeEvent(cu.DefaultEvent)
		if err != nil {
			_ = ev.destroy() // already failing with err
			return nil, fmt.Errorf("cuda: creating an event: %w", err)
		}
		ev = append(ev, e)
	}
	return ev, nil
}

func (ev events) destroy() error {
	var first error
	for i := range ev {
		if err := cu.DestroyEvent(&ev[i]); err != nil && first == nil {
			first = fmt.Errorf("cuda: destroying an event: %w", err)
		}
	}
	return first
}

// keep sets *err to cleanup's error when *err is nil: deferred cleanup that
// fails is reported unless an earlier error already is.
func keep(err *error, cleanup error) {
	if *err == nil {
		*err = cleanup
	}
}

func record(e cu.Event) error {
	if err := e.Record(cu.NoStream); err != nil {
		return fmt.Errorf("cuda: recording an event: %w", err)
	}
	return nil
}

// elapsedUS waits for stop and returns the microseconds from start to stop.
func elapsedUS(start, stop cu.Event) (float64, error) {
	if err := stop.Synchronize(); err != nil {
		return 0, fmt.Errorf("cuda: waiting for an event: %w", err)
	}
	ms, err := start.Elapsed(stop)
	if err != nil {
		return 0, fmt.Errorf("cuda: reading an event pair: %w", err)
	}
	return ms * 1e3, nil
}

func (p *Problem) calls() ([]*call, error) {
	if len(p.Sets) == 0 {
		return nil, fmt.Errorf("cuda: a timed problem needs at least one buffer set")
	}
	want := 2
	if p.Backward {
		want = 3
	}
	cs := make([]*call, len(p.Sets))
	for j, s := range p.Sets {
		if len(s.Bufs) != want {
			return nil, fmt.Errorf("cuda: buffer set %d has %d buffers; want %d", j, len(s.Bufs), want)
		}
		v, mp, err := resolve(p.Dtype, p.Shape, s.Mask, p.Options)
		if err != nil {
			return nil, err
		}
		cs[j] = &call{dt: p.Dtype, v: v, bwd: p.Backward, bufs: s.Bufs, mask: mp}
	}
	return cs, nil
}

// TimeProblem times reps launches of p with events on the device's stream,
// rotating among p's buffer sets. Warm-up first: at least 10 launches and
// one pass over the sets, and more up to about warmup of GPU time (at most
// 2000). Then reps launches, each between its own pair of events (the
// method of PyTorch's per-call timing; take the median), then reps
// launches back to back between one pair (total/reps). It returns when all
// are done, with the first error the stream reported.
func (d *Device) TimeProblem(p Problem, reps int, warmup time.Duration) (Timing, error) {
	cs, err := p.calls()
	if err != nil {
		return Timing{}, err
	}
	if reps < 1 || reps > 1<<20 {
		return Timing{}, fmt.Errorf("cuda: reps %d out of range [1, 2^20]", reps)
	}
	var tm Timing
	err = d.do(func() (err error) {
		ev, err := makeEvents(2*reps + 2)
		if err != nil {
			return err
		}
		defer func() { keep(&err, ev.destroy()) }()
		queued.Store(d, struct{}{})
		defer queued.Delete(d)
		k := 0
		launch := func() error {
			err := d.run(cs[k%len(cs)])
			k++
			return err
		}
		// Estimate one launch, then warm up.
		a, b := ev[0], ev[1]
		if err := record(a); err != nil {
			return err
		}
		for range 3 {
			if err := launch(); err != nil {
				return err
			}
		}
		if err := record(b); err != nil {
			return err
		}
		est, err := elapsedUS(a, b)
		if err != nil {
			return err
		}
		est = max(est/3, 1)
		tm.Warmup = max(10, len(cs), min(2000, int(float64(warmup.Microseconds())/est)))
		for range tm.Warmup {
			if err := launch(); err != nil {
				return err
			}
		}
		// One pair of events per launch.
		for i := range reps {
			if err := record(ev[2*i]); err != nil {
				return err
			}
			if err := launch(); err != nil {
				return err
			}
			if err := record(ev[2*i+1]); err != nil {
				return err
			}
		}
		tm.PerLaunchUS = make([]float64, reps)
		for i := range reps {
			if tm.PerLaunchUS[i], err = elapsedUS(ev[2*i], ev[2*i+1]); err != nil {
				return err
			}
		}
		// Back to back.
		a, b = ev[2*reps], ev[2*reps+1]
		if err := record(a); err != nil {
			return err
		}
		t0 := time.Now()
		for range reps {
			if err := launch(); err != nil {
				return err
			}
		}
		tm.QueueUS = float64(time.Since(t0).Nanoseconds()) / 1e3 / float64(reps)
		if err := record(b); err != nil {
			return err
		}
		total, err := elapsedUS(a, b)
		if err != nil {
			return err
		}
		tm.BatchUS, tm.Batch = total/float64(reps), reps
		if err := cu.Synchronize(); err != nil {
			return fmt.Errorf("cuda: %v over shape %v: %w", cs[0].v.Params, p.Shape, err)
		}
		return nil
	})
	return tm, err
}

// Overhead is the Go-side cost of one call on a problem too small to keep
// the GPU busy, from LaunchOverhead. All figures are microseconds.
type Overhead struct {
	APIUS  float64 // host time of one Forward call: entering do, plan, launch, wait (median)
	HopUS  float64 // host time of a do that does nothing: lock, thread, context (median)
	SyncUS float64 // cuCtxSynchronize with nothing queued (median)
	Timing         // the same problem timed with events by TimeProblem
	// ParamCopyUS is what gorgonia.org/cu adds to each launch to copy the
	// parameter slots to C memory: two C.malloc and two C.free of the
	// slots' size, through cgo (mean of many).
	ParamCopyUS float64
}

// LaunchOverhead measures the host's cost of Forward calls on x and y
// (dtype t, shape, options o), with reps of each measurement.
func (d *Device) LaunchOverhead(t Dtype, shape []int, x, y cu.DevicePtr, o Options, reps int) (Overhead, error) {
	var oh Overhead
	reps = max(reps, 1)
	// Warm the path first.
	for range 10 {
		if err := d.Forward(t, shape, x, y, nil, o); err != nil {
			return oh, err
		}
	}
	host := make([]float64, reps)
	for i := range host {
		t0 := time.Now()
		if err := d.Forward(t, shape, x, y, nil, o); err != nil {
			return oh, err
		}
		host[i] = float64(time.Since(t0).Nanoseconds()) / 1e3
	}
	oh.APIUS = median(host)
	for i := range host {
		t0 := time.Now()
		d.do(func() error { return nil })
		host[i] = float64(time.Since(t0).Nanoseconds()) / 1e3
	}
	oh.HopUS = median(host)
	err := d.do(func() error {
		for i := range host {
			t0 := time.Now()
			if err := cu.Synchronize(); err != nil {
				return fmt.Errorf("cuda: synchronizing: %w", err)
			}
			host[i] = float64(time.Since(t0).Nanoseconds()) / 1e3
		}
		return nil
	})
	if err != nil {
		return oh, err
	}
	oh.SyncUS = median(host)
	tm, err := d.TimeProblem(Problem{Dtype: t, Shape: shape, Options: o, Sets: []BufferSet{{Bufs: []cu.DevicePtr{x, y}}}}, reps, 20*time.Millisecond)
	if err != nil {
		return oh, err
	}
	oh.Timing = tm
	// gorgonia.org/cu's Function.Launch: argv and argp, one pointer per
	// parameter each (32 slots forward, 33 backward).
	const slots, n = 33, 10000
	t0 := time.Now()
	for range n {
		argv := C.malloc(C.size_t(slots * unsafe.Sizeof(uintptr(0))))
		argp := C.malloc(C.size_t(slots * unsafe.Sizeof(uintptr(0))))
		C.free(argv)
		C.free(argp)
	}
	oh.ParamCopyUS = float64(time.Since(t0).Nanoseconds()) / 1e3 / n
	return oh, nil
}

// CopyBandwidth times a device-to-device copy of n bytes
// (cuMemcpyDtoDAsync on the device's stream) with a pair of events per
// copy: warm-up, then the median of reps copies. It returns GB/s counting
// the bytes read plus the bytes written (2n), and the median in µs.
func (d *Device) CopyBandwidth(n int64, reps int) (gbs, us float64, err error) {
	reps = max(reps, 1)
	err = d.do(func() (err error) {
		src, err := cu.MemAlloc(n)
		if err != nil {
			return fmt.Errorf("cuda: allocating %d bytes: %w", n, err)
		}
		defer func() { keep(&err, cu.MemFree(src)) }()
		dst, err := cu.MemAlloc(n)
		if err != nil {
			return fmt.Errorf("cuda: allocating %d bytes: %w", n, err)
		}
		defer func() { keep(&err, cu.MemFree(dst)) }()
		if err := cu.MemsetD8(src, 0x5a, n); err != nil {
			return fmt.Errorf("cuda: filling %d bytes: %w", n, err)
		}
		ev, err := makeEvents(2 * reps)
		if err != nil {
			return err
		}
		defer func() { keep(&err, ev.destroy()) }()
		for range 5 {
			if err := cu.MemcpyDtoDAsync(dst, src, n, cu.NoStream); err != nil {
				return fmt.Errorf("cuda: copying %d bytes: %w", n, err)
			}
		}
		for i := range reps {
			if err := record(ev[2*i]); err != nil {
				return err
			}
			if err := cu.MemcpyDtoDAsync(dst, src, n, cu.NoStream); err != nil {
				return fmt.Errorf("cuda: copying %d bytes: %w", n, err)
			}
			if err := record(ev[2*i+1]); err != nil {
				return err
			}
		}
		t := make([]float64, reps)
		for i := range t {
			if t[i], err = elapsedUS(ev[2*i], ev[2*i+1]); err != nil {
				return err
			}
		}
		us = median(t)
		gbs = 2 * float64(n) / us / 1e3
		return cu.Synchronize()
	})
	return gbs, us, err
}

// Memset sets n bytes of device memory at p to b (poisoning outputs:
// 0xff makes every float type NaN).
func (d *Device) Memset(p cu.DevicePtr, b byte, n int) error {
	return d.do(func() error {
		if err := cu.MemsetD8(p, b, int64(n)); err != nil {
			return fmt.Errorf("cuda: setting %d bytes: %w", n, err)
		}
		return cu.Synchronize()
	})
}

// Describe names the launches a Forward (or Backward, when bwd) call on
// these buffers makes: the tier, kernels, grid, block size, dynamic shared
// memory and whether the 16-byte vector path is on.
func (d *Device) Describe(t Dtype, shape []int, bwd bool, bufs []cu.DevicePtr, mask *Mask, o Options) (string, error) {
	v, mp, err := resolve(t, shape, mask, o)
	if err != nil {
		return "", err
	}
	var s string
	err = d.do(func() error {
		c := &call{dt: t, v: v, bwd: bwd, bufs: bufs, mask: mp}
		p, err := d.makePlan(c)
		if err != nil {
			return err
		}
		vec := "scalar"
		if p.vec {
			vec = "vec16"
		} else if p.shift {
			vec = "vec16 shifted"
		}
		s = fmt.Sprintf("tier %d %v, %d kernel(s), grid %dx%d, %d threads, smem %d, %s",
			int(p.tier), p.tier, len(p.names), p.grid[0], p.grid[1], p.threads, p.smem, vec)
		if strings.Contains(p.names[0], "_lstream_") {
			s += ", streamed"
		}
		if p.cluster > 0 {
			s += fmt.Sprintf(", clusters of %d (%d at once)", p.cluster, d.maxClusters(d.set(c)[p.names[0]], p.threads, p.smem, p.cluster, p.balance))
			if p.balance {
				s += ", load-balanced"
			}
		}
		if p.tier == TierSplit {
			s += fmt.Sprintf(", %d splits of %d", p.splits, p.chunk)
			switch last := p.names[len(p.names)-1]; {
			case strings.Contains(last, "split_pieces"):
				s += ", pieces"
			case strings.Contains(last, "split_fused"):
				s += ", fused"
				if strings.Contains(last, "split_fused_masked") {
					s += ", masked form"
				}
				if p.group > 0 {
					s += fmt.Sprintf(", evict-first below pack %d", p.group)
				}
			}
		}
		s += ", " + strings.Join(p.names, " + ")
		return nil
	})
	return s, err
}

// Props returns the device's multiprocessor count and L2 cache size in
// bytes (what the benchmark sizes its buffer rotation by).
func (d *Device) Props() (sms, l2 int) {
	d.do(func() error { sms, l2 = d.sms, d.l2; return nil })
	return sms, l2
}
