// softmax.hip is the HIP build of the CUDA kernels: it compiles the same
// templates (../cukernels/softmax.cuh, through the portability header
// ../cukernels/port.cuh) and the same extern "C" entry points
// (../cukernels/softmax.cu), so both backends launch the same names with the
// same 8-byte parameter slots. Nothing of the math is written here.
//
// port.cuh sets SM_WARP from the compiler's __AMDGCN_WAVEFRONT_SIZE: 64 on
// gfx906, gfx908, gfx90a and gfx940, 32 on gfx1030 (hipcc builds RDNA in
// wave32). The warp tier, warp_reduce and block_reduce all take their width
// from SM_WARP, so each code object is right for the width it is built for;
// the Go side reads that width back from the object's metadata
// (hipkernels.WaveSize).
#include "../cukernels/softmax.cu"
