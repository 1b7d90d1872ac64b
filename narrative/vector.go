package narrative

import (
	"math"

	"github.com/hearth-rpg/hearth/internal/vecmath"
)

// dot returns the dot product of a and b, which have the same length:
// vecmath.Dot, so scoring one row agrees with scoring rows in blocks.
func dot(a, b []float32) float32 { return vecmath.Dot(a, b) }

// normalized reports whether v has unit length (within float32 noise).
func normalized(v []float32) bool {
	n := dot(v, v)
	return n > 0.9999 && n < 1.0001
}

// unit returns v scaled to unit length, or nil when v is zero or not
// finite and so has no direction.
func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil
	}
	inv := 1 / math.Sqrt(n)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// cosine returns the cosine similarity of a and b.
func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// words is the number of uint64s that hold one sign bit per dimension.
func words(dim int) int { return vecmath.SignWords(dim) }

// signBits appends to dst the sign bit of each dimension of v: the binary
// quantisation of stored vectors (vecmath.AppendSigns).
func signBits(dst []uint64, v []float32) []uint64 {
	dst, _ = vecmath.AppendSigns(dst, v)
	return dst
}

// planes quantises a query to 4 bits a dimension (vecmath.QueryPlanes).
func planes(q []float32) []uint64 { return vecmath.QueryPlanes(q) }

// estimate is the asymmetric binary estimate of q·x (vecmath.Estimate).
func estimate(p []uint64, s []uint64, pop int) int { return vecmath.Estimate(p, s, pop) }
