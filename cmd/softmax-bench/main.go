//go:build cu

// Command softmax-bench times this module's CUDA softmax kernels on the
// shapes, dtypes and ops of issue 6 and writes the JSON that cmd/bench-merge
// joins with bench/torch_bench.py's.
//
//	go build -tags cu -o bin/softmax-bench ./cmd/softmax-bench
//	bin/softmax-bench -out $OUT/ours.json            (on the GPU machine)
//
// Method (the same as torch_bench.py's): for each op, dtype and shape,
// fresh inputs (randn*3; masks keep 90%), outputs poisoned with NaN; CUDA
// events on the device's stream around each launch, warm-up first (at
// least 10 launches, one pass over the sets and ~50 ms), then the median of
// -reps per-launch timings. When one call's bytes (reads plus writes) are
// under 3x the L2, launches rotate among floor(3*L2/bytes)+1 buffer sets.
// Each record's note also gives the back-to-back time per launch (events
// around -reps launches, total/reps), the host's time to queue one launch,
// and the tier and launch shape the dispatcher chose. After timing, two
// rows of the outputs are checked (softmax rows sum to 1, masked and
// causal entries are 0, backward rows sum to 0). A 1 GiB device-to-device
// copy timed in the same process gives copy_gbs.
//
// Also measured: the Go-side launch overhead on a 1x1024 float32 softmax
// (records "gosoftmax-launch-*"), and the Gorgonia graph path on host
// tensors, copies in and out included, with SOFTMAX_BACKEND=gpu and cpu
// (records "gosoftmax-graph-gpu" and "gosoftmax-graph-cpu").
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"gorgonia.org/cu"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax"
	"github.com/gosoftmax/softmax/cuda"
	"github.com/gosoftmax/softmax/cukernels"
	"github.com/gosoftmax/softmax/internal/benchfmt"
)

const gib = 1 << 30

var dtypeOf = map[string]cuda.Dtype{"float32": cuda.Float32, "float16": cuda.Float16, "bfloat16": cuda.BFloat16, "float64": cuda.Float64}

func main() {
	defOut := "ours.json"
	if o := os.Getenv("OUT"); o != "" {
		defOut = filepath.Join(o, "ours.json")
	}
	out := flag.String("out", defOut, "JSON output path (default $OUT/ours.json)")
	quick := flag.Bool("quick", false, "a few shapes, few reps: a smoke test")
	reps := flag.Int("reps", 0, "timed launches per case (default 100, quick 20)")
	shapesF := flag.String("shapes", "", "comma-separated shapes to run instead, e.g. 128x1024,16x16x2048x2048")
	dtypesF := flag.String("dtypes", "", "comma-separated dtypes (default float32,float16,bfloat16; float64 also taken)")
	opsF := flag.String("ops", "", "comma-separated ops (default all that apply to each shape)")
	capGiB := flag.Float64("cap-gib", 60, "skip a case whose buffers would exceed this (GiB)")
	copyMiB := flag.Int64("copy-mib", 1024, "size of the copy that gives copy_gbs (MiB)")
	graph := flag.Bool("graph", true, "also time the Gorgonia graph path (GPU vs CPU) and the launch overhead")
	commit := flag.String("commit", "", "commit measured (default: the binary's VCS stamp)")
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "random seed")
	scale := flag.Float64("scale", 1, "the scale the timed ops take (Options.Scale; not the launch-overhead and graph records); the issue's shapes are measured at 1")
	fatbin := flag.String("fatbin", "", "load the default kernels from this file instead of the embedded fatbin (to compare kernel builds in one binary); calls that take the span kernels (float32 and bfloat16 log-softmax under scale 1, any op under 2^-100) still run the embedded span fatbin")
	flag.Parse()
	if *fatbin != "" {
		b, err := os.ReadFile(*fatbin)
		if err != nil {
			fmt.Fprintln(os.Stderr, "softmax-bench: -fatbin:", err)
			os.Exit(2)
		}
		cukernels.Fatbin = string(b) // before the device loads it
	}

	if err := run(options{
		out: *out, quick: *quick, reps: *reps, shapes: *shapesF, dtypes: *dtypesF, ops: *opsF,
		capBytes: int64(*capGiB * gib), copyBytes: *copyMiB << 20, graph: *graph, commit: *commit, seed: *seed, scale: *scale,
	}); err != nil {
		fmt.Fprintln(os.Stderr, "softmax-bench:", err)
		os.Exit(1)
	}
}

