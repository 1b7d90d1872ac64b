package embedding

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Encode returns v as a BLOB: each element as a little-endian IEEE 754
// float32, four bytes apiece, the layout SQLite vector extensions and
// pgvector's binary form also use.
func Encode(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// Decode reads a BLOB written by Encode, appending to dst (which may be
// nil) and returning the extended slice. It fails when the length is not
// a multiple of four.
func Decode(dst []float32, b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return dst, fmt.Errorf("decode vector: %d bytes is not a whole number of float32s", len(b))
	}
	dst = growFloats(dst, len(b)/4)
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst, nil
}

// growFloats makes room for n more elements without reallocating twice.
func growFloats(s []float32, n int) []float32 {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make([]float32, len(s), len(s)+n)
	copy(t, s)
	return t
}
