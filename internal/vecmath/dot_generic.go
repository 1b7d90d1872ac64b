//go:build !amd64

package vecmath

func dot8(out *[8]float32, q, data []float32, offs *[8]int) { dot8Go(out, q, data, offs) }
