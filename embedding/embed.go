package embedding

import (
	"context"
	"math"

	"github.com/hearth-rpg/hearth/internal/vecmath"
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
// unit vectors it is their cosine similarity. It is vecmath.Dot, whose
// many-row forms give the same bits, so an exact scan scoring rows in
// blocks agrees with scoring them one at a time.
func Dot(a, b []float32) float32 { return vecmath.Dot(a, b) }
