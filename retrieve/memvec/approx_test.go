package memvec

import (
	"cmp"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/embedding"
)

// deadAndExtra marks about one base slot in twenty dead and adds extra
// vectors, as catching up with writes does.
func deadAndExtra(rng *rand.Rand, vc *Set, extra int) {
	n := len(vc.base.rows)
	vc.dead = make([]uint64, (n+63)/64)
	for i := 0; i < n; i += 1 + rng.IntN(40) {
		vc.dead[i/64] |= 1 << (i % 64)
		vc.ndead++
	}
	for i := range extra {
		vc.extra.add(int64(3*n+10+i), int8(1+rng.IntN(4)), randomUnit(rng, vc.dim))
	}
}

// TestSearchAllCandidates: with at least as many candidates as rows, the
// approximate search re-ranks every readable row and so equals the exact
// scan, hit for hit and bit for bit, with roles, filters, dead slots and
// extra vectors, split across goroutines or not.
func TestSearchAllCandidates(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tt := range []struct{ n, extra, dim int }{
		{1, 0, 384},
		{1000, 17, 5},
		{parallelFrom + 3001, 9, 64},
	} {
		vc := randomCache(rng, tt.n, tt.dim)
		deadAndExtra(rng, vc, tt.extra)
		var pool sync.Pool
		var allowed []int64
		for i := range tt.n + tt.extra {
			if rng.IntN(3) == 0 {
				allowed = append(allowed, int64(3*i+1))
			}
		}
		allowed = append(allowed, int64(3*tt.n+10)) // an extra row
		for _, role := range []int{1, 4} {
			for _, k := range []int{1, 10, 40} {
				for _, filter := range [][]int64{nil, allowed} {
					q := randomUnit(rng, tt.dim)
					want := vc.Scan(q, role, k, filter)
					got := vc.Search(q, role, k, filter, tt.n+tt.extra, &pool)
					if len(got) == 0 && len(want) == 0 {
						continue
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("n=%d role=%d k=%d filtered=%v: %v, exact %v", tt.n, role, k, filter != nil, got[:min(3, len(got))], want[:min(3, len(want))])
					}
				}
			}
		}
	}
}

// TestSearchFewCandidates holds the approximate search with few
// candidates, on sparse queries (which it estimates), to what it promises: every hit readable and allowed, scored
// exactly (the same bits as the exact scan), best first; and a query
// close to one stored vector finds it first, however many rows there are
// and however far down the estimate ranks the true best.
func TestSearchFewCandidates(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n, dim = parallelFrom + 3001, 384
	vc := randomCache(rng, n, dim)
	deadAndExtra(rng, vc, 9)
	var pool sync.Pool
	var allowed []int64
	for i := range n {
		if i%2 == 0 {
			allowed = append(allowed, int64(3*i+1))
		}
	}
	in := map[int64]bool{}
	for _, r := range allowed {
		in[r] = true
	}
	for trial := range 40 {
		role := 1 + trial%4
		var filter []int64
		if trial%3 == 0 {
			filter = allowed
		}
		// A live readable slot to aim at, allowed by the filter.
		var target int
		for {
			target = rng.IntN(n)
			if !vc.isDead(target) && int(vc.base.access[target]) <= role && (filter == nil || in[vc.base.rows[target]]) {
				break
			}
		}
		// The target's 24 largest dimensions: a sparse query, as the
		// hashing embedder makes of a short text.
		x := vc.base.vec(target, dim)
		top := make([]int, dim)
		for j := range top {
			top[j] = j
		}
		slices.SortFunc(top, func(a, b int) int { return cmp.Compare(math.Abs(float64(x[b])), math.Abs(float64(x[a]))) })
		q := make([]float32, dim)
		for _, j := range top[:24] {
			q[j] = x[j]
		}
		embedding.Normalize(q)
		if d, _ := estimateDims(q, new(approx)); d == nil {
			t.Fatal("a 24-dimension query is scored exactly, not estimated")
		}
		got := vc.Search(q, role, 10, filter, 64, &pool)
		if len(got) != 10 {
			t.Fatalf("trial %d: %d hits, want 10", trial, len(got))
		}
		if got[0].Row != vc.base.rows[target] {
			t.Fatalf("trial %d: first hit row %d (%v), want the near-duplicate row %d", trial, got[0].Row, got[0].Score, vc.base.rows[target])
		}
		for i, h := range got {
			s, acc, v := vc.base.slot[h.Row], int8(0), []float32(nil)
			if e, ok := vc.extra.slot[h.Row]; ok {
				acc, v = vc.extra.access[e], vc.extra.vec(int(e), dim)
			} else {
				if vc.isDead(int(s)) {
					t.Fatalf("trial %d: row %d is dead", trial, h.Row)
				}
				acc, v = vc.base.access[s], vc.base.vec(int(s), dim)
			}
			if int(acc) > role || filter != nil && !in[h.Row] {
				t.Fatalf("trial %d: row %d is not the role's or not allowed", trial, h.Row)
			}
			if math.Float32bits(h.Score) != math.Float32bits(embedding.Dot(q, v)) {
				t.Fatalf("trial %d: row %d scored %v, exactly %v", trial, h.Row, h.Score, embedding.Dot(q, v))
			}
			if i > 0 && better(got[i-1], h) > 0 {
				t.Fatalf("trial %d: hits out of order at %d", trial, i)
			}
		}
	}
}

// TestSearchDenseQuery: a query spread evenly over many dimensions is not
// estimated but scored exactly, however few the candidates.
func TestSearchDenseQuery(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	vc := randomCache(rng, 5000, 384)
	var pool sync.Pool
	q := randomUnit(rng, 384)
	if d, _ := estimateDims(q, new(approx)); d != nil {
		t.Fatalf("a dense query is estimated from %d dimensions", len(d))
	}
	if got, want := vc.Search(q, 4, 10, nil, 8, &pool), vc.Scan(q, 4, 10, nil); !reflect.DeepEqual(got, want) {
		t.Fatalf("dense query: %v, exact %v", got, want)
	}
}
