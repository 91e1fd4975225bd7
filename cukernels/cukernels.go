// Package cukernels holds the CUDA softmax kernels: the sources
// (softmax.cuh has the math, written once as templates; softmax.cu
// instantiates it per dtype and tier; port.cuh is the CUDA/HIP portability
// header) and the fatbins built from them, embedded as Fatbin and
// SpanFatbin.
//
// The fatbin holds SASS for sm_70, sm_80 and sm_90 (SASS runs on later
// minor versions of its major: sm_75 takes sm_70's, sm_86 and sm_89
// sm_80's) and PTX for compute_90, which newer GPUs compile when they load
// it. It is
// committed; scripts/check-cukernels.sh rebuilds it and fails when it
// differs. Rebuild it after changing a source with
//
//	eval "$(bash scripts/cuda-sdk.sh)"
//	go generate ./cukernels
//
// The package has no build tag and no cgo: it is only data. The `cu`
// backend (package cuda) loads it.
package cukernels

import _ "embed"

//go:generate bash ../scripts/build-cukernels.sh

// Fatbin is the compiled kernel image, for cuModuleLoadData.
//
//go:embed softmax.fatbin
var Fatbin string

// SpanFatbin is softmax_span.cu's image: the float32, bfloat16 and float64
// forward kernels, under the same names, for rows whose entries may lie
// more than their type's range apart (SM_SPAN in softmax.cuh).
//
//go:embed softmax_span.fatbin
var SpanFatbin string
