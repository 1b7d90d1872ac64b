#include "textflag.h"

// func estimateRowsAsm(out *int32, p, signs *uint64, w, n int)
// w ≥ 1 and n ≥ 1. For each of n rows of w sign words, out gets
// Σ_j popcnt(s_j&p[4j]) + 2·popcnt(s_j&p[4j+1]) + 4·popcnt(s_j&p[4j+2])
// + 8·popcnt(s_j&p[4j+3]). Each plane's popcount has its own register so
// the four run side by side.
TEXT ·estimateRowsAsm(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ p+8(FP), SI
	MOVQ signs+16(FP), DX
	MOVQ w+24(FP), CX
	MOVQ n+32(FP), R8

row:
	XORQ AX, AX
	MOVQ SI, R9
	MOVQ CX, R10

word:
	MOVQ    (DX), R11
	MOVQ    R11, R12
	ANDQ    (R9), R12
	POPCNTQ R12, R12
	MOVQ    R11, R13
	ANDQ    8(R9), R13
	POPCNTQ R13, R13
	MOVQ    R11, BX
	ANDQ    16(R9), BX
	POPCNTQ BX, BX
	ANDQ    24(R9), R11
	POPCNTQ R11, R11
	ADDQ    R12, AX
	LEAQ    (AX)(R13*2), AX
	LEAQ    (AX)(BX*4), AX
	LEAQ    (AX)(R11*8), AX
	ADDQ    $8, DX
	ADDQ    $32, R9
	DECQ    R10
	JNZ     word

	MOVL AX, (DI)
	ADDQ $4, DI
	DECQ R8
	JNZ  row
	RET
