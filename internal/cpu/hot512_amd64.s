//go:build amd64 && !purego

#include "textflag.h"

// AVX-512 versions of the float32 exp loops: 16 lanes, constants held in
// registers, VSCALEFPS for 2**n (exact for subnormal results). Same method
// and polynomial as EXP8 in hot_amd64.s.

DATA c512<>+0(SB)/4, $0x3fb8aa3b  // log2e
DATA c512<>+4(SB)/4, $0xbf318000  // -ln2 hi
DATA c512<>+8(SB)/4, $0x395e8083  // -ln2 lo
DATA c512<>+12(SB)/4, $0xc2cff0a4 // floor -103.97
DATA c512<>+16(SB)/4, $0x3f800000 // 1
DATA c512<>+20(SB)/4, $0x39506967 // c0
DATA c512<>+24(SB)/4, $0x3ab743ce // c1
DATA c512<>+28(SB)/4, $0x3c088908 // c2
DATA c512<>+32(SB)/4, $0x3d2aa9c1 // c3
DATA c512<>+36(SB)/4, $0x3e2aaaaa // c4
DATA c512<>+40(SB)/4, $0x3f000000 // c5
GLOBL c512<>(SB), RODATA|NOPTR, $44

#define LOADCONSTS \
	VBROADCASTSS c512<>+0(SB), Z20 \
	VBROADCASTSS c512<>+4(SB), Z21 \
	VBROADCASTSS c512<>+8(SB), Z22 \
	VBROADCASTSS c512<>+12(SB), Z23 \
	VBROADCASTSS c512<>+16(SB), Z24 \
	VBROADCASTSS c512<>+20(SB), Z25 \
	VBROADCASTSS c512<>+24(SB), Z26 \
	VBROADCASTSS c512<>+28(SB), Z27 \
	VBROADCASTSS c512<>+32(SB), Z28 \
	VBROADCASTSS c512<>+36(SB), Z29 \
	VBROADCASTSS c512<>+40(SB), Z30

// SCALED16 is SCALED8 (hot_amd64.s) for 16 lanes: Z0 = x*sh - ph and the
// correction Z5 = x*sl - pl (Z14 sh, Z16 sl, Z15 -ph, Z17 -pl).
#define SCALED16 \
	VMOVAPS Z17, Z5 \
	VFMADD231PS Z16, Z0, Z5 \
	VFMADD213PS Z15, Z14, Z0

// EXP16 computes Z3 = exp(Z0 + Z5) for 16 lanes, Z5 a small correction
// (SCALED16's, or 0) added to the reduced argument; clobbers Z0-Z4 and
// K1. Below the floor: 0. NaN stays NaN (the argument is VMAXPS's second
// source).
#define EXP16 \
	VCMPPS $1, Z23, Z0, K1 \
	VMAXPS Z0, Z23, Z0 \
	VMULPS Z20, Z0, Z2 \
	VRNDSCALEPS $0, Z2, Z2 \
	VFMADD231PS Z21, Z2, Z0 \
	VFMADD231PS Z22, Z2, Z0 \
	VADDPS Z5, Z0, Z0 \
	VMOVAPS Z25, Z3 \
	VFMADD213PS Z26, Z0, Z3 \
	VFMADD213PS Z27, Z0, Z3 \
	VFMADD213PS Z28, Z0, Z3 \
	VFMADD213PS Z29, Z0, Z3 \
	VFMADD213PS Z30, Z0, Z3 \
	VMULPS Z0, Z0, Z4 \
	VFMADD213PS Z0, Z4, Z3 \
	VADDPS Z24, Z3, Z3 \
	VSCALEFPS Z2, Z3, Z3 \
	VXORPS Z3, Z3, K1, Z3

// SUM16 adds the 16 lanes of Z3 to the float64 sums in Z11 and Z12.
#define SUM16 \
	VCVTPS2PD Y3, Z4 \
	VADDPD Z4, Z11, Z11 \
	VEXTRACTF32X8 $1, Z3, Y3 \
	VCVTPS2PD Y3, Z4 \
	VADDPD Z4, Z12, Z12

