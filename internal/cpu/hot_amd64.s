//go:build amd64 && !purego

#include "textflag.h"

// Constants, each repeated over the 8 lanes of a YMM register.
#define CONST8(name, bits) \
	DATA name<>+0(SB)/4, $bits \
	DATA name<>+4(SB)/4, $bits \
	DATA name<>+8(SB)/4, $bits \
	DATA name<>+12(SB)/4, $bits \
	DATA name<>+16(SB)/4, $bits \
	DATA name<>+20(SB)/4, $bits \
	DATA name<>+24(SB)/4, $bits \
	DATA name<>+28(SB)/4, $bits \
	GLOBL name<>(SB), RODATA|NOPTR, $32

CONST8(log2e, 0x3fb8aa3b)   // 1.44269504
CONST8(nln2hi, 0xbf318000)  // -0.693359375
CONST8(nln2lo, 0x395e8083)  // 2.12194440e-4
CONST8(floor, 0xc2cff0a4)   // -103.97: below, e**a rounds to 0 in float32
CONST8(one, 0x3f800000)     // 1
CONST8(bias, 0x0000007f)    // 127, the float32 exponent bias (integer)
CONST8(c0, 0x39506967)      // 1.9875691500e-4   Cephes expf polynomial
CONST8(c1, 0x3ab743ce)      // 1.3981999507e-3
CONST8(c2, 0x3c088908)      // 8.3334519073e-3
CONST8(c3, 0x3d2aa9c1)      // 4.1665795894e-2
CONST8(c4, 0x3e2aaaaa)      // 1.6666665459e-1
CONST8(c5, 0x3f000000)      // 5.0000001201e-1

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// func maxAVX2(x []float32) (m float32, nan bool)
// len(x) is a positive multiple of 8.
TEXT ·maxAVX2(SB), NOSPLIT, $0-29
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	VMOVUPS (SI), Y0
	VMOVUPS Y0, Y1
	VCMPPS $3, Y0, Y0, Y4 // unordered: lanes holding NaN
	ADDQ $32, SI
	SUBQ $8, CX
	JZ   maxdone

maxloop16:
	CMPQ CX, $16
	JL   maxloop8
	VMOVUPS (SI), Y2
	VMOVUPS 32(SI), Y3
	VMAXPS Y2, Y0, Y0
	VMAXPS Y3, Y1, Y1
	VCMPPS $3, Y2, Y2, Y5
	VCMPPS $3, Y3, Y3, Y6
	VORPS  Y5, Y4, Y4
	VORPS  Y6, Y4, Y4
	ADDQ $64, SI
	SUBQ $16, CX
	JMP  maxloop16

maxloop8:
	CMPQ CX, $8
	JL   maxdone
	VMOVUPS (SI), Y2
	VMAXPS Y2, Y0, Y0
	VCMPPS $3, Y2, Y2, Y5
	VORPS  Y5, Y4, Y4
	ADDQ $32, SI
	SUBQ $8, CX
	JMP  maxloop8

maxdone:
	VMAXPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0x4e, X0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0xb1, X0, X1
	VMAXPS X1, X0, X0
	MOVSS X0, m+24(FP)
	VPTEST Y4, Y4
	SETNE nan+28(FP)
	VZEROUPPER
	RET

// SCALED8 forms the argument of EXP8 for 8 lanes of x in Y0: a = x*s -
// m*s as Y0 = x*sh - ph (one fma: one rounding) and the correction Y5 =
// x*sl - pl, with s = sh + sl and m*s = ph + pl split into float32 pairs
// (Y14 sh, Y6 sl, Y15 -ph, Y7 -pl). (x - m)*s formed in float32 rounded
// three times (the scale, the difference, the product): about 2e-7*|a|
// relative in e**a, 1.25e-5 at the bottom of float32's normal range.
// One rounding is 6e-8*|a|: within 5.3e-6 there. expStore32 takes rows
// with |m*s| at most 2^16 here, so |Y5| stays under 2^-7: the reduced
// argument plus Y5 stays within 0.355, where the polynomial holds.
#define SCALED8 \
	VMOVAPS Y7, Y5 \
	VFMADD231PS Y6, Y0, Y5 \
	VFMADD213PS Y15, Y14, Y0

