//go:build cu

package cuda

// #cgo LDFLAGS: -lcuda
// #include <cuda.h>
// #include <stdint.h>
// #include <stdlib.h>
//
// static CUresult setMaxDynamicShared(CUfunction fn, int bytes) {
// 	return cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
// }
//
// // allowLargeClusters lets fn run clusters past the portable 8 blocks.
// static CUresult allowLargeClusters(CUfunction fn) {
// 	return cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
// }
//
// // clusterOf is the launch attribute for clusters of n blocks along x.
// static CUlaunchAttribute clusterOf(unsigned n) {
// 	CUlaunchAttribute a;
// 	a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
// 	a.value.clusterDim.x = n;
// 	a.value.clusterDim.y = 1;
// 	a.value.clusterDim.z = 1;
// 	return a;
// }
//
// // clusterAttrs fills a with the launch attributes of clusters of n
// // blocks along x, scheduled by load balancing where balance is set (the
// // driver's default spreads a cluster's blocks over as many SMs), and
// // returns how many it filled.
// static unsigned clusterAttrs(CUlaunchAttribute *a, unsigned n, int balance) {
// 	a[0] = clusterOf(n);
// 	if (!balance) return 1;
// 	a[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
// 	a[1].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING;
// 	return 2;
// }
//
// // launch starts fn on the default stream; cluster > 1 launches clusters
// // of that many blocks along x (cuLaunchKernelEx, compute capability 9.0),
// // by load balancing where balance is set; coop launches a grid whose
// // blocks all run at once, or fails.
// static CUresult launch(CUfunction fn, unsigned gx, unsigned gy, unsigned bx, unsigned smem, unsigned cluster,
//                        int balance, int coop, void **params) {
// 	if (coop) return cuLaunchCooperativeKernel(fn, gx, gy, 1, bx, 1, 1, smem, 0, params);
// 	if (cluster <= 1) return cuLaunchKernel(fn, gx, gy, 1, bx, 1, 1, smem, 0, params, NULL);
// 	CUlaunchAttribute attr[2];
// 	CUlaunchConfig cfg = {gx, gy, 1, bx, 1, 1, smem, 0, attr, clusterAttrs(attr, cluster, balance)};
// 	return cuLaunchKernelEx(&cfg, fn, params, NULL);
// }
//
// static const char *errName(CUresult r) {
// 	const char *s = NULL;
// 	if (cuGetErrorName(r, &s) != CUDA_SUCCESS || s == NULL) return "unknown CUresult";
// 	return s;
// }
//
// // maxClusters is how many clusters of fn can run at once.
// static CUresult maxClusters(int *n, CUfunction fn, unsigned bx, unsigned smem, unsigned cluster, int balance) {
// 	CUlaunchAttribute attr[2];
// 	CUlaunchConfig cfg = {cluster, 1, 1, bx, 1, 1, smem, 0, attr, clusterAttrs(attr, cluster, balance)};
// 	return cuOccupancyMaxActiveClusters(n, fn, &cfg);
// }
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gosoftmax/softmax/cukernels"
	"github.com/gosoftmax/softmax/internal/gpu"
)

