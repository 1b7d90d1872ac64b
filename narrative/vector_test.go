package narrative

import (
	"math/rand/v2"
	"testing"
)

// TestEstimate checks the bit-plane arithmetic against the sum it stands
// for, 2·Σ u[i]·S[i] − 15·popcount(S), computed one dimension at a time,
// on dimensions that do and do not fill whole words.
func TestEstimate(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, dim := range []int{1, 63, 64, 100, 384} {
		for range 20 {
			q, x := randomUnit(r, dim), randomUnit(r, dim)
			var m float32
			for _, v := range q {
				m = max(m, v, -v)
			}
			want, pop := 0, 0
			for i := range dim {
				u := min(max(int(q[i]/(m/7.5)+8), 0), 15)
				if x[i] > 0 {
					want += 2 * u
					pop++
				}
			}
			want -= 15 * pop
			if got := estimate(planes(q), signBits(nil, x), pop); got != want {
				t.Fatalf("dim %d: estimate %d, want %d", dim, got, want)
			}
		}
	}
}

func TestUnit(t *testing.T) {
	if unit([]float32{0, 0}) != nil {
		t.Error("a zero vector has no direction")
	}
	v := unit([]float32{3, 4})
	if v[0] != 0.6 || v[1] != 0.8 || !normalized(v) {
		t.Errorf("unit(3, 4) = %v", v)
	}
}