type options struct {
	out                         string
	quick                       bool
	reps                        int
	shapes, dtypes, ops, commit string
	capBytes, copyBytes         int64
	graph                       bool
	seed                        uint64
	scale                       float64
}

func vcsCommit() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "unknown", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
			if len(rev) > 7 {
				rev = rev[:7]
			}
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

func writeJSON(path string, doc *Doc) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func run(o options) error {
	reps := o.reps
	if reps == 0 {
		reps = 100
		if o.quick {
			reps = 20
		}
	}
	if !o.quick && reps < 50 {
		fmt.Fprintf(os.Stderr, "note: -reps %d is under the 50 the method asks for\n", reps)
	}
	shapes := allShapes
	if o.quick {
		shapes = quickShapes
	}
	if o.shapes != "" {
		var err error
		if shapes, err = parseShapes(o.shapes); err != nil {
			return err
		}
	}
	dtypes, err := parseList(o.dtypes, knownDtypes, "dtype")
	if err != nil {
		return err
	}
	if o.dtypes == "" {
		dtypes = allDtypes
	}
	onlyOps, err := parseList(o.ops, allOps, "op")
	if err != nil {
		return err
	}

	d, err := cuda.Default()
	if err != nil {
		return err
	}
	name, err := d.Name()
	if err != nil {
		return err
	}
	sms, l2 := d.Props()
	commit := o.commit
	if commit == "" {
		commit = vcsCommit()
	}
	t0 := time.Now()
	copyGBs, copyUS, err := d.CopyBandwidth(o.copyBytes, max(reps, 50))
	if err != nil {
		return err
	}
	doc := &Doc{
		Impl: "gosoftmax", Device: name, CopyGBs: round(copyGBs, 3), CopyBytes: 2 * o.copyBytes,
		Date:   time.Now().UTC().Format("2006-01-02T15:04:05Z"),
		Commit: commit, L2Bytes: l2, SMs: sms, Quick: o.quick,
		Method: fmt.Sprintf("CUDA events on the device's stream around each launch (launches not waited for in between), "+
			"median of %d after warm-up (>= 10 launches, one pass over the sets, ~50 ms); inputs rotated among "+
			"floor(3*L2/bytes)+1 buffer sets when one call's bytes are under 3x L2; randn*3 inputs, NaN-poisoned outputs, "+
			"two output rows checked after timing; note b2b = events around %d back-to-back launches / %d, "+
			"queue = host time to queue one launch", reps, reps, reps),
		Records: []Record{}, Skipped: []Skipped{},
	}
	fmt.Printf("device %s, %d SMs, L2 %d; reps %d; commit %s; out %s\n", name, sms, l2, reps, commit, o.out)
	fmt.Printf("copy %d MiB: %.1f us  %.0f GB/s\n", o.copyBytes>>20, copyUS, copyGBs)
	if err := writeJSON(o.out, doc); err != nil {
		return err
	}
	b := &bench{d: d, l2: int64(l2), reps: reps, copyGBs: copyGBs, doc: doc, seed: o.seed, capBytes: o.capBytes, scale: o.scale}

	if o.graph {
		if err := b.launchOverhead(); err != nil {
			fmt.Println("launch overhead:", err)
			b.doc.Failed = append(b.doc.Failed, "launch overhead: "+err.Error())
		}
	}
	fmt.Printf("%-21s %-9s %16s %11s %7s %6s %5s %9s  %s\n", "op", "dtype", "shape", "us", "GB/s", "%copy", "bufs", "b2b us", "plan")
	for _, dt := range dtypes {
		for _, shape := range shapes {
			var ops []string
			for _, op := range opsFor(shape) {
				if contains(onlyOps, op) {
					ops = append(ops, op)
				}
			}
			if len(ops) == 0 {
				continue
			}
			if err := b.shape(dt, shape, ops); err != nil {
				// Allocation or upload failed: the ops not yet run are lost.
				for _, op := range ops {
					b.skip(op, dt, shape, "error: "+err.Error())
				}
			}
			if err := writeJSON(o.out, doc); err != nil {
				return err
			}
		}
	}
	if o.graph {
		if err := b.graphs(o.quick); err != nil {
			fmt.Println("graph path:", err)
			b.doc.Failed = append(b.doc.Failed, "graph path: "+err.Error())
		}
	}
	doc.Seconds = round(time.Since(t0).Seconds(), 1)
	if err := writeJSON(o.out, doc); err != nil {
		return err
	}
	fmt.Printf("wrote %s in %.0f s\n", o.out, doc.Seconds)
	for _, l := range summary(doc) {
		fmt.Println(l)
	}
	return nil
}