// HSUM512 leaves the sum of Z11's and Z12's lanes in X11.
#define HSUM512 \
	VADDPD Z12, Z11, Z11 \
	VEXTRACTF64X4 $1, Z11, Y12 \
	VADDPD Y12, Y11, Y11 \
	VEXTRACTF128 $1, Y11, X12 \
	VADDPD X12, X11, X11 \
	VPERMILPD $1, X11, X12 \
	VADDSD X12, X11, X11

// func expStoreAVX512(x, y []float32, a expArg) float64
// len(x) is a positive multiple of 16 and len(y) >= len(x).
TEXT ·expStoreAVX512(SB), NOSPLIT, $0-72
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	VBROADCASTSS a_sh+48(FP), Z14
	VBROADCASTSS a_sl+52(FP), Z16
	VBROADCASTSS a_nph+56(FP), Z15
	VBROADCASTSS a_npl+60(FP), Z17
	LOADCONSTS
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12

store512:
	VMOVUPS (SI), Z0
	SCALED16
	EXP16
	VMOVUPS Z3, (DI)
	SUM16
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JNZ  store512
	HSUM512
	MOVSD X11, ret+64(FP)
	VZEROUPPER
	RET

// func expSumAVX512(x []float32, a expArg) float64
// len(x) is a positive multiple of 16.
TEXT ·expSumAVX512(SB), NOSPLIT, $0-48
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	VBROADCASTSS a_sh+24(FP), Z14
	VBROADCASTSS a_sl+28(FP), Z16
	VBROADCASTSS a_nph+32(FP), Z15
	VBROADCASTSS a_npl+36(FP), Z17
	LOADCONSTS
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12

sum512:
	VMOVUPS (SI), Z0
	SCALED16
	EXP16
	SUM16
	ADDQ $64, SI
	SUBQ $16, CX
	JNZ  sum512
	HSUM512
	MOVSD X11, ret+40(FP)
	VZEROUPPER
	RET

// func maxAVX512(x []float32) (m float32, nan bool)
// len(x) is a positive multiple of 16.
TEXT ·maxAVX512(SB), NOSPLIT, $0-29
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	VMOVUPS (SI), Z0
	VMOVUPS Z0, Z1
	VCMPPS $3, Z0, Z0, K2
	ADDQ $64, SI
	SUBQ $16, CX
	JZ   max512done

max512loop:
	VMOVUPS (SI), Z2
	VMAXPS Z2, Z0, Z0
	VCMPPS $3, Z2, Z2, K3
	KORW K3, K2, K2
	ADDQ $64, SI
	SUBQ $16, CX
	JNZ  max512loop

max512done:
	VEXTRACTF32X8 $1, Z0, Y1
	VMAXPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0x4e, X0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0xb1, X0, X1
	VMAXPS X1, X0, X0
	MOVSS X0, m+24(FP)
	KORTESTW K2, K2
	SETNE nan+28(FP)
	VZEROUPPER
	RET

// func cpuidAVX512OS() bool reports whether the OS saves opmask and ZMM state.
TEXT ·xcr0AVX512(SB), NOSPLIT, $0-1
	MOVL $0, CX
	XGETBV
	ANDL $0xe6, AX
	CMPL AX, $0xe6
	SETEQ ret+0(FP)
	RET

// func logGradAVX512(y, dy, dx []float32, c, s float32)
// dx = (dy - exp(y)*c) * s. len(y) is a positive multiple of 16; dy, dx at least as long.
TEXT ·logGradAVX512(SB), NOSPLIT, $0-80
	MOVQ y_base+0(FP), SI
	MOVQ y_len+8(FP), CX
	MOVQ dy_base+24(FP), BX
	MOVQ dx_base+48(FP), DI
	LOADCONSTS
	VXORPS Z5, Z5, Z5 // EXP16's correction: 0 (its argument is y itself)
	VBROADCASTSS c+72(FP), Z10
	VBROADCASTSS s+76(FP), Z9

lgrad512loop:
	VMOVUPS (SI), Z0
	EXP16
	VMOVUPS (BX), Z0
	VFNMADD231PS Z10, Z3, Z0
	VMULPS Z9, Z0, Z0
	VMOVUPS Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, BX
	ADDQ $64, DI
	SUBQ $16, CX
	JNZ  lgrad512loop
	VZEROUPPER
	RET
