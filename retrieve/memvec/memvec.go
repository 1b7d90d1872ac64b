package memvec

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/vecmath"
)

// slab holds vectors in one block of memory, so an exact scan walks it in
// order.
type slab struct {
	rows   []int64 // each vector's row number, ascending
	access []int8  // the row's access level, checked on every scan
	data   []float32
	slot   map[int64]int32
	// cols is every vector again, column by column (dimension d of slot
	// r at cols[d*len(rows)+r]), each value scaled by scale to an int8:
	// the approximate search's estimate reads only the columns of the
	// query's largest dimensions. Only the base slab has them (see
	// index); the few vectors in extra are always scored exactly.
	cols  []int8
	scale float32
}

func (s *slab) vec(i, dim int) []float32 {
	return s.data[i*dim : (i+1)*dim : (i+1)*dim]
}

func (s *slab) add(n int64, acc int8, v []float32) {
	if s.slot == nil {
		s.slot = map[int64]int32{}
	}
	s.slot[n] = int32(len(s.rows))
	s.rows = append(s.rows, n)
	s.access = append(s.access, acc)
	s.data = append(s.data, v...)
}

// index builds s.cols from s.data, once every vector has been added.
func (s *slab) index(dim int) {
	var m float32
	for _, x := range s.data {
		m = max(m, x, -x)
	}
	s.scale = 1
	if m > 0 {
		s.scale = 127 / m
	}
	n := len(s.rows)
	s.cols = make([]int8, n*dim)
	for r := range n {
		for d, x := range s.data[r*dim : (r+1)*dim] {
			s.cols[d*n+r] = int8(math.Round(float64(x * s.scale)))
		}
	}
}

// Set is a lore index's vectors at one moment: a base slab loaded in
// full, the base slots changed since (dead), and the vectors stored since
// (extra). It is immutable once built.
type Set struct {
	dim   int
	base  slab
	dead  []uint64 // bit per base slot
	ndead int
	extra slab
}

// Builder loads a Set's base, row by row in ascending row order.
type Builder struct{ s *Set }

// NewBuilder starts a Set of dim-dimensional vectors, with room for
// about count of them.
func NewBuilder(dim, count int) *Builder {
	return &Builder{&Set{dim: dim, base: slab{
		rows:   make([]int64, 0, count),
		access: make([]int8, 0, count),
		data:   make([]float32, 0, count*dim),
		slot:   make(map[int64]int32, count),
	}}}
}

// Add appends row n's vector v at access level acc.
func (b *Builder) Add(n int64, acc int8, v []float32) error {
	if len(v) != b.s.dim {
		return fmt.Errorf("the lore vector of row %d has %d dimensions, want %d", n, len(v), b.s.dim)
	}
	b.s.base.add(n, acc, v)
	return nil
}

// AddEncoded appends row n's vector as embedding.Encode stored it.
func (b *Builder) AddEncoded(n int64, acc int8, blob []byte) error {
	if len(blob) != 4*b.s.dim {
		return fmt.Errorf("the lore vector of row %d is %d bytes, want %d", n, len(blob), 4*b.s.dim)
	}
	s := &b.s.base
	var err error
	if s.data, err = embedding.Decode(s.data, blob); err != nil {
		return fmt.Errorf("load the lore vector of row %d: %w", n, err)
	}
	s.slot[n] = int32(len(s.rows))
	s.rows = append(s.rows, n)
	s.access = append(s.access, acc)
	return nil
}

// Build indexes the vectors added for the estimate and returns the Set;
// the Builder must not be used again.
func (b *Builder) Build() *Set {
	b.s.base.index(b.s.dim)
	s := b.s
	b.s = nil
	return s
}

// Dim is the vectors' dimension.
func (vs *Set) Dim() int { return vs.dim }

// Len is how many vectors the Set holds.
func (vs *Set) Len() int { return len(vs.base.rows) - vs.ndead + len(vs.extra.rows) }

