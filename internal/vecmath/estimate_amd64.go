package vecmath

import "golang.org/x/sys/cpu"

// The CPU's features are read once: they do not change while we run.
var (
	hasPOPCNT = cpu.X86.HasPOPCNT
	// VPOPCNTQ counts eight rows' bits at once (AVX-512 VPOPCNTDQ, which
	// cpu reports only when the OS saves the AVX-512 registers).
	hasVPOPCNTQ = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VPOPCNTDQ
)

// estimateRows is EstimateRows after its bounds are checked: the assembly
// checks none.
func estimateRows(out []int32, p, signs []uint64, w int) {
	if !hasPOPCNT {
		estimateRowsGo(out, p, signs, w)
		return
	}
	if n8 := len(out) &^ 7; hasVPOPCNTQ && n8 > 0 {
		var idx [8]int64 // each of eight rows' first word, counted from the first row's
		for j := range idx {
			idx[j] = int64(j * w)
		}
		estimateRows8AVX512(&out[0], &p[0], &signs[0], w, n8, &idx)
		if n8 == len(out) {
			return
		}
		out, signs = out[n8:], signs[n8*w:]
	}
	estimateRowsAsm(&out[0], &p[0], &signs[0], w, len(out))
}

//go:noescape
func estimateRowsAsm(out *int32, p, signs *uint64, w, n int)

//go:noescape
func estimateRows8AVX512(out *int32, p, signs *uint64, w, n int, idx *[8]int64)
