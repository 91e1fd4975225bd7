//go:build hip

package hip

// The binding to the HIP runtime (libamdhip64): only the calls this package
// makes. Every call returns a hipError_t that is checked and turned into an
// Error. The headers need __HIP_PLATFORM_AMD__; it is set here, so a user
// sets only the include and library paths (scripts/hip-sdk.sh prints them;
// Debian's packages need none).

// #cgo CFLAGS: -D__HIP_PLATFORM_AMD__
// #cgo LDFLAGS: -lamdhip64
// #include <stdint.h>
// #include <stdlib.h>
// #include <hip/hip_runtime_api.h>
//
// // launch passes every kernel parameter as one 8-byte slot: kernelParams[i]
// // points at slots[i]. The pointer array lives on the C stack, so no Go
// // memory holds a pointer that C reads.
// static hipError_t sm_launch(hipFunction_t f, unsigned gx, unsigned gy, unsigned threads, unsigned smem,
//                             hipStream_t stream, uint64_t *slots, int n) {
// 	void *params[64];
// 	if (n < 0 || n > 64) return hipErrorInvalidValue;
// 	for (int i = 0; i < n; i++) params[i] = &slots[i];
// 	return hipModuleLaunchKernel(f, gx, gy, 1, threads, 1, 1, smem, stream, params, NULL);
// }
//
// // Device addresses cross as uintptr_t, so Go never turns an integer into
// // an unsafe.Pointer.
// static hipError_t sm_malloc(uintptr_t *p, size_t n) {
// 	void *q = NULL;
// 	hipError_t e = hipMalloc(&q, n);
// 	*p = (uintptr_t)q;
// 	return e;
// }
// static hipError_t sm_free(uintptr_t p) { return hipFree((void *)p); }
// static hipError_t sm_htod(uintptr_t dst, void *src, size_t n) { return hipMemcpyHtoD((hipDeviceptr_t)dst, src, n); }
// static hipError_t sm_dtoh(void *dst, uintptr_t src, size_t n) { return hipMemcpyDtoH(dst, (hipDeviceptr_t)src, n); }
//
// // props copies the few device properties the dispatch reads.
// static hipError_t sm_props(int dev, char *name, char *arch, int *cus, long long *smem, int *l2, int *warp) {
// 	hipDeviceProp_t p;
// 	hipError_t e = hipGetDeviceProperties(&p, dev);
// 	if (e != hipSuccess) return e;
// 	for (int i = 0; i < 255; i++) { name[i] = p.name[i]; arch[i] = p.gcnArchName[i]; }
// 	name[255] = arch[255] = 0;
// 	*cus = p.multiProcessorCount;
// 	*smem = (long long)p.sharedMemPerBlock;
// 	*l2 = p.l2CacheSize;
// 	*warp = p.warpSize;
// 	return hipSuccess;
// }
import "C"

import (
	"fmt"
	"unsafe"
)

// Error is a hipError_t other than hipSuccess.
type Error int

func (e Error) Error() string {
	name := C.GoString(C.hipGetErrorName(C.hipError_t(e)))
	msg := fmt.Sprintf("%s (%d)", name, int(e))
	if text := C.GoString(C.hipGetErrorString(C.hipError_t(e))); text != name && text != "" {
		msg += ": " + text
	}
	return msg
}

func hipErr(e C.hipError_t) error {
	if e != C.hipSuccess {
		return Error(e)
	}
	return nil
}

// DevicePtr is an address in device memory.
type DevicePtr uintptr

// hipInit initializes the runtime; without an AMD GPU it fails (seen: 101,
// hipErrorInvalidDevice, with the runtime installed and no GPU).
func hipInit() error { return hipErr(C.hipInit(0)) }

func deviceCount() (int, error) {
	var n C.int
	err := hipErr(C.hipGetDeviceCount(&n))
	return int(n), err
}

func setDevice(ordinal int) error { return hipErr(C.hipSetDevice(C.int(ordinal))) }

