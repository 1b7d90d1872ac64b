package vecmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func randomFloats(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		// Mixed magnitudes and signs, so lost low bits would show.
		v[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)))
	}
	return v
}

// same reports whether a and b are the same bits: exactness, not nearness.
func same(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

func TestDotNearFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 3, 4, 5, 8, 383, 384, 1536} {
		a, b := randomFloats(rng, n), randomFloats(rng, n+2) // common length n
		var want, mag float64
		for i := range n {
			want += float64(a[i]) * float64(b[i])
			mag += math.Abs(float64(a[i]) * float64(b[i]))
		}
		got := float64(Dot(a, b))
		if math.Abs(got-want) > 1e-5*mag+1e-30 {
			t.Errorf("n=%d: Dot = %g, float64 sum %g", n, got, want)
		}
	}
}

func TestDotRowsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dim := range []int{1, 3, 4, 8, 12, 384, 385} {
		for _, rows := range []int{0, 1, 7, 8, 9, 16, 23, 100} {
			t.Run(fmt.Sprintf("dim=%d/rows=%d", dim, rows), func(t *testing.T) {
				q, data := randomFloats(rng, dim), randomFloats(rng, rows*dim)
				out := make([]float32, rows)
				DotRows(out, q, data)
				for r := range rows {
					if want := Dot(q, data[r*dim:(r+1)*dim]); !same(out[r], want) {
						t.Fatalf("row %d: DotRows %g (%#x), Dot %g (%#x)", r, out[r], math.Float32bits(out[r]), want, math.Float32bits(want))
					}
				}
			})
		}
	}
}

func TestDotGatherExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{4, 7, 384} {
		for _, picks := range []int{0, 1, 8, 13, 64} {
			t.Run(fmt.Sprintf("dim=%d/picks=%d", dim, picks), func(t *testing.T) {
				const n = 50
				q, data := randomFloats(rng, dim), randomFloats(rng, n*dim)
				rows := make([]int32, picks)
				for i := range rows {
					rows[i] = int32(rng.IntN(n)) // repeats and any order
				}
				out := make([]float32, picks)
				DotGather(out, q, data, rows)
				for i, r := range rows {
					if want := Dot(q, data[int(r)*dim:int(r+1)*dim]); !same(out[i], want) {
						t.Fatalf("pick %d (row %d): DotGather %g, Dot %g", i, r, out[i], want)
					}
				}
			})
		}
	}
}

// TestDot8MatchesGo holds the platform's dot8 (assembly on amd64) to the
// Go loop bit for bit, including infinities and signed zeros.
func TestDot8MatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, dim := range []int{4, 8, 384} {
		q, data := randomFloats(rng, dim), randomFloats(rng, 20*dim)
		data[3] = float32(math.Inf(1))
		data[dim+1] = float32(math.Copysign(0, -1))
		offs := [8]int{0, dim, 19 * dim, 2 * dim, 2 * dim, 7 * dim, 11 * dim, 5 * dim}
		var got, want [8]float32
		dot8(&got, q, data, &offs)
		dot8Go(&want, q, data, &offs)
		for j := range got {
			if !same(got[j], want[j]) {
				t.Errorf("dim %d, row %d: dot8 %g, Go %g", dim, offs[j]/dim, got[j], want[j])
			}
		}
	}
}

func TestBadShapesPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"short data":      func() { DotRows(make([]float32, 3), make([]float32, 4), make([]float32, 11)) },
		"row past data":   func() { DotGather(make([]float32, 1), make([]float32, 4), make([]float32, 8), []int32{2}) },
		"negative row":    func() { DotGather(make([]float32, 1), make([]float32, 4), make([]float32, 8), []int32{-1}) },
		"out not by rows": func() { DotGather(make([]float32, 2), make([]float32, 4), make([]float32, 8), []int32{0}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func BenchmarkDot(b *testing.B) {
	const dim, rows = 384, 4096
	rng := rand.New(rand.NewPCG(9, 9))
	q, data := randomFloats(rng, dim), randomFloats(rng, rows*dim)
	out := make([]float32, rows)
	b.Run("Dot-each-row", func(b *testing.B) {
		for b.Loop() {
			for r := range rows {
				out[r] = Dot(q, data[r*dim:(r+1)*dim])
			}
		}
		b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("DotRows", func(b *testing.B) {
		for b.Loop() {
			DotRows(out, q, data)
		}
		b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkDotRowsMemory scores 10,000 rows of 384 (15 MB, near the
// caches) and 100,000 (153 MB, from memory) on one goroutine, beside a
// plain copy of the 153 MB: the yardstick for whether a scan of that
// size waits on memory rather than arithmetic.
func BenchmarkDotRowsMemory(b *testing.B) {
	const dim = 384
	rng := rand.New(rand.NewPCG(9, 9))
	data := randomFloats(rng, 100_000*dim)
	q := randomFloats(rng, dim)
	out := make([]float32, 100_000)
	for _, rows := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			for b.Loop() {
				DotRows(out[:rows], q, data[:rows*dim])
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
		})
	}
	b.Run("copy-100000-rows", func(b *testing.B) {
		dst := make([]float32, len(data))
		for b.Loop() {
			copy(dst, data)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*100_000), "ns/row")
	})
}