type bench struct {
	d        *cuda.Device
	l2       int64
	reps     int
	copyGBs  float64
	doc      *Doc
	seed     uint64
	nfill    uint64
	capBytes int64
	scale    float64
	launch   []string // launch-overhead lines for the summary
	graph    []string // graph-path lines for the summary
}

// ---------------------------------------------------------------- data

const chunk = 1 << 14 // elements per generator task: small rows still spread over every core

// fill writes n fresh random values (randn*3, as dtype) to device memory
// at p, generated on every core in slabs.
func (b *bench) fill(p cu.DevicePtr, n int64, dt string) error {
	b.nfill++
	stream := b.nfill
	switch dt {
	case "float32":
		return fillSlabs(b, p, n, stream, func(r *rand.Rand) float32 { return float32(3 * r.NormFloat64()) })
	case "float64":
		return fillSlabs(b, p, n, stream, func(r *rand.Rand) float64 { return 3 * r.NormFloat64() })
	case "float16", "bfloat16":
		conv := cuda.Float16Bits
		if dt == "bfloat16" {
			conv = cuda.BFloat16Bits
		}
		return fillSlabs(b, p, n, stream, func(r *rand.Rand) uint16 { return conv(float32(3 * r.NormFloat64())) })
	default:
		return fmt.Errorf("unknown dtype %q", dt)
	}
}

// fillSlabs is fill for elements of type T, each drawn by value: a slab
// of 64M elements at a time is generated on the host and uploaded.
func fillSlabs[T any](b *bench, p cu.DevicePtr, n int64, stream uint64, value func(*rand.Rand) T) error {
	const slab = 64 << 20
	size := int64(unsafe.Sizeof(*new(T)))
	buf := make([]T, min(n, slab))
	for off := int64(0); off < n; off += slab {
		m := min(slab, n-off)
		gen(buf[:m], b.seed, stream, off, value)
		if err := cuda.Upload(b.d, p+cu.DevicePtr(off*size), buf[:m]); err != nil {
			return err
		}
	}
	return nil
}

// fillMask writes n mask bytes to p: 1 (keep) with probability 0.9, else 0.
func (b *bench) fillMask(p cu.DevicePtr, n int64) error {
	b.nfill++
	stream := b.nfill
	const slab = 256 << 20
	limit := uint64(math.Round(keepDensity * 65536)) // P(keep) = 58982/65536 = 0.89999
	buf := make([]byte, min(n, slab))
	for off := int64(0); off < n; off += slab {
		m := min(slab, n-off)
		gen(buf[:m], b.seed, stream, off, func(r *rand.Rand) byte {
			if r.Uint64()&0xffff < limit {
				return 1
			}
			return 0
		})
		if err := cuda.Upload(b.d, p+cu.DevicePtr(off), buf[:m]); err != nil {
			return err
		}
	}
	return nil
}

// gen fills buf in parallel, chunk by chunk, each chunk from its own PCG
// stream, so the values depend on the seed only.
func gen[T any](buf []T, seed, stream uint64, off int64, f func(*rand.Rand) T) {
	var wg sync.WaitGroup
	next := make(chan int64)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := range next {
				hi := min(lo+chunk, int64(len(buf)))
				r := rand.New(rand.NewPCG(seed^stream*0x9e3779b97f4a7c15, uint64(off+lo)))
				for i := lo; i < hi; i++ {
					buf[i] = f(r)
				}
			}
		}()
	}
	for lo := int64(0); lo < int64(len(buf)); lo += chunk {
		next <- lo
	}
	close(next)
	wg.Wait()
}

// ---------------------------------------------------------------- kernels

// devBufs are one (dtype, shape)'s device buffers, shared by its ops.
type devBufs struct {
	x, y, mask, dy, dx []cu.DevicePtr
}

func (b *bench) alloc(list *[]cu.DevicePtr, n int, bytes int64) error {
	for range n {
		p, err := b.d.Alloc(int(bytes))
		if err != nil {
			return err
		}
		*list = append(*list, p)
	}
	return nil
}

