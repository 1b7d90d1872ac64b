package memvec

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/hearth-rpg/hearth/internal/vecmath"
)

// DefaultCandidates is how many rows a lore index's vector search
// re-ranks by exact similarity after picking them by an estimate, unless
// configured otherwise. On the 100,000-chunk benchmark corpus
// (sqliteindex's BenchmarkVectorRecall) 128 candidates keep recall@10 at 0.984
// to 0.991 and 256 at 0.996 to 0.998: 256 leaves a margin above 0.98 for
// other corpora for a few hundred exact dot products more.
const DefaultCandidates = 256

// The estimate reads the columns of the query's largest dimensions,
// enough to hold estimateMass of its squared length (estimateMinDims at
// least). A query that needs more than estimateMaxDims of them is spread
// too evenly for a few columns to rank rows well, and is scored exactly.
// At 0.8, every benchmark query is estimated; at 0.95 recall is no
// better, searches are slower and one query in 160 needs the exact scan.
const (
	estimateMass    = 0.8
	estimateMinDims = 16
	estimateMaxDims = 64
)

// approx holds one approximate search's working buffers, kept in a pool
// so a search allocates no large ones.
type approx struct {
	order []int   // dimensions by weight, largest first
	slots []int32 // the base slots a filter narrowed the search to
	heaps []candHeap
	out   []int32 // the candidates
	sims  []float32
}

// Search returns what Scan does, the k best vectors the role may read
// (among allowed when it is not nil), but with cands > 0 it scores
// exactly only the cands base slots of highest estimate. The estimate is
// the dot product over the query's largest dimensions only, from the
// int8 columns: for the short, sparse queries of the hashing embedder it
// is nearly the whole score. A row outside the candidates is missed even
// if it is among the k best: that is the approximation, measured in
// sqliteindex's BenchmarkVectorRecall. Only rows the role may read (and, with allowed,
// only those rows) are ever candidates, so the top k are the top k after
// filtering. The vectors stored since the base was loaded (extra) are
// always scored exactly. It is exact with cands ≤ 0, with no more
// readable rows than cands, and for a query spread over too many
// dimensions.
func (vs *Set) Search(q []float32, role, k int, allowed []int64, cands int, pool *sync.Pool) []Hit {
	if cands <= 0 || len(vs.base.cols) != len(vs.base.data) {
		return vs.Scan(q, role, k, allowed)
	}
	if k <= 0 || len(q) != vs.dim {
		return nil
	}
	sc, _ := pool.Get().(*approx)
	if sc == nil {
		sc = new(approx)
	}
	defer pool.Put(sc)
	dims, ws := estimateDims(q, sc)
	if dims == nil {
		return vs.Scan(q, role, k, allowed)
	}
	h := topK{k: k}
	var slots []int32
	narrowed := allowed != nil
	if narrowed {
		slots = sc.slots[:0]
		for _, n := range allowed {
			if i, ok := vs.extra.slot[n]; ok {
				vs.offer(&h, &vs.extra, int(i), q, role)
			} else if i, ok := vs.base.slot[n]; ok && !vs.isDead(int(i)) && int(vs.base.access[i]) <= role {
				slots = append(slots, i)
			}
		}
		sc.slots = slots
	} else {
		vs.scanRange(&h, &vs.extra, nil, 0, len(vs.extra.rows), q, role)
	}
	cand := slots
	if !narrowed || len(slots) > cands {
		cand = vs.candidates(dims, ws, role, slots, narrowed, cands, sc)
	}
	if cap(sc.sims) < len(cand) {
		sc.sims = make([]float32, len(cand))
	}
	sims := sc.sims[:len(cand)]
	vecmath.DotGather(sims, q, vs.base.data, cand)
	for i, s := range cand {
		if sims[i] > 0 {
			h.offer(Hit{vs.base.rows[s], sims[i]})
		}
	}
	// h's buffer is new to this search: the pool keeps only sc.
	return h.sorted()
}

// estimateDims picks the query dimensions the estimate reads, largest
// first, and their weights as integers (the largest is 32767, so 64 of
// them times an int8 fit an int32). It returns nil when the query needs
// more than estimateMaxDims to reach estimateMass.
func estimateDims(q []float32, sc *approx) ([]int, []int32) {
	order := sc.order[:0]
	var total float64
	for d, x := range q {
		if x != 0 {
			order = append(order, d)
			total += float64(x) * float64(x)
		}
	}
	sc.order = order
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(math.Abs(float64(q[b])), math.Abs(float64(q[a]))), cmp.Compare(a, b))
	})
	m, mass := 0, 0.0
	for m < len(order) && (m < estimateMinDims || mass < estimateMass*total) {
		x := float64(q[order[m]])
		mass += x * x
		m++
	}
	if m == 0 || m > estimateMaxDims {
		return nil, nil
	}
	dims := order[:m]
	top := math.Abs(float64(q[dims[0]]))
	ws := make([]int32, m)
	for j, d := range dims {
		ws[j] = int32(math.Round(float64(q[d]) / top * 32767))
	}
	return dims, ws
}

