package vecmath

import "fmt"

// Dot returns the dot product of a and b over their common length. For
// unit vectors it is their cosine similarity.
func Dot(a, b []float32) float32 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= n; i += 4 {
		// Reslicing to a fixed length lets the compiler drop the bounds
		// checks inside the block. The conversions round each product,
		// so no platform fuses a multiply-add and every one agrees.
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += float32(x[0] * y[0])
		s1 += float32(x[1] * y[1])
		s2 += float32(x[2] * y[2])
		s3 += float32(x[3] * y[3])
	}
	for ; i < n; i++ {
		s0 += float32(a[i] * b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// DotRows sets out[r] to Dot(q, row r of data) for every r < len(out),
// where data holds rows of len(q) floats end to end.
func DotRows(out, q, data []float32) {
	d := len(q)
	if len(data) < len(out)*d {
		panic(fmt.Sprintf("vecmath: %d rows of %d floats need %d, data has %d", len(out), d, len(out)*d, len(data)))
	}
	r := 0
	if d > 0 && d%4 == 0 {
		var offs [8]int
		for j := range offs {
			offs[j] = j * d
		}
		for ; r+8 <= len(out); r += 8 {
			dot8((*[8]float32)(out[r:r+8]), q, data[r*d:(r+8)*d], &offs)
		}
	}
	for ; r < len(out); r++ {
		out[r] = Dot(q, data[r*d:(r+1)*d])
	}
}

// DotGather sets out[i] to Dot(q, row rows[i] of data), where data holds
// rows of len(q) floats end to end; len(out) must equal len(rows).
func DotGather(out, q, data []float32, rows []int32) {
	d := len(q)
	if len(out) != len(rows) {
		panic(fmt.Sprintf("vecmath: %d results for %d rows", len(out), len(rows)))
	}
	n := 0
	if d > 0 {
		n = len(data) / d
	}
	for _, r := range rows {
		if r < 0 || int(r) >= n {
			panic(fmt.Sprintf("vecmath: row %d outside the %d rows of data", r, n))
		}
	}
	i := 0
	if d > 0 && d%4 == 0 {
		var offs [8]int
		for ; i+8 <= len(rows); i += 8 {
			for j := range offs {
				offs[j] = int(rows[i+j]) * d
			}
			dot8((*[8]float32)(out[i:i+8]), q, data, &offs)
		}
	}
	for ; i < len(rows); i++ {
		r := int(rows[i])
		out[i] = Dot(q, data[r*d:(r+1)*d])
	}
}

// dot8Go scores the eight rows of data that start offs[j] floats in,
// each of len(q) floats: dot8 where there is no assembly, and its
// reference where there is.
func dot8Go(out *[8]float32, q, data []float32, offs *[8]int) {
	d := len(q)
	for j, o := range offs {
		out[j] = Dot(q, data[o:o+d])
	}
}