// Device is one GPU with the softmax kernels loaded. CUDA contexts are
// current per OS thread and goroutines move between threads, so every CUDA
// call runs inside do: under the device's lock, on the caller's goroutine
// locked to its OS thread, with the device's primary context made current
// there. Any goroutine may call any method at any time; calls are served
// one at a time. (An earlier design handed each call to one goroutine
// locked to one thread: the hand-off cost 15.7 us per call on the H200
// machine, more than a small kernel.)
type Device struct {
	mu sync.Mutex

	// Read and used only inside do, after start.
	dev          cu.Device
	ctx          cu.CUContext
	mod          cu.Module
	kernels      map[string]*kernel
	spanMod      cu.Module          // cukernels.SpanFatbin's module
	spanKernels  map[string]*kernel // and kernels, for spanCall's calls
	noPipe       bool               // tests: tier 1 without its pipelined kernels
	noPacked     bool               // tests: tier 1 without its packed kernels
	packed       bool               // tests: tier 1's packed kernels wherever they can run
	noStream     bool               // tests: tier 1 without its streamed log-softmax backward
	noCGridLog   bool               // tests: tier 8's log-softmax backward on bwd_cgrid (both arrays held)
	noCGridShift bool               // tests: tier 8 takes rows of a part pack a column at a time
	wide         bool               // tests: tier 1's wide backward wherever it can run
	strided      bool               // tests: tier 1's strided kernels wherever they can run
	stridedLoop  bool               // tests: the strided kernels' looping form where the one-row form would run
	stridedBatch bool               // tests: the batched one-row strided kernel wherever it can run
	noStrided    bool               // tests: tier 1 without the strided rule (gpu.StridedOn), as before it
	staged       bool               // tests: tier 1's staged kernels wherever they can run
	noStaged     bool               // tests: tier 1 without the staged rule (gpu.StagedOn), as before it
	stagedRows   int                // tests: the staged kernels' rows a thread (0: gpu.StagedRows)
	stagedWarp   bool               // tests: the staged kernels' warp form wherever it can run (gpu.StagedWarpShape), not only where gpu.StagedWarpOn says
	once         bool               // tests: tier 1's one-row kernel wherever it can run
	shift        bool               // tests: tier 1's shifted kernels wherever they fit
	pipe         bool               // tests: tier 1's pipelined kernels wherever they can run
	pipeBlocks   int                // tests: at most this many blocks (clusters) walk a pipelined tier 1 (cluster tier) call's rows
	sms          int                // multiprocessors
	smemOptin    int                // shared memory per block after opting in, bytes
	l2           int                // L2 cache, bytes
	work         cu.DevicePtr
	workBytes    int64
	clusters     bool // thread block clusters: compute capability 9.0 or later
	coop         bool // cooperative launches
	cgridMost    int  // tier 8's largest cluster: 16 where the driver allows, else 8
	cgridBlocks  int  // tier 8's cluster size where it fits (tests, SOFTMAX_CGRID_BLOCKS); 0: gpu.CGridPick's
	// The grid tier's barrier words, one per row on its own 128-byte line
	// (syncStride words a row, at most gridMaxPerSM rows per SM), zeroed once;
	// every launch flips its bit 31 and leaves its low bits as they were
	// (cukernels/grid.cuh, grid_barrier).
	gridSync cu.DevicePtr
	// The kernel parameters of a launch, in C memory allocated once (Go
	// memory may not hold the pointers the driver reads; one allocation
	// serves every launch, calls being serialized): params[i] points at
	// slots[i].
	slots  *C.uint64_t
	params *unsafe.Pointer
}

// clusterKey is a cluster launch's layout: threads and bytes of dynamic
// shared memory a block, blocks a cluster, and the scheduling policy.
type clusterKey struct {
	threads, smem, blocks int
	balance               bool
}

// maxSlots is the most 8-byte kernel parameters a launch passes.
const maxSlots = 40

// kernel is one loaded entry point and what launching it needs.
type kernel struct {
	name       string
	fn         cu.Function
	maxThreads int                // per block, from the function's registers
	dynSmem    int                // largest dynamic shared memory a launch may ask for
	occ        map[[2]int]int     // blocks per SM by (threads, dynamic shared memory)
	clusterOcc map[clusterKey]int // clusters at once, by layout
}