// props are the device properties the backend reads.
type props struct {
	name, arch string // arch: gcnArchName, e.g. "gfx90a:sramecc+:xnack-"
	cus        int    // compute units
	smem       int    // LDS per workgroup, bytes
	l2         int    // L2 cache, bytes
	warp       int    // the device's wavefront size
}

func deviceProps(ordinal int) (props, error) {
	var name, arch [256]C.char
	var cus, l2, warp C.int
	var smem C.longlong
	if err := hipErr(C.sm_props(C.int(ordinal), &name[0], &arch[0], &cus, &smem, &l2, &warp)); err != nil {
		return props{}, err
	}
	return props{name: C.GoString(&name[0]), arch: C.GoString(&arch[0]), cus: int(cus), smem: int(smem),
		l2: int(l2), warp: int(warp)}, nil
}

type module struct{ m C.hipModule_t }

// loadModule loads a code object; the runtime copies the image.
func loadModule(image string) (module, error) {
	p := C.CString(image) // C memory: the runtime may keep reading it
	defer C.free(unsafe.Pointer(p))
	var m C.hipModule_t
	err := hipErr(C.hipModuleLoadData(&m, unsafe.Pointer(p)))
	return module{m}, err
}

type function struct{ f C.hipFunction_t }

func (m module) function(name string) (function, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var f C.hipFunction_t
	err := hipErr(C.hipModuleGetFunction(&f, m.m, cname))
	return function{f}, err
}

func (f function) attribute(a C.hipFunction_attribute) (int, error) {
	var v C.int
	err := hipErr(C.hipFuncGetAttribute(&v, a, f.f))
	return int(v), err
}

func (f function) maxThreads() (int, error) {
	return f.attribute(C.HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
}
func (f function) staticLDS() (int, error) {
	return f.attribute(C.HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
}

type stream struct{ s C.hipStream_t }

// newStream creates a blocking stream: it waits for work on the null
// stream, where the runtime's plain copies go.
func newStream() (stream, error) {
	var s C.hipStream_t
	err := hipErr(C.hipStreamCreate(&s))
	return stream{s}, err
}

func (s stream) synchronize() error { return hipErr(C.hipStreamSynchronize(s.s)) }

// launch runs f on the stream with grid (gx, gy), threads per block, smem
// bytes of dynamic LDS and one 8-byte slot per parameter.
func (f function) launch(gx, gy, threads, smem int, s stream, slots []uint64) error {
	return hipErr(C.sm_launch(f.f, C.uint(gx), C.uint(gy), C.uint(threads), C.uint(smem), s.s,
		(*C.uint64_t)(unsafe.Pointer(&slots[0])), C.int(len(slots))))
}

type event struct{ e C.hipEvent_t }

func newEvent() (event, error) {
	var e C.hipEvent_t
	err := hipErr(C.hipEventCreate(&e))
	return event{e}, err
}

func (e event) record(s stream) error { return hipErr(C.hipEventRecord(e.e, s.s)) }
func (e event) synchronize() error    { return hipErr(C.hipEventSynchronize(e.e)) }
func (e event) destroy() error        { return hipErr(C.hipEventDestroy(e.e)) }

// elapsed is the time from start to e in milliseconds.
func (e event) elapsed(start event) (float32, error) {
	var ms C.float
	err := hipErr(C.hipEventElapsedTime(&ms, start.e, e.e))
	return float32(ms), err
}

func malloc(n int64) (DevicePtr, error) {
	var p C.uintptr_t
	err := hipErr(C.sm_malloc(&p, C.size_t(n)))
	return DevicePtr(p), err
}

func free(p DevicePtr) error { return hipErr(C.sm_free(C.uintptr_t(p))) }

// memcpyHtoD and memcpyDtoH copy n bytes; they return when the copy is done.
func memcpyHtoD(dst DevicePtr, src unsafe.Pointer, n int64) error {
	return hipErr(C.sm_htod(C.uintptr_t(dst), src, C.size_t(n)))
}

func memcpyDtoH(dst unsafe.Pointer, src DevicePtr, n int64) error {
	return hipErr(C.sm_dtoh(dst, C.uintptr_t(src), C.size_t(n)))
}