// estimateBlock is how many slots an estimate pass sums at a time: their
// sums fit in a small buffer on the stack.
const estimateBlock = 512

// candidates returns the cands readable base slots of highest estimate
// (all of them when fewer are readable), ties to the lower slot: among
// slots when narrowed, else among every live base slot the role may
// read. Large passes are split across the CPUs as the exact scan is.
func (vs *Set) candidates(dims []int, ws []int32, role int, slots []int32, narrowed bool, cands int, sc *approx) []int32 {
	n := len(vs.base.rows)
	if narrowed {
		n = len(slots)
	}
	parts := 1
	if n >= parallelFrom {
		parts = max(1, min(runtime.GOMAXPROCS(0), n/(parallelFrom/2)))
	}
	for len(sc.heaps) < parts {
		sc.heaps = append(sc.heaps, candHeap{})
	}
	var wg sync.WaitGroup
	for part := range parts {
		h := &sc.heaps[part]
		h.c, h.h = cands, h.h[:0]
		lo, hi := part*n/parts, (part+1)*n/parts
		run := func() {
			if narrowed {
				vs.estimateSlots(dims, ws, slots[lo:hi], h)
			} else {
				vs.estimateRange(dims, ws, role, lo, hi, h)
			}
		}
		if part == parts-1 {
			run()
		} else {
			wg.Go(run)
		}
	}
	wg.Wait()
	h := &sc.heaps[0]
	for part := 1; part < parts; part++ {
		for _, c := range sc.heaps[part].h {
			h.offer(c)
		}
	}
	out := sc.out[:0]
	for _, c := range h.h {
		out = append(out, c.slot)
	}
	slices.Sort(out) // in slot order, the exact scores read memory in order
	sc.out = out
	return out
}

// estimateRange offers base slots lo to hi that the role may read and
// that are live to h, by their estimate, summing a block of slots one
// column at a time.
func (vs *Set) estimateRange(dims []int, ws []int32, role, lo, hi int, h *candHeap) {
	b := &vs.base
	n := len(b.rows)
	var sums [estimateBlock]int32
	for start := lo; start < hi; start += estimateBlock {
		end := min(start+estimateBlock, hi)
		acc := sums[:end-start]
		clear(acc)
		for j, d := range dims {
			w := ws[j]
			col := b.cols[d*n+start : d*n+end]
			acc := acc[:len(col)]
			for i, x := range col {
				acc[i] += w * int32(x)
			}
		}
		for i, key := range acc {
			s := start + i
			if int(b.access[s]) > role || vs.isDead(s) {
				continue
			}
			h.offer(cand{key, int32(s)})
		}
	}
}

// estimateSlots offers the given base slots to h by their estimate.
func (vs *Set) estimateSlots(dims []int, ws []int32, slots []int32, h *candHeap) {
	b := &vs.base
	n := len(b.rows)
	for _, s := range slots {
		var key int32
		for j, d := range dims {
			key += ws[j] * int32(b.cols[d*n+int(s)])
		}
		h.offer(cand{key, s})
	}
}

// cand is a base slot and its estimate.
type cand struct {
	key  int32
	slot int32
}

// worse orders candidates: the lower estimate, or on a tie the higher
// slot, so the choice does not depend on how the pass was split.
func worse(a, b cand) bool { return a.key < b.key || a.key == b.key && a.slot > b.slot }

// candHeap keeps the c best candidates offered, the worst at the root.
type candHeap struct {
	c int
	h []cand
}

func (h *candHeap) offer(x cand) {
	if len(h.h) < h.c {
		h.h = append(h.h, x)
		for i := len(h.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(h.h[i], h.h[p]) {
				break
			}
			h.h[i], h.h[p] = h.h[p], h.h[i]
			i = p
		}
		return
	}
	if len(h.h) == 0 || !worse(h.h[0], x) {
		return
	}
	h.h[0] = x
	for i := 0; ; {
		l, r, least := 2*i+1, 2*i+2, i
		if l < len(h.h) && worse(h.h[l], h.h[least]) {
			least = l
		}
		if r < len(h.h) && worse(h.h[r], h.h[least]) {
			least = r
		}
		if least == i {
			return
		}
		h.h[i], h.h[least] = h.h[least], h.h[i]
		i = least
	}
}

// Estimates says whether Search would estimate q (rather than scan
// exactly): for reporting how many queries a benchmark estimated.
func Estimates(q []float32) bool {
	dims, _ := estimateDims(q, new(approx))
	return dims != nil
}
