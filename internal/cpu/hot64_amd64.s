//go:build amd64 && !purego

#include "textflag.h"

// AVX-512 float64 exp loops: 8 lanes, exp(r) by a degree-12 Taylor
// polynomial on |r| <= ln2/2 (truncation below 2e-16 relative) after a
// Cody-Waite reduction, VSCALEFPD for 2**n (subnormal results round once).
// Within a few ulp of math.Exp (TestVectorExp64Accuracy).

DATA e64<>+0(SB)/8, $0x3ff71547652b82fe   // log2e
DATA e64<>+8(SB)/8, $0xbfe62e42fee00000   // -ln2 hi (exact times any n < 2**21)
DATA e64<>+16(SB)/8, $0xbdea39ef35793c76  // -ln2 lo
DATA e64<>+24(SB)/8, $0xc08749999999999a  // floor -745.2: below, e**a rounds to 0
DATA e64<>+32(SB)/8, $0x3ff0000000000000  // 1
DATA e64<>+40(SB)/8, $0x3e21eed8eff8d898  // 1/12!
DATA e64<>+48(SB)/8, $0x3e5ae64567f544e4  // 1/11!
DATA e64<>+56(SB)/8, $0x3e927e4fb7789f5c  // 1/10!
DATA e64<>+64(SB)/8, $0x3ec71de3a556c734  // 1/9!
DATA e64<>+72(SB)/8, $0x3efa01a01a01a01a  // 1/8!
DATA e64<>+80(SB)/8, $0x3f2a01a01a01a01a  // 1/7!
DATA e64<>+88(SB)/8, $0x3f56c16c16c16c17  // 1/6!
DATA e64<>+96(SB)/8, $0x3f81111111111111  // 1/5!
DATA e64<>+104(SB)/8, $0x3fa5555555555555 // 1/4!
DATA e64<>+112(SB)/8, $0x3fc5555555555555 // 1/3!
DATA e64<>+120(SB)/8, $0x3fe0000000000000 // 1/2!
GLOBL e64<>(SB), RODATA|NOPTR, $128

#define LOAD64 \
	VBROADCASTSD e64<>+0(SB), Z16 \
	VBROADCASTSD e64<>+8(SB), Z17 \
	VBROADCASTSD e64<>+16(SB), Z18 \
	VBROADCASTSD e64<>+24(SB), Z19 \
	VBROADCASTSD e64<>+32(SB), Z20 \
	VBROADCASTSD e64<>+40(SB), Z21 \
	VBROADCASTSD e64<>+48(SB), Z22 \
	VBROADCASTSD e64<>+56(SB), Z23 \
	VBROADCASTSD e64<>+64(SB), Z24 \
	VBROADCASTSD e64<>+72(SB), Z25 \
	VBROADCASTSD e64<>+80(SB), Z26 \
	VBROADCASTSD e64<>+88(SB), Z27 \
	VBROADCASTSD e64<>+96(SB), Z28 \
	VBROADCASTSD e64<>+104(SB), Z29 \
	VBROADCASTSD e64<>+112(SB), Z30 \
	VBROADCASTSD e64<>+120(SB), Z31

// EXPD8 computes Z3 = exp((Z0 - Z15) * Z14) for 8 lanes; clobbers Z0, Z2,
// K1. Below the floor: 0; NaN stays NaN.
#define EXPD8 \
	VSUBPD Z15, Z0, Z0 \
	VMULPD Z14, Z0, Z0 \
	VCMPPD $1, Z19, Z0, K1 \
	VMAXPD Z0, Z19, Z0 \
	VMULPD Z16, Z0, Z2 \
	VRNDSCALEPD $0, Z2, Z2 \
	VFMADD231PD Z17, Z2, Z0 \
	VFMADD231PD Z18, Z2, Z0 \
	VMOVAPD Z21, Z3 \
	VFMADD213PD Z22, Z0, Z3 \
	VFMADD213PD Z23, Z0, Z3 \
	VFMADD213PD Z24, Z0, Z3 \
	VFMADD213PD Z25, Z0, Z3 \
	VFMADD213PD Z26, Z0, Z3 \
	VFMADD213PD Z27, Z0, Z3 \
	VFMADD213PD Z28, Z0, Z3 \
	VFMADD213PD Z29, Z0, Z3 \
	VFMADD213PD Z30, Z0, Z3 \
	VFMADD213PD Z31, Z0, Z3 \
	VFMADD213PD Z20, Z0, Z3 \
	VFMADD213PD Z20, Z0, Z3 \
	VSCALEFPD Z2, Z3, Z3 \
	VXORPD Z3, Z3, K1, Z3

// The loops return the sum over lanes whose x is not m (rest) and the count
// of lanes whose x is m (ones: each contributes exactly 1). Keeping the ones
// out of the running sum lets log-softmax take log1p(rest/ones), accurate
// to an ulp when one element dominates its row.

// RESTONES adds Z3 to Z11 where Z5 != m (Z15), and 1 to Z12 where Z5 == m.
#define RESTONES \
	VCMPPD $4, Z15, Z5, K2 \
	VADDPD Z3, Z11, K2, Z11 \
	VCMPPD $0, Z15, Z5, K3 \
	VADDPD Z20, Z12, K3, Z12