// BaseLen is how many vectors were loaded in full.
func (vs *Set) BaseLen() int { return len(vs.base.rows) }

// Dead is how many base vectors changed since the base was loaded.
func (vs *Set) Dead() int { return vs.ndead }

// Extra is how many vectors were stored since the base was loaded.
func (vs *Set) Extra() int { return len(vs.extra.rows) }

// Changed is Dead plus Extra: what a Set carries since its base was
// loaded.
func (vs *Set) Changed() int { return vs.ndead + len(vs.extra.rows) }

// SharesBase says whether vs and o share the vectors loaded in full.
func (vs *Set) SharesBase(o *Set) bool {
	return len(vs.base.data) > 0 && len(o.base.data) > 0 && &vs.base.data[0] == &o.base.data[0]
}

// Estimated says whether the base has its int8 columns.
func (vs *Set) Estimated() bool {
	return len(vs.base.data) > 0 && len(vs.base.cols) == len(vs.base.data)
}

func (vs *Set) isDead(i int) bool {
	return vs.dead != nil && vs.dead[i/64]&(1<<(i%64)) != 0
}

// Live lists the readable vectors as (row, access, vector): base first,
// then extra.
func (vs *Set) Live() (rows []int64, acc []int8, vecs [][]float32) {
	for i, n := range vs.base.rows {
		if !vs.isDead(i) {
			rows, acc, vecs = append(rows, n), append(acc, vs.base.access[i]), append(vecs, vs.base.vec(i, vs.dim))
		}
	}
	for i, n := range vs.extra.rows {
		rows, acc, vecs = append(rows, n), append(acc, vs.extra.access[i]), append(vecs, vs.extra.vec(i, vs.dim))
	}
	return rows, acc, vecs
}

// Change is a row's state after a write: its access level and vector, or
// a nil Vec when it has none any more.
type Change struct {
	Access int8
	Vec    []float32
}

// Apply returns vs with the changed rows: each one's slot in vs goes
// dead, and its vector, if it still has one, joins the extra slab. vs is
// unchanged. A vector of another dimension counts as none.
func (vs *Set) Apply(changes map[int64]Change) *Set {
	out := &Set{dim: vs.dim, base: vs.base, ndead: vs.ndead}
	out.dead = slices.Clone(vs.dead)
	for n := range changes {
		i, ok := vs.base.slot[n]
		if !ok || vs.isDead(int(i)) {
			continue
		}
		if out.dead == nil {
			out.dead = make([]uint64, (len(vs.base.rows)+63)/64)
		}
		out.dead[i/64] |= 1 << (i % 64)
		out.ndead++
	}
	for i, n := range vs.extra.rows {
		if _, ok := changes[n]; !ok {
			out.extra.add(n, vs.extra.access[i], vs.extra.vec(i, vs.dim))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(changes)) {
		if c := changes[n]; c.Vec != nil && len(c.Vec) == vs.dim {
			out.extra.add(n, c.Access, c.Vec)
		}
	}
	return out
}

// Hit is a row and its similarity to the query.
type Hit struct {
	Row   int64
	Score float32
}

// better orders hits best first, ties by row, so the top k are the same
// however the scan was split.
func better(a, b Hit) int {
	return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Row, b.Row))
}

// parallelFrom is the number of vectors above which a scan is split
// across the CPUs; below it, starting goroutines costs more than it saves.
const parallelFrom = 16384