// free frees every buffer of db once, and forgets them.
func (b *bench) free(db *devBufs) error {
	var first error
	for _, l := range []*[]cu.DevicePtr{&db.x, &db.y, &db.mask, &db.dy, &db.dx} {
		for _, p := range *l {
			if err := b.d.Free(p); err != nil && first == nil {
				first = err
			}
		}
		*l = nil
	}
	return first
}

// skip records a case not run (or that failed), and why.
func (b *bench) skip(op, dt string, shape []int, reason string) {
	b.doc.Skipped = append(b.doc.Skipped, Skipped{Op: op, Dtype: dt, Shape: shape, Reason: reason})
	fmt.Printf("%-21s %-9s %16s skipped: %s\n", op, dt, benchfmt.ShapeString(shape), reason)
}

// shape runs the ops on one (dtype, shape): it makes the inputs once (the
// most sets any op needs) and gives each op as many sets as its own bytes
// call for.
func (b *bench) shape(dt string, shape []int, ops []string) error {
	n := numel(shape)
	es := int64(elemSize[dt])
	t := int64(n) * es
	nb := map[string]int{}
	nfw, nbw, nmask := 0, 0, 0
	for _, op := range ops {
		by, err := opBytes(op, shape, dt)
		if err != nil {
			return err
		}
		nb[op] = numBufs(by, b.l2)
		switch {
		case isBackward(op):
			nbw = max(nbw, nb[op])
		case op == "masked_softmax":
			nmask = nb[op]
			nfw = max(nfw, nb[op])
		default:
			nfw = max(nfw, nb[op])
		}
	}
	nx := max(nfw, nbw) // backward's y comes from x
	need := int64(nx)*2*t + int64(nmask)*n + int64(nbw)*2*t
	if need > b.capBytes {
		for _, op := range ops {
			b.skip(op, dt, shape, fmt.Sprintf("needs %.1f GiB > cap %.0f GiB", float64(need)/gib, float64(b.capBytes)/gib))
		}
		return nil
	}
	db := &devBufs{}
	defer b.free(db)
	tgen := time.Now()
	if err := b.alloc(&db.x, nx, t); err != nil {
		return err
	}
	if err := b.alloc(&db.y, nx, t); err != nil {
		return err
	}
	for _, p := range db.x {
		if err := b.fill(p, n, dt); err != nil {
			return err
		}
	}
	if nmask > 0 {
		if err := b.alloc(&db.mask, nmask, n); err != nil {
			return err
		}
		for _, p := range db.mask {
			if err := b.fillMask(p, n); err != nil {
				return err
			}
		}
	}
	if nbw > 0 {
		if err := b.alloc(&db.dy, nbw, t); err != nil {
			return err
		}
		if err := b.alloc(&db.dx, nbw, t); err != nil {
			return err
		}
		for _, p := range db.dy {
			if err := b.fill(p, n, dt); err != nil {
				return err
			}
		}
	}
	genS := time.Since(tgen).Seconds()
	if genS > 2 {
		fmt.Printf("(inputs for %s %s: %d sets in %.1f s)\n", dt, benchfmt.ShapeString(shape), nx, genS)
	}
	for _, op := range ops {
		if err := b.op(dt, shape, op, nb[op], db); err != nil {
			b.skip(op, dt, shape, "error: "+err.Error())
		}
	}
	return b.free(db)
}

