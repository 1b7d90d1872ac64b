package vecmath

import (
	"math/rand/v2"
	"testing"
)

// TestEstimateRows checks EstimateRows (assembly on amd64) against
// Estimate row by row, and against its Go reference, for row widths of
// one word up to more than a cache line and row counts around the sizes
// a recall passes.
func TestEstimateRows(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	for _, dim := range []int{1, 64, 100, 384, 768, 1536} {
		w := SignWords(dim)
		q := make([]float32, dim)
		for i := range q {
			q[i] = float32(r.NormFloat64())
		}
		p := QueryPlanes(q)
		for _, n := range []int{1, 2, 7, 8, 16, 300} {
			signs := make([]uint64, n*w)
			for i := range signs {
				signs[i] = r.Uint64()
			}
			if dim%64 != 0 { // as AppendSigns leaves them: no bits past dim
				for row := range n {
					signs[row*w+w-1] &= 1<<(dim%64) - 1
				}
			}
			got, ref := make([]int32, n), make([]int32, n)
			EstimateRows(got, p, signs, w)
			estimateRowsGo(ref, p, signs, w)
			for row := range n {
				s := signs[row*w : (row+1)*w]
				pop := 0
				for _, x := range s {
					pop += popcount(x)
				}
				if want := Estimate(p, s, pop); 2*int(got[row])-15*pop != want || got[row] != ref[row] {
					t.Fatalf("dim %d, %d rows: row %d gives %d (Go %d), so an estimate of %d; Estimate gives %d",
						dim, n, row, got[row], ref[row], 2*int(got[row])-15*pop, want)
				}
			}
		}
	}
}

// TestEstimateRowsBounds checks that rows the signs cannot hold are
// refused before any assembly reads past them.
func TestEstimateRowsBounds(t *testing.T) {
	p := QueryPlanes(make([]float32, 128))
	for _, c := range []struct {
		name       string
		out, signs int
		w          int
	}{
		{"short signs", 3, 5, 2},
		{"no words", 1, 1, 0},
		{"short planes", 1, 3, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			EstimateRows(make([]int32, c.out), p, make([]uint64, c.signs), c.w)
		})
	}
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func BenchmarkEstimateRows(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, dim = 4096, 384
	w := SignWords(dim)
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	p := QueryPlanes(q)
	signs := make([]uint64, n*w)
	for i := range signs {
		signs[i] = r.Uint64()
	}
	out := make([]int32, n)
	b.Run("rows", func(b *testing.B) {
		for b.Loop() {
			EstimateRows(out, p, signs, w)
		}
	})
	b.Run("each", func(b *testing.B) {
		for b.Loop() {
			for row := range n {
				out[row] = int32(Estimate(p, signs[row*w:(row+1)*w], 0))
			}
		}
	})
}
