package narrative

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// IndexOptions tunes an Index. The zero value gives the defaults.
type IndexOptions struct {
	// Candidates is how many events, chosen by a binary estimate of
	// their similarity to the query, are re-ranked by exact similarity.
	// 0 is 2048 (recall@10 ≈ 0.95 on 100,000 random 384-dimension
	// vectors, the worst case). More candidates trade speed for recall.
	Candidates int
	// ExactBelow: when fewer events than this pass the filter, they are
	// all scored exactly, which is as fast and loses nothing. 0 is 2048.
	ExactBelow int
}

func (o IndexOptions) withDefaults() IndexOptions {
	if o.Candidates <= 0 {
		o.Candidates = 2048
	}
	if o.ExactBelow <= 0 {
		o.ExactBelow = 2048
	}
	return o
}

// Index holds memory events in memory, arranged for fast Recall: one
// shard per playthrough (recall never crosses playthroughs), posting
// lists and compact columns for the cheap filters, unit vectors for exact
// similarity, and one sign bit per dimension from which a 4-bit query
// estimates every similarity with AND and popcount, to pick the
// candidates that are then scored exactly. Results agree with the
// reference Recall except that, above ExactBelow filtered events, a match
// the estimate ranks outside the candidate set is missed; matches above
// the seed's 0.7 threshold are far above the estimate's noise and are not
// missed in practice (see BenchmarkRecall100k).
//
// An Index is not safe for concurrent use while it is being changed;
// concurrent Recall calls on an unchanging Index are safe.
type Index struct {
	opts    IndexOptions
	shards  map[string]*shard
	scratch sync.Pool // *scratch, so a recall allocates no large buffers
}

// scratch holds one vector recall's working buffers.
type scratch struct {
	keys, hist []int32
	hists      [][]int32 // one histogram per part of a split estimate pass
	count      int       // keys set by the estimate pass
	rows, out  []int32   // filtered rows; candidates
	sims       []float32 // exact scores of the candidates
}

// NewIndex returns an empty index.
func NewIndex(opts IndexOptions) *Index {
	return &Index{opts: opts.withDefaults(), shards: map[string]*shard{}}
}

// Len returns the number of events held for a playthrough.
func (x *Index) Len(playthrough string) int {
	if s := x.shards[playthrough]; s != nil {
		return s.count
	}
	return 0
}

// Add adds an event, which must have a non-zero ID not already held. Its
// embedding, if any, must have the dimension of the playthrough's other
// embeddings.
func (x *Index) Add(e Event) error {
	if err := e.Normalize(); err != nil {
		return err
	}
	if e.ID == 0 {
		return e.fail(fmt.Errorf("an indexed event needs its store ID"))
	}
	s := x.shards[e.Playthrough]
	if s == nil {
		s = newShard()
		x.shards[e.Playthrough] = s
	}
	return s.add(e)
}

// Remove drops the event with this ID, reporting whether it was held.
func (x *Index) Remove(playthrough string, id int64) bool {
	s := x.shards[playthrough]
	return s != nil && s.remove(id)
}

// Recall answers q as the package's Recall does, using sign-bit
// candidates above ExactBelow filtered events.
func (x *Index) Recall(q Query) ([]Match, error) { return x.recall(q, false) }

// RecallExact answers q by scoring every filtered event exactly: the
// reference for measuring the quantised path's recall.
func (x *Index) RecallExact(q Query) ([]Match, error) { return x.recall(q, true) }

func (x *Index) recall(q Query, exact bool) ([]Match, error) {
	if err := q.normalize(); err != nil {
		return nil, err
	}
	s := x.shards[q.Playthrough]
	if s == nil {
		return nil, nil
	}
	f, ok := s.compile(&q.Filter)
	if !ok {
		return nil, nil
	}
	switch q.method() {
	case ByVector:
		if s.dim == 0 {
			return nil, nil
		}
		if len(q.Vector) != s.dim {
			return nil, dimensionError(len(q.Vector), s.dim)
		}
		sc, _ := x.scratch.Get().(*scratch)
		if sc == nil {
			sc = new(scratch)
		}
		defer x.scratch.Put(sc)
		return s.byVector(&q, f, exact, x.opts, sc), nil
	case ByLexical:
		return s.byLexical(&q, f), nil
	}
	return s.byFilter(&q, f), nil
}

// scored is a row and its score during selection.
type scored struct {
	row   int32
	score float64
}

// best keeps the k best rows seen so far, best first, by binary
// insertion: k is small and rows are many.
type best struct {
	s       *shard
	k       int
	compare func(x, y scored) int
	rows    []scored
}

// newBest orders by relevance as compareMatches does.
func newBest(s *shard, k int) *best {
	b := &best{s: s, k: k}
	b.compare = func(x, y scored) int {
		// Scores nearly always differ: only ties read the rows' columns,
		// which for scattered candidates are cache misses.
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		mx, my := &s.meta[x.row], &s.meta[y.row]
		return cmp.Or(
			cmp.Compare(my.sig, mx.sig),
			cmp.Compare(my.at, mx.at),
			cmp.Compare(mx.id, my.id),
		)
	}
	return b
}

// newRecent orders newest first as sortRecent does.
func newRecent(s *shard, k int) *best {
	b := &best{s: s, k: k}
	b.compare = func(x, y scored) int {
		mx, my := &s.meta[x.row], &s.meta[y.row]
		return cmp.Or(cmp.Compare(my.at, mx.at), cmp.Compare(my.id, mx.id))
	}
	return b
}

func (b *best) offer(c scored) {
	if len(b.rows) == b.k && b.compare(c, b.rows[b.k-1]) >= 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(b.rows, c, b.compare)
	b.rows = slices.Insert(b.rows, i, c)
	if len(b.rows) > b.k {
		b.rows = b.rows[:b.k]
	}
}

func (b *best) matches(m Method) []Match {
	out := make([]Match, len(b.rows))
	for i, c := range b.rows {
		out[i] = Match{Event: b.s.events[c.row], Score: c.score, Method: m}
	}
	return out
}

// Reserve makes room for n more events of a playthrough with embeddings
// of dim dimensions (0 if unknown), so loading many events does not copy
// the vectors over and over as they grow.
func (x *Index) Reserve(playthrough string, n, dim int) {
	if n <= 0 || n > 1<<26 || dim < 0 || dim > MaxDimensions {
		return
	}
	s := x.shards[playthrough]
	if s == nil {
		s = newShard()
		x.shards[playthrough] = s
	}
	s.events = slices.Grow(s.events, n)
	s.meta = slices.Grow(s.meta, n)
	s.live = slices.Grow(s.live, n)
	s.chars = slices.Grow(s.chars, n)
	s.tags = slices.Grow(s.tags, n)
	if s.dim == 0 {
		s.dim = dim
		s.vecs = make([]float32, len(s.events)*dim)
		s.bits = make([]uint64, len(s.events)*words(dim))
		s.pop = make([]uint16, len(s.events))
	}
	if s.dim == dim && dim > 0 {
		s.vecs = slices.Grow(s.vecs, n*dim)
		s.bits = slices.Grow(s.bits, n*words(dim))
		s.pop = slices.Grow(s.pop, n)
	}
}