// EXP8 computes Y3 = exp(Y0 + Y5) for 8 lanes, Y5 a small correction
// (SCALED8's, or 0); clobbers Y0-Y2, Y4, Y8 and Y13. The correction joins
// the reduced argument (n comes from Y0 alone), so it is not rounded into
// Y0's magnitude. 2**n is
// applied as two factors 2**(n>>1) and 2**(n-n>>1), so results in
// float32's subnormal range round once instead of flushing to 0. Lanes
// whose argument is below the floor give 0; NaN stays NaN (VMAXPS returns
// its second source when either is NaN, so the argument goes second).
#define EXP8 \
	VMOVUPS floor<>(SB), Y8 \
	VCMPPS $1, Y8, Y0, Y1 \
	VMAXPS Y0, Y8, Y0 \
	VMULPS log2e<>(SB), Y0, Y2 \
	VROUNDPS $0, Y2, Y2 \
	VFMADD231PS nln2hi<>(SB), Y2, Y0 \
	VFMADD231PS nln2lo<>(SB), Y2, Y0 \
	VADDPS Y5, Y0, Y0 \
	VMOVUPS c0<>(SB), Y3 \
	VFMADD213PS c1<>(SB), Y0, Y3 \
	VFMADD213PS c2<>(SB), Y0, Y3 \
	VFMADD213PS c3<>(SB), Y0, Y3 \
	VFMADD213PS c4<>(SB), Y0, Y3 \
	VFMADD213PS c5<>(SB), Y0, Y3 \
	VMULPS Y0, Y0, Y13 \
	VFMADD213PS Y0, Y13, Y3 \
	VADDPS one<>(SB), Y3, Y3 \
	VCVTPS2DQ Y2, Y2 \
	VPSRAD $1, Y2, Y4 \
	VPSUBD Y4, Y2, Y2 \
	VPADDD bias<>(SB), Y4, Y4 \
	VPSLLD $23, Y4, Y4 \
	VPADDD bias<>(SB), Y2, Y2 \
	VPSLLD $23, Y2, Y2 \
	VMULPS Y4, Y3, Y3 \
	VMULPS Y2, Y3, Y3 \
	VANDNPS Y3, Y1, Y3

// SUM8 adds the 8 lanes of Y3 to the float64 sums in Y11 and Y12.
#define SUM8 \
	VCVTPS2PD X3, Y2 \
	VADDPD Y2, Y11, Y11 \
	VEXTRACTF128 $1, Y3, X3 \
	VCVTPS2PD X3, Y2 \
	VADDPD Y2, Y12, Y12

// func expStoreAVX2(x, y []float32, a expArg) float64
// len(x) is a positive multiple of 8 and len(y) >= len(x).
TEXT ·expStoreAVX2(SB), NOSPLIT, $0-72
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	VBROADCASTSS a_sh+48(FP), Y14
	VBROADCASTSS a_sl+52(FP), Y6
	VBROADCASTSS a_nph+56(FP), Y15
	VBROADCASTSS a_npl+60(FP), Y7
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12

storeloop:
	VMOVUPS (SI), Y0
	SCALED8
	EXP8
	VMOVUPS Y3, (DI)
	SUM8
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  storeloop

	VADDPD Y12, Y11, Y11
	VEXTRACTF128 $1, Y11, X12
	VADDPD X12, X11, X11
	VPERMILPD $1, X11, X12
	VADDSD X12, X11, X11
	MOVSD X11, ret+64(FP)
	VZEROUPPER
	RET

// func expSumAVX2(x []float32, a expArg) float64
// len(x) is a positive multiple of 8.
TEXT ·expSumAVX2(SB), NOSPLIT, $0-48
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	VBROADCASTSS a_sh+24(FP), Y14
	VBROADCASTSS a_sl+28(FP), Y6
	VBROADCASTSS a_nph+32(FP), Y15
	VBROADCASTSS a_npl+36(FP), Y7
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12

sumloop:
	VMOVUPS (SI), Y0
	SCALED8
	EXP8
	SUM8
	ADDQ $32, SI
	SUBQ $8, CX
	JNZ  sumloop

	VADDPD Y12, Y11, Y11
	VEXTRACTF128 $1, Y11, X12
	VADDPD X12, X11, X11
	VPERMILPD $1, X11, X12
	VADDSD X12, X11, X11
	MOVSD X11, ret+40(FP)
	VZEROUPPER
	RET

