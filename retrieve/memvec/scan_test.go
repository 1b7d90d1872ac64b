package memvec

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestScanSkipsDeadAndReadsExtra checks the scan of a cache that caught
// up against brute force over what it holds.
func TestScanSkipsDeadAndReadsExtra(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const dim = 8
	vc := randomCache(rng, parallelFrom+500, dim)
	vc.dead = make([]uint64, (len(vc.base.rows)+63)/64)
	var allowed []int64
	for i := 0; i < len(vc.base.rows); i += 7 {
		vc.dead[i/64] |= 1 << (i % 64)
		vc.ndead++
		allowed = append(allowed, vc.base.rows[i], vc.base.rows[i+1])
	}
	for i := range 300 {
		n := int64(10_000_000 + i)
		vc.extra.add(n, int8(1+rng.IntN(4)), randomUnit(rng, dim))
		if i%3 == 0 {
			allowed = append(allowed, n)
		}
	}
	for _, role := range []int{1, 4} {
		for _, rows := range [][]int64{nil, allowed} {
			q := randomUnit(rng, dim)
			got, want := vc.Scan(q, role, 25, rows), bruteForce(vc, q, role, 25, rows)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("role %d, %d allowed: scan %v, brute force %v", role, len(rows), got[:min(3, len(got))], want[:min(3, len(want))])
			}
			for _, h := range got {
				if i, ok := vc.base.slot[h.Row]; ok && vc.isDead(int(i)) {
					t.Fatalf("role %d: dead row %d returned", role, h.Row)
				}
			}
		}
	}
}
