package sqlitenarrative

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/hearth-rpg/hearth/narrative"
)

// encodeVector stores v as little-endian float32s; nil for no vector.
func encodeVector(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector reads a stored vector, refusing blobs that cannot be one.
func decodeVector(b []byte) ([]float32, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if len(b)%4 != 0 || len(b)/4 > narrative.MaxDimensions {
		return nil, fmt.Errorf("embedding blob of %d bytes is not a vector of at most %d float32s", len(b), narrative.MaxDimensions)
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		x := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("embedding blob holds %v at dimension %d", x, i)
		}
		v[i] = x
	}
	return v, nil
}