// func scaleAVX2(y []float32, f float32)
// len(y) is a positive multiple of 8.
TEXT ·scaleAVX2(SB), NOSPLIT, $0-28
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	VBROADCASTSS f+24(FP), Y1

scaleloop:
	VMULPS (DI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  scaleloop
	VZEROUPPER
	RET

// HSUMPD leaves the sum of Y11's and Y12's lanes in X11.
#define HSUMPD \
	VADDPD Y12, Y11, Y11 \
	VEXTRACTF128 $1, Y11, X12 \
	VADDPD X12, X11, X11 \
	VPERMILPD $1, X11, X12 \
	VADDSD X12, X11, X11

// func logApplyAVX2(x, y []float32, m, s, lse float64)
// y = (x-m)*s - lse, computed in float64 and rounded once.
// len(x) is a positive multiple of 8 and len(y) >= len(x).
TEXT ·logApplyAVX2(SB), NOSPLIT, $0-72
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	VBROADCASTSD m+48(FP), Y15
	VBROADCASTSD s+56(FP), Y14
	VBROADCASTSD lse+64(FP), Y13

logloop:
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	VSUBPD Y15, Y0, Y0
	VSUBPD Y15, Y1, Y1
	VMULPD Y14, Y0, Y0
	VMULPD Y14, Y1, Y1
	VSUBPD Y13, Y0, Y0
	VSUBPD Y13, Y1, Y1
	VCVTPD2PSY Y0, X0
	VCVTPD2PSY Y1, X1
	VMOVUPS X0, (DI)
	VMOVUPS X1, 16(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  logloop
	VZEROUPPER
	RET

// func dotAVX2(a, b []float32) float64
// Sum of a[k]*b[k] in float64. len(a) is a positive multiple of 8, len(b) >= len(a).
TEXT ·dotAVX2(SB), NOSPLIT, $0-56
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12

dotloop:
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	VCVTPS2PD (DI), Y2
	VCVTPS2PD 16(DI), Y3
	VFMADD231PD Y2, Y0, Y11
	VFMADD231PD Y3, Y1, Y12
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  dotloop
	HSUMPD
	MOVSD X11, ret+48(FP)
	VZEROUPPER
	RET

// func sumAVX2(a []float32) float64
// len(a) is a positive multiple of 8.
TEXT ·sumAVX2(SB), NOSPLIT, $0-32
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12

sumdyloop:
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	VADDPD Y0, Y11, Y11
	VADDPD Y1, Y12, Y12
	ADDQ $32, SI
	SUBQ $8, CX
	JNZ  sumdyloop
	HSUMPD
	MOVSD X11, ret+24(FP)
	VZEROUPPER
	RET

// func softmaxGradAVX2(y, dy, dx []float32, c, s float32)
// dx = (dy - c) * y * s. len(y) is a positive multiple of 8; dy, dx at least as long.
TEXT ·softmaxGradAVX2(SB), NOSPLIT, $0-80
	MOVQ y_base+0(FP), SI
	MOVQ y_len+8(FP), CX
	MOVQ dy_base+24(FP), BX
	MOVQ dx_base+48(FP), DI
	VBROADCASTSS c+72(FP), Y15
	VBROADCASTSS s+76(FP), Y14

sgradloop:
	VMOVUPS (BX), Y0
	VSUBPS Y15, Y0, Y0
	VMULPS (SI), Y0, Y0
	VMULPS Y14, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  sgradloop
	VZEROUPPER
	RET

// func logGradAVX2(y, dy, dx []float32, c, s float32)
// dx = (dy - exp(y)*c) * s. len(y) is a positive multiple of 8; dy, dx at least as long.
TEXT ·logGradAVX2(SB), NOSPLIT, $0-80
	MOVQ y_base+0(FP), SI
	MOVQ y_len+8(FP), CX
	MOVQ dy_base+24(FP), BX
	MOVQ dx_base+48(FP), DI
	VXORPS Y5, Y5, Y5 // EXP8's correction: 0 (its argument is y itself)
	VBROADCASTSS c+72(FP), Y10
	VBROADCASTSS s+76(FP), Y9

lgradloop:
	VMOVUPS (SI), Y0
	EXP8
	VMOVUPS (BX), Y0
	VFNMADD231PS Y10, Y3, Y0 // dy - e*c
	VMULPS Y9, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  lgradloop
	VZEROUPPER
	RET
