package vecmath

import (
	"math/rand/v2"
	"testing"
)

// TestEstimate checks the bit-plane arithmetic against the sum it stands
// for, 2·Σ u[i]·S[i] − 15·popcount(S), one dimension at a time, on
// dimensions that do and do not fill whole words, and that it stays
// within EstimateSpan.
func TestEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, dim := range []int{1, 63, 64, 100, 384} {
		for range 20 {
			q, x := make([]float32, dim), make([]float32, dim)
			for i := range dim {
				q[i], x[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			}
			var m float32
			for _, v := range q {
				m = max(m, v, -v)
			}
			want, wantPop := 0, 0
			for i := range dim {
				u := min(max(int(q[i]/(m/7.5)+8), 0), 15)
				if x[i] > 0 {
					want += 2 * u
					wantPop++
				}
			}
			want -= 15 * wantPop
			s, pop := AppendSigns([]uint64{42}, x)
			if pop != wantPop || len(s) != 1+SignWords(dim) || s[0] != 42 {
				t.Fatalf("dim %d: AppendSigns gave %d words, %d set; want %d, %d", dim, len(s), pop, 1+SignWords(dim), wantPop)
			}
			got := Estimate(QueryPlanes(q), s[1:], pop)
			if got != want {
				t.Fatalf("dim %d: estimate %d, want %d", dim, got, want)
			}
			if got < -EstimateSpan(dim) || got > EstimateSpan(dim) {
				t.Fatalf("dim %d: estimate %d outside ±%d", dim, got, EstimateSpan(dim))
			}
		}
	}
}

func TestCut(t *testing.T) {
	hist := []int32{4, 0, 3, 2, 1} // keys 0..4
	for _, tt := range []struct{ want, cut, atCut int }{
		{0, 4, 0},
		{1, 4, 1},
		{2, 3, 1},
		{3, 3, 2},
		{5, 2, 2},
		{6, 2, 3},
		{7, 0, 1},
		{10, 0, 4},
	} {
		if cut, atCut := Cut(hist, tt.want); cut != tt.cut || atCut != tt.atCut {
			t.Errorf("Cut(%d) = %d, %d; want %d, %d", tt.want, cut, atCut, tt.cut, tt.atCut)
		}
	}
}