// Scan returns the k vectors most similar to q among those the role may
// read, best first (ties by row): every stored vector when allowed is
// nil, else only the rows in allowed (which the caller selected with the
// role already applied). Vectors at a right angle to q or further
// (similarity ≤ 0) share nothing with it and are left out.
func (vs *Set) Scan(q []float32, role, k int, allowed []int64) []Hit {
	if k <= 0 || len(q) != vs.dim {
		return nil
	}
	if allowed != nil {
		h := topK{k: k}
		for _, n := range allowed {
			if i, ok := vs.extra.slot[n]; ok {
				vs.offer(&h, &vs.extra, int(i), q, role)
			} else if i, ok := vs.base.slot[n]; ok && !vs.isDead(int(i)) {
				vs.offer(&h, &vs.base, int(i), q, role)
			}
		}
		return h.sorted()
	}
	n := len(vs.base.rows)
	parts := 1
	if n >= parallelFrom {
		parts = min(runtime.GOMAXPROCS(0), n/(parallelFrom/2))
	}
	heaps := make([]topK, parts+1)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		heaps[p].k = k
		wg.Go(func() { vs.scanRange(&heaps[p], &vs.base, vs.dead, lo, hi, q, role) })
	}
	heaps[parts].k = k
	vs.scanRange(&heaps[parts], &vs.extra, nil, 0, len(vs.extra.rows), q, role)
	wg.Wait()
	var all []Hit
	for _, h := range heaps {
		all = append(all, h.hits...)
	}
	slices.SortFunc(all, better)
	return all[:min(k, len(all))]
}

// scanBlock is how many slots scanRange scores at a time: their scores
// fit in a small buffer on the stack.
const scanBlock = 64

// scanRange offers slots lo to hi of s, skipping those marked in dead.
// It is the hot loop of every exact vector search: it scores the slots a
// block at a time with vecmath.DotRows (eight rows at once, the same bits
// as embedding.Dot row by row), then offers those the role may read. A
// block with no readable slot is not scored.
func (vs *Set) scanRange(h *topK, s *slab, dead []uint64, lo, hi int, q []float32, role int) {
	dim, acc, rows := vs.dim, s.access, s.rows
	var sims [scanBlock]float32
	for b := lo; b < hi; b += scanBlock {
		e := min(b+scanBlock, hi)
		readable := false
		for i := b; i < e && !readable; i++ {
			readable = int(acc[i]) <= role && (dead == nil || dead[uint(i)/64]&(1<<(uint(i)%64)) == 0)
		}
		if !readable {
			continue
		}
		vecmath.DotRows(sims[:e-b], q, s.data[b*dim:e*dim])
		for i := b; i < e; i++ {
			if int(acc[i]) > role || dead != nil && dead[uint(i)/64]&(1<<(uint(i)%64)) != 0 {
				continue
			}
			if sim := sims[i-b]; sim > 0 {
				h.offer(Hit{rows[i], sim})
			}
		}
	}
}

// offer scores slot i of s against q when the role may read it.
func (vs *Set) offer(h *topK, s *slab, i int, q []float32, role int) {
	if int(s.access[i]) <= role {
		if sim := embedding.Dot(q, s.vec(i, vs.dim)); sim > 0 {
			h.offer(Hit{s.rows[i], sim})
		}
	}
}

// topK keeps the k best hits seen, in a heap with the worst at the root.
type topK struct {
	k    int
	hits []Hit
}

func (h *topK) offer(x Hit) {
	if len(h.hits) < h.k {
		h.hits = append(h.hits, x)
		for i := len(h.hits) - 1; i > 0; {
			p := (i - 1) / 2
			if better(h.hits[i], h.hits[p]) <= 0 {
				break
			}
			h.hits[i], h.hits[p] = h.hits[p], h.hits[i]
			i = p
		}
		return
	}
	if better(x, h.hits[0]) >= 0 {
		return
	}
	h.hits[0] = x
	for i := 0; ; {
		l, r, worst := 2*i+1, 2*i+2, i
		if l < len(h.hits) && better(h.hits[l], h.hits[worst]) > 0 {
			worst = l
		}
		if r < len(h.hits) && better(h.hits[r], h.hits[worst]) > 0 {
			worst = r
		}
		if worst == i {
			return
		}
		h.hits[i], h.hits[worst] = h.hits[worst], h.hits[i]
		i = worst
	}
}

func (h *topK) sorted() []Hit {
	slices.SortFunc(h.hits, better)
	return h.hits
}
