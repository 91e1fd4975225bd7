// softmax_span.cu is the span build of softmax.cu (SM_SPAN, softmax.cuh):
// the float32, bfloat16 and float64 forward kernels, under the same names,
// with x - m taken halved. The Go side loads them as a second module and
// takes them for calls whose rows may span past their type's range with a
// finite answer (cuda/kernels.go, spanCall).
#define SM_SPAN 1
#include "softmax.cu"
