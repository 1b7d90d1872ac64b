package memvec

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/hearth-rpg/hearth/embedding"
)

// randomCache makes n random unit vectors with random access levels.
func randomCache(rng *rand.Rand, n, dim int) *Set {
	vc := &Set{dim: dim}
	for i := range n {
		row := int64(3*i + 1) // row numbers need not be dense
		vc.base.add(row, int8(1+rng.IntN(4)), randomUnit(rng, dim))
	}
	vc.base.index(dim)
	return vc
}

func randomUnit(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for j := range v {
		v[j] = float32(rng.NormFloat64())
	}
	embedding.Normalize(v)
	return v
}

// bruteForce is the scan's reference: score everything, sort, cut.
func bruteForce(vc *Set, q []float32, role, k int, allowed []int64) []Hit {
	var all []Hit
	rows, acc, vecs := vc.Live()
	for i, n := range rows {
		if int(acc[i]) > role || (allowed != nil && !slices.Contains(allowed, n)) {
			continue
		}
		if s := embedding.Dot(q, vecs[i]); s > 0 {
			all = append(all, Hit{n, s})
		}
	}
	slices.SortFunc(all, better)
	return all[:min(k, len(all))]
}

func TestScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// Above parallelFrom, so the scan is split across goroutines.
	vc := randomCache(rng, parallelFrom+3001, 8)
	allowed := []int64{1, 4, 7, 301, 3001, 9999}
	for _, tt := range []struct {
		name    string
		role, k int
		allowed []int64
	}{
		{"player, top 10", 1, 10, nil},
		{"gm, top 50", 4, 50, nil},
		{"assistant, k above matches", 3, 1 << 20, nil},
		{"filtered rows", 4, 3, allowed},
		{"filtered rows, player", 1, 10, allowed},
		{"zero k", 4, 0, nil},
	} {
		q := make([]float32, 8)
		for j := range q {
			q[j] = float32(rng.NormFloat64())
		}
		embedding.Normalize(q)
		got := vc.Scan(q, tt.role, tt.k, tt.allowed)
		want := bruteForce(vc, q, tt.role, tt.k, tt.allowed)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: scan gave %d hits, brute force %d; first %v vs %v", tt.name, len(got), len(want), got[:min(3, len(got))], want[:min(3, len(want))])
		}
		for _, h := range got {
			if int(vc.base.access[vc.base.slot[h.Row]]) > tt.role {
				t.Fatalf("%s: row %d above the role", tt.name, h.Row)
			}
		}
	}
	if got := vc.Scan(make([]float32, 3), 4, 10, nil); got != nil {
		t.Errorf("a query of the wrong dimension gave %v", got)
	}
}

// TestScanSizes holds the blocked, split scan to the row-by-row brute
// force, same rows and same score bits, at sizes that do not divide into
// the parts, blocks or eight-row groups, with dead slots and an extra slab.
func TestScanSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tt := range []struct{ n, extra, dim int }{
		{1, 0, 384},
		{63, 5, 384},
		{1000, 17, 5},
		{parallelFrom - 1, 0, 12},
		{parallelFrom + 3001, 9, 384},
		{3*parallelFrom + 7, 0, 16},
	} {
		vc := randomCache(rng, tt.n, tt.dim)
		vc.dead = make([]uint64, (tt.n+63)/64)
		for i := 0; i < tt.n; i += 1 + rng.IntN(40) {
			vc.dead[i/64] |= 1 << (i % 64)
			vc.ndead++
		}
		for i := range tt.extra {
			vc.extra.add(int64(3*tt.n+10+i), int8(1+rng.IntN(4)), randomUnit(rng, tt.dim))
		}
		for _, role := range []int{1, 4} {
			for _, k := range []int{1, 10, 40} {
				q := randomUnit(rng, tt.dim)
				got := vc.Scan(q, role, k, nil)
				want := bruteForce(vc, q, role, k, nil)
				if len(got) != len(want) {
					t.Fatalf("n=%d dim=%d role=%d k=%d: %d hits, brute force %d", tt.n, tt.dim, role, k, len(got), len(want))
				}
				for i := range got {
					if got[i].Row != want[i].Row || math.Float32bits(got[i].Score) != math.Float32bits(want[i].Score) {
						t.Fatalf("n=%d dim=%d role=%d k=%d: hit %d is %v, brute force %v", tt.n, tt.dim, role, k, i, got[i], want[i])
					}
				}
			}
		}
	}
}
