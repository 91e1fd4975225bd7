// Package hipkernels holds the HIP softmax kernels for AMD GPUs: one code
// object per target, built by hipcc from the same templates as the CUDA
// kernels (softmax.hip includes ../cukernels/softmax.cu, which includes
// softmax.cuh and the portability header port.cuh), embedded here.
//
// Targets: gfx906 (MI50/MI60, and the DCU class), gfx908 (MI100), gfx90a
// (MI200), gfx940 (the MI300 family as far as hipcc 5.2.3 knows it; MI300X
// and MI300A report gfx942, which this compiler cannot build for) and
// gfx1030 (RDNA2, built in wave32). resources.txt lists every kernel's
// registers, LDS and spills per target. The objects are committed;
// scripts/check-hipkernels.sh rebuilds them and fails when they differ.
// Rebuild them after changing a kernel source with
//
//	eval "$(bash scripts/hip-sdk.sh)"
//	go generate ./hipkernels
//
// The package has no build tag and no cgo: it is only data. The `hip`
// backend (package hip) picks the object for the device's gcnArchName.
package hipkernels

import (
	_ "embed"
	"fmt"
	"strings"
)

//go:generate bash build.sh

var (
	//go:embed softmax-gfx906.co
	gfx906 string
	//go:embed softmax-gfx908.co
	gfx908 string
	//go:embed softmax-gfx90a.co
	gfx90a string
	//go:embed softmax-gfx940.co
	gfx940 string
	//go:embed softmax-gfx1030.co
	gfx1030 string
)

// Object is the code object for one target.
type Object struct {
	Arch string // the target, e.g. "gfx90a"
	Code string // an amdhsa ELF code object, for hipModuleLoadData
}

// Objects lists the embedded code objects, one per target.
var Objects = []Object{
	{"gfx906", gfx906},
	{"gfx908", gfx908},
	{"gfx90a", gfx90a},
	{"gfx940", gfx940},
	{"gfx1030", gfx1030},
}

// Find returns the object for a device's gcnArchName ("gfx90a:sramecc+:
// xnack-": the features after the colon do not matter, the objects are
// built for either setting).
func Find(gcnArchName string) (Object, error) {
	arch, _, _ := strings.Cut(gcnArchName, ":")
	for _, o := range Objects {
		if o.Arch == arch {
			return o, nil
		}
	}
	have := make([]string, len(Objects))
	for i, o := range Objects {
		have[i] = o.Arch
	}
	return Object{}, fmt.Errorf("no softmax code object for %s (built for %s)", gcnArchName, strings.Join(have, ", "))
}

// WaveSize returns the wavefront width the object was built for (64 or 32),
// read from its AMDGPU metadata note, where every kernel records it as the
// msgpack pair ".wavefront_size": n. The kernels' warp tier and reductions
// use that width, so the launch plan must too.
func WaveSize(code string) (int, error) {
	const key = "\xaf.wavefront_size" // msgpack fixstr of 15 bytes
	wave := 0
	for rest := code; ; {
		i := strings.Index(rest, key)
		if i < 0 {
			break
		}
		rest = rest[i+len(key):]
		if rest == "" || rest[0] >= 0x80 {
			return 0, fmt.Errorf("hipkernels: .wavefront_size is not a small integer")
		}
		w := int(rest[0])
		if wave != 0 && w != wave {
			return 0, fmt.Errorf("hipkernels: kernels disagree on the wavefront size (%d and %d)", wave, w)
		}
		wave = w
	}
	if wave != 32 && wave != 64 {
		return 0, fmt.Errorf("hipkernels: no usable .wavefront_size in the code object (found %d)", wave)
	}
	return wave, nil
}