// op times one op on the first nbuf sets of db.
func (b *bench) op(dt string, shape []int, op string, nbuf int, db *devBufs) error {
	t := dtypeOf[dt]
	n := numel(shape)
	outBytes := int(n) * t.Size()
	// Options' zero Axis is the first axis: every op here reduces the last.
	p := cuda.Problem{Dtype: t, Shape: shape, Backward: isBackward(op), Options: cuda.Options{Axis: -1, Scale: b.scale}}
	var outs []cu.DevicePtr
	switch op {
	case "log_softmax", "log_softmax_backward":
		p.Options.Log = true
	case "causal_softmax":
		p.Options.Causal = true
	}
	for j := range nbuf {
		switch {
		case p.Backward:
			// y = softmax(x) (log-softmax for its backward), as PyTorch's side makes it.
			if err := b.d.Forward(t, shape, db.x[j], db.y[j], nil, cuda.Options{Axis: -1, Log: p.Options.Log, Scale: b.scale}); err != nil {
				return err
			}
			p.Sets = append(p.Sets, cuda.BufferSet{Bufs: []cu.DevicePtr{db.y[j], db.dy[j], db.dx[j]}})
			outs = append(outs, db.dx[j])
		case op == "masked_softmax":
			p.Sets = append(p.Sets, cuda.BufferSet{Bufs: []cu.DevicePtr{db.x[j], db.y[j]},
				Mask: &cuda.Mask{Ptr: db.mask[j], Shape: shape}})
			outs = append(outs, db.y[j])
		default:
			p.Sets = append(p.Sets, cuda.BufferSet{Bufs: []cu.DevicePtr{db.x[j], db.y[j]}})
			outs = append(outs, db.y[j])
		}
	}
	for _, o := range outs {
		if err := b.d.Memset(o, 0xff, outBytes); err != nil {
			return err
		}
	}
	plan, err := b.d.Describe(t, shape, p.Backward, p.Sets[0].Bufs, p.Sets[0].Mask, p.Options)
	if err != nil {
		return err
	}
	tm, err := b.d.TimeProblem(p, b.reps, 50*time.Millisecond)
	if err != nil {
		return err
	}
	bytes, _ := opBytes(op, shape, dt)
	note := fmt.Sprintf("b2b %.2f us, queue %.2f us, warm-up %d; %s", tm.BatchUS, tm.QueueUS, tm.Warmup, plan)
	if op == "causal_softmax" {
		note = "Causal(0) computed in the kernel, no mask buffer (bytes 2*n*es); " + note
	}
	if b.scale != 1 {
		note = fmt.Sprintf("scale %g; %s", b.scale, note)
	}
	if op == "masked_softmax" {
		note = "1-byte keep mask per element, full shape, keep density 0.9; " + note
	}
	if msg := b.check(op, dt, shape, p, len(p.Sets)); msg != "" {
		f := fmt.Sprintf("%s %s %s: %s", op, dt, benchfmt.ShapeString(shape), msg)
		b.doc.Failed = append(b.doc.Failed, f)
		note = "CHECK FAILED: " + msg + "; " + note
		fmt.Println("check failed:", f)
	}
	rec := makeRecord("gosoftmax", op, dt, shape, tm.Median(), bytes, nbuf, b.copyGBs, len(tm.PerLaunchUS), note)
	b.doc.Records = append(b.doc.Records, rec)
	fmt.Printf("%-21s %-9s %16s %11.2f %7.0f %5.1f%% %5d %9.2f  %s\n", op, dt, benchfmt.ShapeString(shape),
		rec.MedianUS, rec.GBs, rec.PctCopy, nbuf, tm.BatchUS, plan)
	return nil
}

// row downloads row r (of the last axis) of buffer p as float64.
func (b *bench) row(p cu.DevicePtr, dt string, n, r int64) ([]float64, error) {
	out := make([]float64, n)
	switch dt {
	case "float32":
		h := make([]float32, n)
		if err := cuda.Download(b.d, h, p+cu.DevicePtr(r*n*4)); err != nil {
			return nil, err
		}
		for i, v := range h {
			out[i] = float64(v)
		}
	case "float64":
		if err := cuda.Download(b.d, out, p+cu.DevicePtr(r*n*8)); err != nil {
			return nil, err
		}
	default:
		h := make([]uint16, n)
		if err := cuda.Download(b.d, h, p+cu.DevicePtr(r*n*2)); err != nil {
			return nil, err
		}
		conv := cuda.Float16From
		if dt == "bfloat16" {
			conv = cuda.BFloat16From
		}
		for i, v := range h {
			out[i] = float64(conv(v))
		}
	}
	return out, nil
}

