package sqliteindex

import (
	"runtime"
	"sync"

	"github.com/hearth-rpg/hearth/internal/vecmath"
)

// DefaultVectorCandidates is how many rows a vector search re-ranks by
// exact similarity after picking them by their sign-bit estimate, unless
// WithVectorCandidates says otherwise.
const DefaultVectorCandidates = 0

// approx holds one approximate search's working buffers, kept in a pool
// so a search allocates no large ones.
type approx struct {
	keys  []int32
	hists [][]int32
	slots []int32 // the base slots a filter narrowed the search to
	out   []int32 // the candidates
	sims  []float32
}

// search returns what scan does, the k best vectors the role may read
// (among allowed when it is not nil), but with cands > 0 it scores
// exactly only the cands base slots of highest sign-bit estimate, found
// with one pass over 1 bit a dimension instead of 32. A row outside the
// candidates is missed even if it is among the k best: that is the
// approximation, measured in BenchmarkVectorRecall. Only rows the role
// may read (and, with allowed, only those rows) are ever candidates, so
// the top k are the top k after filtering. The vectors stored since the
// base was loaded (extra) are always scored exactly. With cands ≤ 0, or
// no more readable rows than cands, it is exact.
func (vc *vectorCache) search(q []float32, role, k int, allowed []int64, cands int, pool *sync.Pool) []hit {
	if cands <= 0 {
		return vc.scan(q, role, k, allowed)
	}
	if k <= 0 || len(q) != vc.dim {
		return nil
	}
	sc, _ := pool.Get().(*approx)
	if sc == nil {
		sc = new(approx)
	}
	defer pool.Put(sc)
	h := topK{k: k}
	var slots []int32
	narrowed := allowed != nil
	if narrowed {
		slots = sc.slots[:0]
		for _, n := range allowed {
			if i, ok := vc.extra.slot[n]; ok {
				vc.offer(&h, &vc.extra, int(i), q, role)
			} else if i, ok := vc.base.slot[n]; ok && !vc.isDead(int(i)) && int(vc.base.access[i]) <= role {
				slots = append(slots, i)
			}
		}
		sc.slots = slots
	} else {
		vc.scanRange(&h, &vc.extra, nil, 0, len(vc.extra.rows), q, role)
	}
	cand := slots
	if !narrowed || len(slots) > cands {
		cand = vc.candidates(q, role, slots, narrowed, cands, sc)
	}
	if cap(sc.sims) < len(cand) {
		sc.sims = make([]float32, len(cand))
	}
	sims := sc.sims[:len(cand)]
	vecmath.DotGather(sims, q, vc.base.data, cand)
	for i, s := range cand {
		if sims[i] > 0 {
			h.offer(hit{vc.base.rows[s], sims[i]})
		}
	}
	// h's buffer is new to this search: the pool keeps only sc.
	return h.sorted()
}

// candidates returns the cands readable base slots of highest estimate
// (all of them when fewer are readable): among slots when narrowed, else
// among every live base slot the role may read. Large passes are split
// across the CPUs as the exact scan is.
func (vc *vectorCache) candidates(q []float32, role int, slots []int32, narrowed bool, cands int, sc *approx) []int32 {
	n := len(vc.base.rows)
	if narrowed {
		n = len(slots)
	}
	p := vecmath.QueryPlanes(q)
	span := vecmath.EstimateSpan(vc.dim)
	keys := growInt32(&sc.keys, n)
	parts := 1
	if n >= parallelFrom {
		parts = max(1, min(runtime.GOMAXPROCS(0), n/(parallelFrom/2)))
	}
	for len(sc.hists) < parts {
		sc.hists = append(sc.hists, nil)
	}
	counts := make([]int, parts)
	var wg sync.WaitGroup
	for part := range parts {
		hist := growInt32(&sc.hists[part], 2*span+1)
		clear(hist)
		lo, hi := part*n/parts, (part+1)*n/parts
		run := func() { counts[part] = vc.estimateRange(p, role, slots, narrowed, keys, hist, lo, hi) }
		if part == parts-1 {
			run()
		} else {
			wg.Go(run)
		}
	}
	wg.Wait()
	hist, count := sc.hists[0], counts[0]
	for part := 1; part < parts; part++ {
		for key, c := range sc.hists[part] {
			hist[key] += c
		}
		count += counts[part]
	}
	cut, atCut := vecmath.Cut(hist, min(cands, count))
	out := sc.out[:0]
	for i, key := range keys {
		keep := int(key) > cut
		if int(key) == cut && atCut > 0 {
			keep = true
			atCut--
		}
		if !keep {
			continue
		}
		if narrowed {
			out = append(out, slots[i])
		} else {
			out = append(out, int32(i))
		}
	}
	sc.out = out
	return out
}

// estimateRange sets keys[lo:hi] to the estimates (shifted by the span to
// be ≥ 0) of those slots (slots[i], or slot i when not narrowed), or -1
// for a slot the role may not read or that is dead, and counts the keys
// in hist. It returns how many keys it set.
func (vc *vectorCache) estimateRange(p []uint64, role int, slots []int32, narrowed bool, keys, hist []int32, lo, hi int) int {
	b := &vc.base
	w := vecmath.SignWords(vc.dim)
	span := vecmath.EstimateSpan(vc.dim)
	count := 0
	for i := lo; i < hi; i++ {
		s := i
		if narrowed {
			s = int(slots[i])
		} else if int(b.access[s]) > role || vc.isDead(s) {
			keys[i] = -1
			continue
		}
		key := vecmath.Estimate(p, b.signs[s*w:(s+1)*w:(s+1)*w], int(b.pop[s])) + span
		keys[i] = int32(key)
		hist[key]++
		count++
	}
	return count
}

// growInt32 returns (*buf)[:n], reallocating when it is too short.
func growInt32(buf *[]int32, n int) []int32 {
	if cap(*buf) < n {
		*buf = make([]int32, n)
	}
	return (*buf)[:n]
}
