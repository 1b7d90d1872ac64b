package sqlitenarrative

import (
	"math"
	"slices"
	"testing"
)

// FuzzDecodeVector: embedding blobs are read back from a file that may be
// damaged. Decoding must not panic, must refuse what is not a finite
// vector, and must round-trip what it accepts.
func FuzzDecodeVector(f *testing.F) {
	f.Add(encodeVector([]float32{0.5, -1, 3}))
	f.Add([]byte{1, 2, 3})
	f.Add(encodeVector([]float32{float32(math.NaN())}))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decodeVector(b)
		if err != nil {
			return
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("accepted %v", x)
			}
		}
		if got := encodeVector(v); !slices.Equal(got, b) && len(b) > 0 {
			t.Fatalf("round trip %x → %v → %x", b, v, got)
		}
	})
}