// check looks at the first row of the first set's output and the last row
// of the last set's: every element written and finite where it must be,
// softmax rows summing to 1 with masked entries 0, backward rows summing
// to s*c*(1 - sum y), 0 but for y's rounding. It returns what is wrong, or
// "".
func (b *bench) check(op, dt string, shape []int, p cuda.Problem, sets int) string {
	n := int64(shape[len(shape)-1])
	rows := numel(shape) / n
	tol, abstol := 2e-3, 1e-6
	if dt != "float32" && dt != "float64" {
		tol = 3e-2
	}
	if dt == "float16" {
		// float16 outputs under 6e-8 round to the subnormal grid: up to
		// 3e-8 each, all of one sign in the worst case (long rows).
		abstol += float64(n) * 2.98e-8
	}
	for _, at := range [][2]int64{{0, 0}, {int64(sets - 1), rows - 1}} {
		set, r := at[0], at[1]
		bufs := p.Sets[set].Bufs
		out, err := b.row(bufs[len(bufs)-1], dt, n, r)
		if err != nil {
			return err.Error()
		}
		where := fmt.Sprintf("set %d row %d", set, r)
		var keep []byte
		if p.Sets[set].Mask != nil {
			keep = make([]byte, n)
			if err := cuda.Download(b.d, keep, p.Sets[set].Mask.Ptr+cu.DevicePtr(r*n)); err != nil {
				return err.Error()
			}
		}
		if p.Options.Causal {
			i := r % int64(shape[len(shape)-2])
			keep = make([]byte, n)
			for j := int64(0); j <= i && j < n; j++ {
				keep[j] = 1
			}
		}
		switch {
		case p.Backward:
			// dx sums to s*c*(1 - sum y) (log-softmax: s*sum dy*(1 - sum
			// exp(y))): 0 but for the rounding of y to its type, which for
			// bfloat16 rows of a few large entries passes 3% of sum |dx|.
			y, err := b.row(bufs[0], dt, n, r)
			if err != nil {
				return err.Error()
			}
			dy, err := b.row(bufs[1], dt, n, r)
			if err != nil {
				return err.Error()
			}
			var sum, abs, sy, c float64
			for i, v := range out {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Sprintf("%s: dx[%d] = %v", where, i, v)
				}
				sum += v
				abs += math.Abs(v)
				if p.Options.Log {
					sy += math.Exp(y[i])
					c += dy[i]
				} else {
					sy += y[i]
					c += y[i] * dy[i]
				}
			}
			want := b.scale * c * (1 - sy)
			if math.Abs(sum-want) > tol*abs+abstol {
				return fmt.Sprintf("%s: dx sums to %.3g (sum |dx| %.3g), want %.3g", where, sum, abs, want)
			}
		default:
			var sum float64
			for i, v := range out {
				masked := keep != nil && keep[i] == 0
				switch {
				case masked && p.Options.Log && !math.IsInf(v, -1):
					return fmt.Sprintf("%s: masked y[%d] = %v, want -Inf", where, i, v)
				case masked && !p.Options.Log && v != 0:
					return fmt.Sprintf("%s: masked y[%d] = %v, want 0", where, i, v)
				case masked:
				case math.IsNaN(v) || math.IsInf(v, 0) || (!p.Options.Log && v < 0):
					return fmt.Sprintf("%s: y[%d] = %v", where, i, v)
				case p.Options.Log:
					sum += math.Exp(v)
				default:
					sum += v
				}
			}
			if math.Abs(sum-1) > tol+abstol {
				return fmt.Sprintf("%s: row sums to %.6g, want 1", where, sum)
			}
		}
	}
	return ""
}

// ---------------------------------------------------------------- launch overhead

func (b *bench) launchOverhead() (err error) {
	shape := []int{1, 1024}
	n := numel(shape)
	x, err := b.d.Alloc(int(n * 4))
	if err != nil {
		return err
	}
	defer func() {
		if e := b.d.Free(x); e != nil && err == nil {
			err = e
		}
	}()
	y, err := b.d.Alloc(int(n * 4))
	if err != nil {
		return err
	}
	defer func() {
		if e := b.d.Free(y); e != nil && err == nil {
			err = e
		}
	}()
	if err := b.fill(x, n, "float32"); err != nil {
		return err
	}
	oh, err := b.d.LaunchOverhead(cuda.Float32, shape, x, y, cuda.Options{Axis: -1}, 1000)
	if err != nil {
		return err
	}
	bytes := 2 * n * 4
	ev := oh.Median()
	add := func(impl string, us float64, note string) {
		b.doc.Records = append(b.doc.Records, makeRecord(impl, "softmax", "float32", shape, us, bytes, 1, b.copyGBs, 1000, note))
	}
	add("gosoftmax-launch-api", oh.APIUS, fmt.Sprintf("host time of one Device.Forward call (median of 1000): entering do "+
		"%.2f us + plan + launch + cuCtxSynchronize (%.2f us when idle); Go-side overhead over the event time: %.2f us",
		oh.HopUS, oh.SyncUS, oh.APIUS-ev))
	add("gosoftmax-launch-event", ev, fmt.Sprintf("GPU time between events around one launch (median); back to back %.2f us per launch", oh.BatchUS))
	add("gosoftmax-launch-queue", oh.QueueUS, fmt.Sprintf("host time to queue one launch without waiting (plan, slots, cu.Launch); "+
		"of which gorgonia.org/cu's per-launch C parameter copy (2 malloc + 2 free, 33 slots): %.3f us", oh.ParamCopyUS))
	b.launch = []string{
		fmt.Sprintf("launch overhead, float32 1x1024 softmax: Forward call %.2f us host, kernel %.2f us between events "+
			"(%.2f us back to back); queue one launch %.2f us (cu's param copy %.3f us); empty do %.2f us, idle sync %.2f us",
			oh.APIUS, ev, oh.BatchUS, oh.QueueUS, oh.ParamCopyUS, oh.HopUS, oh.SyncUS),
	}
	fmt.Println(b.launch[0])
	return nil
}

