//go:build !amd64

package vecmath

func estimateRows(out []int32, p, signs []uint64, w int) { estimateRowsGo(out, p, signs, w) }