var (
	openOnce  sync.Once
	openDev   *Device
	openErr   error
	attrOptin = cu.DeviceAttribute(C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
	// attrClusterLaunch is CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH.
	attrClusterLaunch = cu.DeviceAttribute(C.CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)
	attrCoopLaunch    = cu.DeviceAttribute(C.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)
)

// Default returns device 0, starting it on first use: its thread, its
// primary context and the kernels. Later calls return the same Device, or
// the same error.
func Default() (*Device, error) {
	openOnce.Do(func() { openDev, openErr = start(0) })
	return openDev, openErr
}

func start(ordinal int) (*Device, error) {
	d := &Device{}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := d.init(ordinal); err != nil {
		return nil, err
	}
	return d, nil
}

// do runs f with the device's context current on the calling thread, one
// call at a time, and returns f's error. f must not call do.
func (d *Device) do(f func() error) error {
	if d == nil || d.kernels == nil {
		return fmt.Errorf("cuda: device not opened; use cuda.Default")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cu.SetCurrentContext(d.ctx); err != nil {
		return fmt.Errorf("cuda: making the context current: %w", err)
	}
	return f()
}

func (d *Device) init(ordinal int) error {
	var err error
	if d.dev, err = cu.GetDevice(ordinal); err != nil {
		return fmt.Errorf("cuda: device %d: %w", ordinal, err)
	}
	if d.ctx, err = d.dev.RetainPrimaryCtx(); err != nil {
		return fmt.Errorf("cuda: primary context of device %d: %w", ordinal, err)
	}
	if err = cu.SetCurrentContext(d.ctx); err != nil {
		return fmt.Errorf("cuda: making the context current: %w", err)
	}
	for _, a := range []struct {
		attr cu.DeviceAttribute
		dst  *int
		name string
	}{
		{cu.MultiprocessorCount, &d.sms, "multiprocessor count"},
		{attrOptin, &d.smemOptin, "shared memory per block (opt-in)"},
		{cu.L2CacheSize, &d.l2, "L2 cache size"},
	} {
		if *a.dst, err = d.dev.Attribute(a.attr); err != nil {
			return fmt.Errorf("cuda: reading the %s: %w", a.name, err)
		}
	}
	coop, err := d.dev.Attribute(attrCoopLaunch)
	if err != nil {
		return fmt.Errorf("cuda: reading cooperative launch support: %w", err)
	}
	d.coop = coop != 0
	major, err := d.dev.Attribute(cu.ComputeCapabilityMajor)
	if err != nil {
		return fmt.Errorf("cuda: reading the compute capability: %w", err)
	}
	if major >= 9 {
		cl, err := d.dev.Attribute(attrClusterLaunch)
		if err != nil {
			return fmt.Errorf("cuda: reading cluster launch support: %w", err)
		}
		d.clusters = cl != 0
	}
	d.slots = (*C.uint64_t)(C.malloc(C.size_t(8 * maxSlots)))
	d.params = (*unsafe.Pointer)(C.malloc(C.size_t(unsafe.Sizeof(unsafe.Pointer(nil)) * maxSlots)))
	if d.slots == nil || d.params == nil {
		return fmt.Errorf("cuda: allocating %d kernel parameter slots", maxSlots)
	}
	slots := unsafe.Slice(d.slots, maxSlots)
	params := unsafe.Slice(d.params, maxSlots)
	for i := range params {
		params[i] = unsafe.Pointer(&slots[i])
	}
	if d.mod, d.kernels, err = d.loadKernels("fatbin", cukernels.Fatbin, kernelNames()); err != nil {
		return err
	}
	if d.spanMod, d.spanKernels, err = d.loadKernels("span fatbin", cukernels.SpanFatbin, spanKernelNames()); err != nil {
		return err
	}
	d.cgridMost, d.cgridBlocks = gpu.ClusterMaxBlocks, gpu.CGridBlocks
	if d.clusters {
		// Tier 8 takes clusters of 16 blocks where every one of its kernels
		// may run them (a driver that refuses leaves it at 8).
		most := gpu.CGridMaxBlocks
		for _, set := range []map[string]*kernel{d.kernels, d.spanKernels} {
			for name, k := range set {
				if strings.Contains(name, "_cgrid_") && C.allowLargeClusters(k.cfn()) != C.CUDA_SUCCESS {
					most = gpu.ClusterMaxBlocks
				}
			}
		}
		d.cgridMost = most
	}
	return nil
}

// loadKernels loads a kernel image as a module and looks up the named
// kernels in it, each with its limits, its shared memory raised to what
// the device allows a block.
func (d *Device) loadKernels(what, image string, names []string) (cu.Module, map[string]*kernel, error) {
	mod, err := cu.LoadData(image)
	if err != nil {
		return mod, nil, fmt.Errorf("cuda: loading the kernel %s (%d bytes): %w", what, len(image), err)
	}
	kernels := make(map[string]*kernel, len(names))
	for _, name := range names {
		k := &kernel{name: name}
		if k.fn, err = mod.Function(name); err != nil {
			return mod, nil, fmt.Errorf("cuda: kernel %s: %w", name, err)
		}
		if k.maxThreads, err = k.fn.Attribute(cu.FnMaxThreadsPerBlock); err != nil {
			return mod, nil, fmt.Errorf("cuda: kernel %s: max threads: %w", name, err)
		}
		static, err := k.fn.Attribute(cu.SharedSizeBytes)
		if err != nil {
			return mod, nil, fmt.Errorf("cuda: kernel %s: static shared memory: %w", name, err)
		}
		k.dynSmem = 48<<10 - static
		if d.smemOptin-static > k.dynSmem {
			fn := *(*C.CUfunction)(unsafe.Pointer(&k.fn))
			if r := C.setMaxDynamicShared(fn, C.int(d.smemOptin-static)); r != C.CUDA_SUCCESS {
				return mod, nil, fmt.Errorf("cuda: kernel %s: raising its shared memory to %d bytes: CUresult %d", name, d.smemOptin-static, int(r))
			}
			k.dynSmem = d.smemOptin - static
		}
		kernels[name] = k
	}
	return mod, kernels, nil
}

// workspace returns device memory of at least n bytes for split rows,
// reused across calls (calls run one at a time, inside do).
func (d *Device) workspace(n int64) (cu.DevicePtr, error) {
	if n <= d.workBytes {
		return d.work, nil
	}
	if d.workBytes > 0 {
		if err := cu.MemFree(d.work); err != nil {
			return 0, fmt.Errorf("cuda: freeing the workspace: %w", err)
		}
		d.work, d.workBytes = 0, 0
	}
	p, err := cu.MemAlloc(n)
	if err != nil {
		return 0, fmt.Errorf("cuda: allocating a %d-byte workspace: %w", n, err)
	}
	d.work, d.workBytes = p, n
	return p, nil
}

// syncStride is the words a row takes in the grid tier's barrier memory:
// its word and the rest of a 128-byte line (cukernels/grid.cuh,
// SM_SYNC_STRIDE), so no two rows' blocks add and poll on one line.
const syncStride = 32

// gridBarriers returns the grid tier's barrier words, syncStride words a
// row of which the barrier uses the first, allocating and zeroing them on
// first use (inside do). The kernels leave them ready for the next launch.
func (d *Device) gridBarriers() (cu.DevicePtr, error) {
	if d.gridSync != 0 {
		return d.gridSync, nil
	}
	words := int64(syncStride * gridMaxPerSM * d.sms)
	p, err := cu.MemAlloc(4 * words)
	if err != nil {
		return 0, fmt.Errorf("cuda: allocating the grid tier's %d barrier words: %w", words, err)
	}
	if err := cu.MemsetD32(p, 0, words); err != nil {
		return 0, errors.Join(fmt.Errorf("cuda: zeroing the grid tier's barrier words: %w", err), cu.MemFree(p))
	}
	d.gridSync = p
	return p, nil
}

// Name is the device's name.
func (d *Device) Name() (string, error) {
	var name string
	err := d.do(func() (err error) { name, err = d.dev.Name(); return err })
	return name, err
}

// Alloc allocates n bytes of device memory in the device's context.
func (d *Device) Alloc(n int) (cu.DevicePtr, error) {
	var p cu.DevicePtr
	err := d.do(func() (err error) {
		if p, err = cu.MemAlloc(int64(n)); err != nil {
			return fmt.Errorf("cuda: allocating %d bytes: %w", n, err)
		}
		return nil
	})
	return p, err
}

// Free frees memory from Alloc.
func (d *Device) Free(p cu.DevicePtr) error {
	return d.do(func() error {
		if err := cu.MemFree(p); err != nil {
			return fmt.Errorf("cuda: freeing %v: %w", p, err)
		}
		return nil
	})
}

// Upload copies src to device memory at dst. T is the element type in
// host memory: float32, float64, uint16 (the bits of float16 or bfloat16),
// bool or byte (a mask).
func Upload[T any](d *Device, dst cu.DevicePtr, src []T) error {
	if len(src) == 0 {
		return nil
	}
	return d.do(func() error {
		n := int64(len(src)) * int64(unsafe.Sizeof(src[0]))
		err := cu.MemcpyHtoD(dst, unsafe.Pointer(&src[0]), n)
		runtime.KeepAlive(src)
		if err != nil {
			return fmt.Errorf("cuda: copying %d bytes to the device: %w", n, err)
		}
		return nil
	})
}

// Download copies device memory at src into dst.
func Download[T any](d *Device, dst []T, src cu.DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	return d.do(func() error {
		n := int64(len(dst)) * int64(unsafe.Sizeof(dst[0]))
		err := cu.MemcpyDtoH(unsafe.Pointer(&dst[0]), src, n)
		runtime.KeepAlive(dst)
		if err != nil {
			return fmt.Errorf("cuda: copying %d bytes from the device: %w", n, err)
		}
		return nil
	})
}

// cfn is k's function as the driver API's handle.
func (k *kernel) cfn() C.CUfunction { return *(*C.CUfunction)(unsafe.Pointer(&k.fn)) }

// launch starts k as p lays it out (p.grid blocks of p.threads with p.smem
// bytes of dynamic shared memory; in clusters of p.cluster blocks when
// p.cluster > 1, scheduled by load balancing when p.balance;
// cooperatively, every block resident at once or an error, when p.coop)
// with the parameters slots (each one 8-byte value); it runs inside do,
// which guards the parameter memory.
func (d *Device) launch(k *kernel, p plan, slots []uint64) error {
	if len(slots) > maxSlots {
		return fmt.Errorf("cuda: %d kernel parameters, at most %d", len(slots), maxSlots)
	}
	copy(unsafe.Slice((*uint64)(unsafe.Pointer(d.slots)), maxSlots), slots)
	r := C.launch(k.cfn(), C.uint(p.grid[0]), C.uint(p.grid[1]), C.uint(p.threads), C.uint(p.smem), C.uint(p.cluster),
		cbool(p.balance), cbool(p.coop), d.params)
	if r != C.CUDA_SUCCESS {
		return fmt.Errorf("%s (CUresult %d)", C.GoString(C.errName(r)), int(r))
	}
	return nil
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// maxClusters is how many clusters of k (cluster blocks of threads, smem
// bytes of dynamic shared memory each; scheduled by load balancing when
// balance) fit the device at once; 0 when none or the driver will not
// say. It runs inside do, which guards the cache.
func (d *Device) maxClusters(k *kernel, threads, smem, cluster int, balance bool) int {
	key := clusterKey{threads, smem, cluster, balance}
	if n, ok := k.clusterOcc[key]; ok {
		return n
	}
	var n C.int
	if C.maxClusters(&n, k.cfn(), C.uint(threads), C.uint(smem), C.uint(cluster), cbool(balance)) != C.CUDA_SUCCESS {
		n = 0
	}
	if k.clusterOcc == nil {
		k.clusterOcc = map[clusterKey]int{}
	}
	k.clusterOcc[key] = int(n)
	return int(n)
}