// ---------------------------------------------------------------- graph path

// graphShapes are the shapes the Gorgonia graph path is timed on.
var graphShapes = [][]int{{128, 1024}, {2048, 1024}, {2048, 8192}, {8192, 4096}, {1024, 32000}}

// graphs times softmax.SoftMax in a TapeMachine on a host float32 tensor,
// with SOFTMAX_BACKEND=gpu (copy in, kernel, copy out, device memory per
// call) and cpu.
func (b *bench) graphs(quick bool) error {
	shapes := graphShapes
	if quick {
		shapes = shapes[:3]
	}
	prev, had := os.LookupEnv("SOFTMAX_BACKEND")
	defer func() {
		if had {
			os.Setenv("SOFTMAX_BACKEND", prev)
		} else {
			os.Unsetenv("SOFTMAX_BACKEND")
		}
	}()
	fmt.Printf("graph path (TapeMachine.RunAll, softmax float32 on a host tensor; %s)\n", softmax.Backend())
	for _, shape := range shapes {
		n := numel(shape)
		host := make([]float32, n)
		b.nfill++
		gen(host, b.seed, b.nfill, 0, func(r *rand.Rand) float32 { return float32(3 * r.NormFloat64()) })
		var us [2]float64
		for i, be := range []string{"gpu", "cpu"} {
			os.Setenv("SOFTMAX_BACKEND", be)
			med, runs, err := timeGraph(shape, host)
			if err != nil {
				return fmt.Errorf("graph %s %s: %w", be, benchfmt.ShapeString(shape), err)
			}
			us[i] = med
			note := "softmax.SoftMax in a gorgonia TapeMachine on a host tensor, RunAll per run (median); "
			if be == "gpu" {
				note += "SOFTMAX_BACKEND=gpu: device alloc, copy in, kernel, copy out, free per run"
			} else {
				note += fmt.Sprintf("SOFTMAX_BACKEND=cpu, GOMAXPROCS %d", runtime.GOMAXPROCS(0))
			}
			rec := makeRecord("gosoftmax-graph-"+be, "softmax", "float32", shape, med, 2*n*4, 1, b.copyGBs, runs, note)
			b.doc.Records = append(b.doc.Records, rec)
			fmt.Printf("  %-4s %16s %11.1f us %7.1f GB/s\n", be, benchfmt.ShapeString(shape), med, rec.GBs)
		}
		b.graph = append(b.graph, fmt.Sprintf("graph %s: gpu %.0f us, cpu %.0f us (gpu %.2fx the cpu's speed)",
			benchfmt.ShapeString(shape), us[0], us[1], us[1]/us[0]))
	}
	return nil
}

