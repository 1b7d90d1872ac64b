#include "textflag.h"

// HSUM leaves (l0+l1)+(l2+l3) of the lanes of X in its low lane, using T,
// and stores it at OFF(AX): the same sums, in the same order, as Dot.
#define HSUM(X, T, OFF) \
	PSHUFD  $0xB1, X, T; \
	ADDPS   T, X; \
	MOVHLPS X, T; \
	ADDSS   T, X; \
	MOVSS   X, OFF(AX)

// func dot8asm(out *[8]float32, q *float32, n int, base *float32, offs *[8]int)
// n is a positive multiple of 4. Row j is n floats from base+4*offs[j].
// Each row has its own 4-lane accumulator: lane k sums the products of
// elements k, k+4, k+8, … in order, as Dot's four accumulators do.
TEXT ·dot8asm(SB), NOSPLIT, $0-40
	MOVQ q+8(FP), SI
	MOVQ n+16(FP), DI
	LEAQ (SI)(DI*4), DI // end of q
	MOVQ base+24(FP), DX
	MOVQ offs+32(FP), AX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ 32(AX), R12
	MOVQ 40(AX), R13
	MOVQ 48(AX), BX
	MOVQ 56(AX), CX
	SHLQ $2, R8
	SHLQ $2, R9
	SHLQ $2, R10
	SHLQ $2, R11
	SHLQ $2, R12
	SHLQ $2, R13
	SHLQ $2, BX
	SHLQ $2, CX
	XORPS X0, X0
	XORPS X1, X1
	XORPS X2, X2
	XORPS X3, X3
	XORPS X4, X4
	XORPS X5, X5
	XORPS X6, X6
	XORPS X7, X7

loop:
	MOVUPS (SI), X8
	MOVUPS (DX)(R8*1), X9
	MULPS  X8, X9
	ADDPS  X9, X0
	MOVUPS (DX)(R9*1), X10
	MULPS  X8, X10
	ADDPS  X10, X1
	MOVUPS (DX)(R10*1), X11
	MULPS  X8, X11
	ADDPS  X11, X2
	MOVUPS (DX)(R11*1), X12
	MULPS  X8, X12
	ADDPS  X12, X3
	MOVUPS (DX)(R12*1), X13
	MULPS  X8, X13
	ADDPS  X13, X4
	MOVUPS (DX)(R13*1), X14
	MULPS  X8, X14
	ADDPS  X14, X5
	MOVUPS (DX)(BX*1), X15
	MULPS  X8, X15
	ADDPS  X15, X6
	MOVUPS (DX)(CX*1), X9
	MULPS  X8, X9
	ADDPS  X9, X7
	ADDQ   $16, SI
	ADDQ   $16, DX
	CMPQ   SI, DI
	JB     loop

	MOVQ out+0(FP), AX
	HSUM(X0, X8, 0)
	HSUM(X1, X9, 4)
	HSUM(X2, X10, 8)
	HSUM(X3, X11, 12)
	HSUM(X4, X12, 16)
	HSUM(X5, X13, 20)
	HSUM(X6, X14, 24)
	HSUM(X7, X15, 28)
	RET
