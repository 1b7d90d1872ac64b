// Package vecmath computes float32 dot products for exact vector scans:
// one pair, a run of rows stored end to end, or rows picked by index; and
// the sign-bit estimate that picks candidates for an exact re-rank (one
// bit a stored dimension, four a query dimension, AND and popcount).
//
// Every function gives bit-for-bit the same result on every platform:
// element i is accumulated into lane i mod 4 in order, each product
// rounded to float32 before it is added, and the lanes are summed as
// (l0+l1)+(l2+l3). On amd64 the many-row functions score eight rows at
// a time with SSE, one 4-lane register a row, which is the same
// arithmetic in the same order; elsewhere they loop in Go.
//
// EstimateRows, the estimate over a block of rows, is integer arithmetic
// and so exact however it is computed: on amd64 it counts eight rows at
// once with AVX-512 VPOPCNTQ where the CPU has it, else one row at a time
// with POPCNT, else in Go.
package vecmath