// timeGraph builds y = SoftMax(x) on a graph holding host and returns the
// median wall time of RunAll (2 warm-up runs, then up to 30 runs or about
// 1.5 s, at least 5), after checking the first row sums to 1.
func timeGraph(shape []int, host []float32) (float64, int, error) {
	g := gorgonia.NewGraph()
	xt := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(host))
	x := gorgonia.NewTensor(g, tensor.Float32, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName("x"), gorgonia.WithValue(xt))
	y, err := softmax.SoftMax(x)
	if err != nil {
		return 0, 0, err
	}
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	step := func() (float64, error) {
		t0 := time.Now()
		err := vm.RunAll()
		us := float64(time.Since(t0).Nanoseconds()) / 1e3
		vm.Reset()
		return us, err
	}
	for range 2 {
		if _, err := step(); err != nil {
			return 0, 0, err
		}
	}
	var times []float64
	start := time.Now()
	for len(times) < 30 && (len(times) < 5 || time.Since(start) < 1500*time.Millisecond) {
		us, err := step()
		if err != nil {
			return 0, 0, err
		}
		times = append(times, us)
	}
	yv, ok := y.Value().Data().([]float32)
	if !ok {
		return 0, 0, fmt.Errorf("y holds %T", y.Value().Data())
	}
	var sum float64
	for _, v := range yv[:shape[len(shape)-1]] {
		sum += float64(v)
	}
	if math.Abs(sum-1) > 1e-3 {
		return 0, 0, fmt.Errorf("row 0 of y sums to %v", sum)
	}
	sort.Float64s(times)
	med := times[len(times)/2]
	if len(times)%2 == 0 {
		med = (times[len(times)/2-1] + med) / 2
	}
	return med, len(times), nil
}

// ---------------------------------------------------------------- summary

func summary(doc *Doc) []string {
	var main []Record
	for _, r := range doc.Records {
		if r.Impl == "gosoftmax" {
			main = append(main, r)
		}
	}
	lines := []string{fmt.Sprintf("copy %.0f GB/s; %d records, %d skipped, %d failed checks",
		doc.CopyGBs, len(main), len(doc.Skipped), len(doc.Failed))}
	if len(main) > 0 {
		lo, hi := main[0], main[0]
		for _, r := range main {
			if r.PctCopy < lo.PctCopy {
				lo = r
			}
			if r.PctCopy > hi.PctCopy {
				hi = r
			}
		}
		for _, p := range []struct {
			name string
			r    Record
		}{{"lowest", lo}, {"highest", hi}} {
			lines = append(lines, fmt.Sprintf("%s %% of copy: %.1f%% %s %s %s", p.name, p.r.PctCopy, p.r.Op, p.r.Dtype, benchfmt.ShapeString(p.r.Shape)))
		}
		for _, dt := range allDtypes {
			var best *Record
			for i, r := range main {
				if r.Dtype == dt && r.Op == "softmax" && (best == nil || r.GBs > best.GBs) {
					best = &main[i]
				}
			}
			if best != nil {
				lines = append(lines, fmt.Sprintf("softmax %s: best %.0f GB/s (%.0f%%) at %s", dt, best.GBs, best.PctCopy, benchfmt.ShapeString(best.Shape)))
			}
		}
		for _, s := range []string{"4x1048576", "4x8388608", "4x33554432"} {
			var parts []string
			for _, r := range main {
				if benchfmt.ShapeString(r.Shape) == s && (r.Op == "softmax" || r.Op == "masked_softmax") {
					parts = append(parts, fmt.Sprintf("%s %s %.0f%%", r.Op, r.Dtype, r.PctCopy))
				}
			}
			if len(parts) > 0 {
				lines = append(lines, "long rows "+s+": "+strings.Join(parts, ", "))
			}
		}
	}
	for _, r := range doc.Records {
		if strings.HasPrefix(r.Impl, "gosoftmax-launch-api") {
			lines = append(lines, fmt.Sprintf("launch: Forward call %.2f us host (%s)", r.MedianUS, r.Note))
		}
	}
	lines = append(lines, graphLines(doc)...)
	for _, f := range doc.Failed {
		lines = append(lines, "FAILED "+f)
	}
	return lines
}

func graphLines(doc *Doc) []string {
	gpu := map[string]float64{}
	var out []string
	for _, r := range doc.Records {
		if r.Impl == "gosoftmax-graph-gpu" {
			gpu[benchfmt.ShapeString(r.Shape)] = r.MedianUS
		}
	}
	for _, r := range doc.Records {
		if r.Impl == "gosoftmax-graph-cpu" {
			s := benchfmt.ShapeString(r.Shape)
			if g, ok := gpu[s]; ok {
				out = append(out, fmt.Sprintf("graph %s: gpu %.0f us, cpu %.0f us (%.2fx)", s, g, r.MedianUS, r.MedianUS/g))
			}
		}
	}
	return out
}
