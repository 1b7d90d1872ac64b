package vecmath

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDotGatherMemory scores 2,048 rows picked at random from
// 100,000 × 384, as memory recall's re-rank does: the rows are scattered
// over 153 MB, so it measures waiting on memory more than arithmetic.
func BenchmarkDotGatherMemory(b *testing.B) {
	const n, d, k = 100_000, 384, 2048
	r := rand.New(rand.NewPCG(3, 3))
	data := make([]float32, n*d)
	for i := range data {
		data[i] = float32(r.NormFloat64())
	}
	q := data[:d]
	rows := make([]int32, k)
	out := make([]float32, k)
	for b.Loop() {
		b.StopTimer()
		for i := range rows {
			rows[i] = int32(r.IntN(n))
		}
		b.StartTimer()
		DotGather(out, q, data, rows)
	}
}
