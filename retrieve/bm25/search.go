package bm25

import (
	"cmp"
	"math"
	"slices"
)

// Hit is one ranked document.
type Hit struct {
	Row   int64
	Score float64 // FTS5's bm25() negated: higher is better
}

// Search returns the k best documents for terms joined by OR, best
// first, equal scores by ascending row. Each term is one phrase of
// FTS5's BM25 and must be a single token (see Tokens): the caller
// tokenizes. accept, when not nil, is asked about each candidate before
// it is scored, by its position in Rows; documents it rejects are never
// ranked.
func (ix *Index) Search(terms []string, k int, accept func(doc int) bool) []Hit {
	if k <= 0 || ix.n == 0 || len(terms) == 0 {
		return nil
	}
	s := searcher{ix: ix, accept: accept, k: k}
	return s.run(terms)
}

type cursor struct {
	blocks []block
	data   []byte
	idf    float64
	w      float64 // idf × how many times the query holds the term
	tf     float64 // the term-frequency factor in the document being scored
	ub     float64 // w × the term's largest factor, rounded up
	scale  float64 // bounds the blocks' maxima at the index's mean length
	phrase []int   // the query's phrases that are this term
	bi     int     // current block
	dec    int     // block decoded into docs/freqs, or -1
	n, pos int
	docs   [blockSize]uint32
	freqs  [blockSize]uint32
}

const done = math.MaxUint32

// doc returns the current posting's document, done when exhausted.
func (c *cursor) doc() uint32 {
	if c.bi >= len(c.blocks) {
		return done
	}
	if c.dec != c.bi {
		c.load()
	}
	return c.docs[c.pos]
}

func (c *cursor) load() {
	end := len(c.data) // a block may hold fewer than blockSize (Apply)
	if c.bi+1 < len(c.blocks) {
		end = int(c.blocks[c.bi+1].off)
	}
	c.n = decode(c.data[c.blocks[c.bi].off:end], &c.docs, &c.freqs)
	c.dec, c.pos = c.bi, 0
}

func (c *cursor) freq() uint32 { return c.freqs[c.pos] }

// seek moves to the first posting at or after d.
func (c *cursor) seek(d uint32) {
	c.shallow(d)
	if c.bi >= len(c.blocks) {
		return
	}
	if c.dec != c.bi {
		c.load()
	}
	for c.docs[c.pos] < d {
		c.pos++ // the block's last is >= d, so this stops inside it
	}
}

func (c *cursor) next() {
	if c.dec != c.bi {
		c.load()
	}
	c.pos++
	if c.pos >= c.n {
		c.bi++
	}
}

// shallow moves to the block that may hold d, without decoding.
func (c *cursor) shallow(d uint32) {
	for c.bi < len(c.blocks) && c.blocks[c.bi].last < d {
		c.bi++
	}
}

// blockBound is the most this term adds to document d's score, by its
// block; next is the first document after d at which that may change.
func (c *cursor) blockBound(d uint32) (bound float64, next uint32) {
	c.shallow(d)
	if c.bi >= len(c.blocks) {
		return 0, done
	}
	blk := &c.blocks[c.bi]
	if blk.first > d {
		return 0, blk.first
	}
	return c.w * float64(blk.max) * c.scale * (1 + 1e-9), blk.last + 1
}

// getCursor reuses a cursor: each holds two decoded blocks (1 KiB), and
// a scene's search has one for each of its twenty or thirty words.
func (ix *Index) getCursor() *cursor {
	if c, ok := ix.cursors.Get().(*cursor); ok {
		return c
	}
	return new(cursor)
}

type searcher struct {
	ix     *Index
	accept func(int) bool
	k      int
	top    []Hit // a heap, worst at 0
}

// push adds h to the top k, dropping the worst when full.
func (s *searcher) push(h Hit) {
	if len(s.top) < s.k {
		s.top = append(s.top, h)
		for i := len(s.top) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(s.top[i], s.top[p]) {
				break
			}
			s.top[i], s.top[p] = s.top[p], s.top[i]
			i = p
		}
		return
	}
	s.top[0] = h
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s.top) && worse(s.top[l], s.top[m]) {
			m = l
		}
		if r < len(s.top) && worse(s.top[r], s.top[m]) {
			m = r
		}
		if m == i {
			return
		}
		s.top[i], s.top[m] = s.top[m], s.top[i]
		i = m
	}
}

