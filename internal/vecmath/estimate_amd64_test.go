package vecmath

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEstimateKernels checks each assembly kernel this CPU can run
// against the Go reference over whole inputs, so neither hides behind
// the other in EstimateRows.
func TestEstimateKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 4))
	for _, w := range []int{1, 2, 6, 24} {
		p := make([]uint64, 4*w)
		for i := range p {
			p[i] = r.Uint64()
		}
		const n = 64
		signs := make([]uint64, n*w)
		for i := range signs {
			signs[i] = r.Uint64()
		}
		want := make([]int32, n)
		estimateRowsGo(want, p, signs, w)
		if hasPOPCNT {
			got := make([]int32, n)
			estimateRowsAsm(&got[0], &p[0], &signs[0], w, n)
			if !slices.Equal(got, want) {
				t.Errorf("POPCNT kernel, %d words: %v, want %v", w, got, want)
			}
		} else {
			t.Log("no POPCNT: its kernel is not tested")
		}
		if hasVPOPCNTQ {
			got := make([]int32, n)
			var idx [8]int64
			for j := range idx {
				idx[j] = int64(j * w)
			}
			estimateRows8AVX512(&got[0], &p[0], &signs[0], w, n, &idx)
			if !slices.Equal(got, want) {
				t.Errorf("AVX-512 kernel, %d words: %v, want %v", w, got, want)
			}
		} else {
			t.Log("no AVX-512 VPOPCNTQ: its kernel is not tested")
		}
	}
}
