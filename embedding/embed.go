package embedding

import (
	"context"
	"math"
)

// Embedder maps texts to vectors. Every vector it returns has Dim()
// elements and unit length (or is all zeros for a text with nothing to
// embed), so Dot gives cosine similarity. Implementations are safe for
// concurrent use.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dim is the length of every vector.
	Dim() int
	// Name identifies the embedding space: vectors from embedders with
	// different names (or dimensions) must not be compared. An index
	// re-embeds its contents when the name changes.
	Name() string
}

// Normalize scales v in place to unit length. A zero vector stays zero.
// The norm is summed in float64 so long vectors do not lose precision.
func Normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}

// Dot returns the dot product of a and b over their common length. For
// unit vectors it is their cosine similarity. It is the inner loop of an
// exact vector scan, so it keeps four independent accumulators, which
// lets the CPU overlap the multiply-adds.
func Dot(a, b []float32) float32 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= n; i += 4 {
		// Reslicing to a fixed length lets the compiler drop the bounds
		// checks inside the block.
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