// worse orders hits worst first: lower score, then later row.
func worse(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Row > b.Row
}

func (s *searcher) run(terms []string) []Hit {
	ix := s.ix
	var cs []*cursor
	byTerm := map[uint32]*cursor{}
	phrases := make([]*cursor, len(terms)) // nil: a token no document holds
	for i, t := range terms {
		id, ok := ix.terms[t]
		if !ok {
			continue
		}
		c := byTerm[id]
		if c == nil {
			c = ix.getCursor()
			defer ix.cursors.Put(c)
			p := &ix.post[id]
			*c = cursor{blocks: p.blocks, data: p.data, scale: p.bound(float64(ix.nTok) / float64(ix.n)), dec: -1, phrase: c.phrase[:0]}
			byTerm[id] = c
			cs = append(cs, c)
		}
		c.phrase = append(c.phrase, i)
		phrases[i] = c
	}
	if len(cs) == 0 {
		return nil
	}
	for id, c := range byTerm {
		c.idf = idf(ix.n, int(ix.df[id]))
		c.w = c.idf * float64(len(c.phrase))
		var m float32
		for _, blk := range c.blocks {
			m = max(m, blk.max)
		}
		c.ub = c.w * float64(m) * c.scale * (1 + 1e-9)
	}
	// Ascending bounds: a prefix whose bounds sum to at most the k-th
	// score cannot by itself put a document in the top k.
	slices.SortFunc(cs, func(a, b *cursor) int { return cmp.Compare(a.ub, b.ub) })
	cum := make([]float64, len(cs))
	sum := 0.0
	for i, c := range cs {
		sum += c.ub
		cum[i] = sum
	}
	essential := 0 // cs[essential:] drive the candidates
	theta := -1.0
	for {
		full := len(s.top) == s.k
		if full {
			for essential < len(cs) && cum[essential] <= theta {
				essential++
			}
			if essential == len(cs) {
				break
			}
		}
		// The next candidate: the least document of the essential terms.
		d := uint32(done)
		for _, c := range cs[essential:] {
			d = min(d, c.doc())
		}
		if d == done {
			break
		}
		if ix.isDead(d) || s.accept != nil && !s.accept(int(d)) {
			for _, c := range cs[essential:] {
				if c.doc() == d {
					c.next()
				}
			}
			continue
		}
		if full {
			// Block bounds: when even the blocks' best cannot beat the
			// k-th score, skip to where a block ends.
			bound, next := 0.0, uint32(done)
			for _, c := range cs {
				bb, nx := c.blockBound(d)
				bound += bb
				next = min(next, nx)
			}
			if bound <= theta {
				for _, c := range cs[essential:] {
					c.seek(max(next, d+1))
				}
				continue
			}
		}
		// Score: the essential terms, then the others from the largest
		// bound down while the document can still make the top k.
		partial := 0.0
		norm := ix.norm[d]
		for _, c := range cs[essential:] {
			c.tf = 0
			if c.doc() == d {
				c.tf = tfFactor(float64(c.freq()), norm)
				partial += c.w * c.tf
				c.next()
			}
		}
		pruned := false
		for i := essential - 1; i >= 0; i-- {
			if full && partial+cum[i] < theta*(1-1e-12) {
				pruned = true
				break
			}
			c := cs[i]
			c.tf = 0
			c.seek(d)
			if c.doc() == d {
				c.tf = tfFactor(float64(c.freq()), norm)
				partial += c.w * c.tf
			}
		}
		if pruned || full && partial <= theta*(1-1e-9) {
			continue
		}
		// The exact score, summed as FTS5 sums it: phrase by phrase in
		// query order.
		score := 0.0
		for _, c := range phrases {
			if c != nil {
				score += c.idf * c.tf
			}
		}
		// Equal scores by row: documents added by Apply follow the
		// others whatever their rows.
		if h := (Hit{Row: ix.rows[d], Score: score}); !full || worse(s.top[0], h) {
			s.push(h)
			if len(s.top) == s.k {
				theta = s.top[0].Score
			}
		}
	}
	out := s.top
	slices.SortFunc(out, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Row, b.Row)
	})
	return out
}