// HSUM64 sums the lanes of Z11 into X11 and of Z12 into X12 (clobbers Y13).
#define HSUM64 \
	VEXTRACTF64X4 $1, Z11, Y13 \
	VADDPD Y13, Y11, Y11 \
	VEXTRACTF128 $1, Y11, X13 \
	VADDPD X13, X11, X11 \
	VPERMILPD $1, X11, X13 \
	VADDSD X13, X11, X11 \
	VEXTRACTF64X4 $1, Z12, Y13 \
	VADDPD Y13, Y12, Y12 \
	VEXTRACTF128 $1, Y12, X13 \
	VADDPD X13, X12, X12 \
	VPERMILPD $1, X12, X13 \
	VADDSD X13, X12, X12

// func expStore64AVX512(x, y []float64, m, s float64) (rest, ones float64)
// len(x) is a positive multiple of 8 and len(y) >= len(x).
TEXT ·expStore64AVX512(SB), NOSPLIT, $0-80
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	VBROADCASTSD m+48(FP), Z15
	VBROADCASTSD s+56(FP), Z14
	LOAD64
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12

store64:
	VMOVUPD (SI), Z5
	VMOVAPD Z5, Z0
	EXPD8
	VMOVUPD Z3, (DI)
	RESTONES
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  store64
	HSUM64
	MOVSD X11, rest+64(FP)
	MOVSD X12, ones+72(FP)
	VZEROUPPER
	RET

// func expSum64AVX512(x []float64, m, s float64) (rest, ones float64)
// len(x) is a positive multiple of 8.
TEXT ·expSum64AVX512(SB), NOSPLIT, $0-56
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	VBROADCASTSD m+24(FP), Z15
	VBROADCASTSD s+32(FP), Z14
	LOAD64
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12

sum64:
	VMOVUPD (SI), Z5
	VMOVAPD Z5, Z0
	EXPD8
	RESTONES
	ADDQ $64, SI
	SUBQ $8, CX
	JNZ  sum64
	HSUM64
	MOVSD X11, rest+40(FP)
	MOVSD X12, ones+48(FP)
	VZEROUPPER
	RET

// func max64AVX512(x []float64) (m float64, nan bool)
// len(x) is a positive multiple of 8.
TEXT ·max64AVX512(SB), NOSPLIT, $0-33
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	VMOVUPD (SI), Z0
	VCMPPD $3, Z0, Z0, K2
	ADDQ $64, SI
	SUBQ $8, CX
	JZ   max64done

max64loop:
	VMOVUPD (SI), Z2
	VMAXPD Z2, Z0, Z0
	VCMPPD $3, Z2, Z2, K3
	KORB K3, K2, K2
	ADDQ $64, SI
	SUBQ $8, CX
	JNZ  max64loop

max64done:
	VEXTRACTF64X4 $1, Z0, Y1
	VMAXPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VMAXSD X1, X0, X0
	MOVSD X0, m+24(FP)
	KORTESTB K2, K2
	SETNE nan+32(FP)
	VZEROUPPER
	RET

// func dot64AVX512(a, b []float64) float64
// len(a) is a positive multiple of 8, len(b) >= len(a).
TEXT ·dot64AVX512(SB), NOSPLIT, $0-56
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12

dot64loop:
	VMOVUPD (SI), Z0
	VFMADD231PD (DI), Z0, Z11
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  dot64loop
	HSUM64
	MOVSD X11, ret+48(FP)
	VZEROUPPER
	RET

// func sum64AVX512(a []float64) float64
// len(a) is a positive multiple of 8.
TEXT ·sum64AVX512(SB), NOSPLIT, $0-32
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	VXORPD Z11, Z11, Z11
	VXORPD Z12, Z12, Z12

sum64loop:
	VADDPD (SI), Z11, Z11
	ADDQ $64, SI
	SUBQ $8, CX
	JNZ  sum64loop
	HSUM64
	MOVSD X11, ret+24(FP)
	VZEROUPPER
	RET

// func softmaxGrad64AVX512(y, dy, dx []float64, c, s float64)
// dx = y * (dy - c) * s. len(y) is a positive multiple of 8; dy, dx at least as long.
TEXT ·softmaxGrad64AVX512(SB), NOSPLIT, $0-88
	MOVQ y_base+0(FP), SI
	MOVQ y_len+8(FP), CX
	MOVQ dy_base+24(FP), BX
	MOVQ dx_base+48(FP), DI
	VBROADCASTSD c+72(FP), Z15
	VBROADCASTSD s+80(FP), Z14

sgrad64loop:
	VMOVUPD (BX), Z0
	VSUBPD Z15, Z0, Z0
	VMULPD (SI), Z0, Z0
	VMULPD Z14, Z0, Z0
	VMOVUPD Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, BX
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  sgrad64loop
	VZEROUPPER
	RET

// func logGrad64AVX512(y, dy, dx []float64, c, s float64)
// dx = (dy - exp(y)*c) * s. len(y) is a positive multiple of 8; dy, dx at least as long.
TEXT ·logGrad64AVX512(SB), NOSPLIT, $0-88
	MOVQ y_base+0(FP), SI
	MOVQ y_len+8(FP), CX
	MOVQ dy_base+24(FP), BX
	MOVQ dx_base+48(FP), DI
	LOAD64
	VXORPD Z15, Z15, Z15 // EXPD8's shift: 0
	VMOVAPD Z20, Z14     // EXPD8's scale: 1
	VBROADCASTSD c+72(FP), Z10
	VBROADCASTSD s+80(FP), Z9

lgrad64loop:
	VMOVUPD (SI), Z0
	EXPD8
	VMOVUPD (BX), Z0
	VFNMADD231PD Z10, Z3, Z0
	VMULPD Z9, Z0, Z0
	VMOVUPD Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, BX
	ADDQ $64, DI
	SUBQ $8, CX
	JNZ  lgrad64loop
	VZEROUPPER
	RET
