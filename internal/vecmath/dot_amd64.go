package vecmath

// dot8 scores the eight rows of data that start offs[j] floats in, each
// of len(q) floats, len(q) a positive multiple of 4. The caller has
// checked every bound: the assembly checks none.
func dot8(out *[8]float32, q, data []float32, offs *[8]int) {
	dot8asm(out, &q[0], len(q), &data[0], offs)
}

//go:noescape
func dot8asm(out *[8]float32, q *float32, n int, base *float32, offs *[8]int)
