package vecmath

import (
	"fmt"
	"math/bits"
)

// EstimateRows sets out[r] to Σ_b 2^b·popcount(plane_b & S_r) over the
// words of stored row r, for the len(out) rows of signs (w words a row,
// end to end) against query planes p (QueryPlanes): the part of Estimate
// that reads the row, so Estimate(p, S_r, pop) = 2·out[r] − 15·pop. On
// CPUs with POPCNT it runs in assembly, several times faster than calling
// Estimate a row at a time (the estimate pass is most of a recall).
func EstimateRows(out []int32, p, signs []uint64, w int) {
	if w <= 0 || len(p) < 4*w || len(signs) < len(out)*w {
		panic(fmt.Sprintf("vecmath: %d rows of %d words need %d sign words and %d plane words, have %d and %d",
			len(out), w, len(out)*w, 4*w, len(signs), len(p)))
	}
	if len(out) == 0 {
		return
	}
	estimateRows(out, p, signs, w)
}

// estimateRowsGo is EstimateRows where there is no assembly, and its
// reference where there is.
func estimateRowsGo(out []int32, p, signs []uint64, w int) {
	p = p[:4*w]
	for r := range out {
		s := signs[r*w : (r+1)*w]
		acc := 0
		for i, x := range s {
			q := p[4*i : 4*i+4 : 4*i+4]
			acc += bits.OnesCount64(x&q[0]) + bits.OnesCount64(x&q[1])<<1 +
				bits.OnesCount64(x&q[2])<<2 + bits.OnesCount64(x&q[3])<<3
		}
		out[r] = int32(acc)
	}
}
