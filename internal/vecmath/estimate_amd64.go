package vecmath

import "golang.org/x/sys/cpu"

// hasPOPCNT is read once: CPU features do not change while we run.
var hasPOPCNT = cpu.X86.HasPOPCNT

// estimateRows is EstimateRows after its bounds are checked: the assembly
// checks none.
func estimateRows(out []int32, p, signs []uint64, w int) {
	if !hasPOPCNT {
		estimateRowsGo(out, p, signs, w)
		return
	}
	estimateRowsAsm(&out[0], &p[0], &signs[0], w, len(out))
}

//go:noescape
func estimateRowsAsm(out *int32, p, signs *uint64, w, n int)
