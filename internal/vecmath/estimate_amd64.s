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

// func estimateRows8AVX512(out *int32, p, signs *uint64, w, n int, idx *[8]int64)
// w ≥ 1 and n a positive multiple of 8. Eight rows at a time, one to a
// lane: word j of each is gathered (idx[k] = k·w), ANDed with each of the
// four planes of word j and counted with VPOPCNTQ, one accumulator a
// plane; the sums are weighted 1, 2, 4, 8 at the end, as estimateRowsAsm
// weights them (exact integer arithmetic, so the same results).
TEXT ·estimateRows8AVX512(SB), NOSPLIT, $0-48
	MOVQ      out+0(FP), DI
	MOVQ      p+8(FP), SI
	MOVQ      signs+16(FP), DX
	MOVQ      w+24(FP), CX
	MOVQ      n+32(FP), R8
	MOVQ      idx+40(FP), AX
	VMOVDQU64 (AX), Z31
	MOVQ      CX, R11
	SHLQ      $6, R11 // bytes in eight rows

block:
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	MOVQ   SI, R9
	MOVQ   DX, R12
	MOVQ   CX, R10

word:
	KXNORB       K1, K1, K1
	VPGATHERQQ   (R12)(Z31*8), K1, Z4
	VPANDQ.BCST  (R9), Z4, Z5
	VPOPCNTQ     Z5, Z5
	VPADDQ       Z5, Z0, Z0
	VPANDQ.BCST  8(R9), Z4, Z6
	VPOPCNTQ     Z6, Z6
	VPADDQ       Z6, Z1, Z1
	VPANDQ.BCST  16(R9), Z4, Z7
	VPOPCNTQ     Z7, Z7
	VPADDQ       Z7, Z2, Z2
	VPANDQ.BCST  24(R9), Z4, Z8
	VPOPCNTQ     Z8, Z8
	VPADDQ       Z8, Z3, Z3
	ADDQ         $8, R12
	ADDQ         $32, R9
	DECQ         R10
	JNZ          word

	VPSLLQ    $1, Z1, Z1
	VPSLLQ    $2, Z2, Z2
	VPSLLQ    $3, Z3, Z3
	VPADDQ    Z1, Z0, Z0
	VPADDQ    Z3, Z2, Z2
	VPADDQ    Z2, Z0, Z0
	VPMOVQD   Z0, Y0
	VMOVDQU   Y0, (DI)
	ADDQ      $32, DI
	ADDQ      R11, DX
	SUBQ      $8, R8
	JNZ       block
	VZEROUPPER
	RET
