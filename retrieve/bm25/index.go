package bm25

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
)

// FTS5's BM25 parameters (fts5_aux.c).
const (
	k1 = 1.2
	b  = 0.75
)

// blockSize is how many postings share one block and its bound.
const blockSize = 128

// Limits, so a corrupt or hostile input cannot exhaust memory silently.
const (
	MaxDocs    = 1 << 31 // documents in one index
	MaxColumns = 16
	maxFreq    = 1 << 30 // weighted frequency of a term in one document
)

// Builder collects documents in ascending row order and builds an
// Index. It is not safe for concurrent use.
type Builder struct {
	weights  []int
	terms    map[string]uint32 // stemmed token -> term
	folded   map[string]uint32 // unstemmed token -> term: stemming once per spelling
	post     []*building
	rows     []int64
	lens     []uint32
	tokens   int64
	scratch  map[uint32]int // term -> weighted frequency, reused per document
	postings int64
	order    []uint32
}

type building struct {
	data   []byte
	blocks []block
	df     uint32
	last   uint32 // last document added
	inBlk  int
}

// block is one run of up to blockSize postings.
type block struct {
	first, last uint32  // documents
	off         uint32  // start in the term's data
	max         float32 // largest term-frequency factor in the block, rounded up
}

// NewBuilder starts an index whose documents have len(weights)
// columns, each weighted as FTS5's bm25() arguments weight them. The
// weights must be whole numbers (weighted frequencies are kept as
// integers, which keeps scores exact).
func NewBuilder(weights ...float64) (*Builder, error) {
	if len(weights) == 0 || len(weights) > MaxColumns {
		return nil, fmt.Errorf("bm25: %d column weights; give 1 to %d", len(weights), MaxColumns)
	}
	w := make([]int, len(weights))
	for i, x := range weights {
		if x < 0 || x != math.Trunc(x) || x > 1000 {
			return nil, fmt.Errorf("bm25: column %d's weight %v is not a whole number from 0 to 1000", i, x)
		}
		w[i] = int(x)
	}
	return newBuilder(w), nil
}

func newBuilder(w []int) *Builder {
	return &Builder{weights: w, terms: map[string]uint32{}, folded: map[string]uint32{}, scratch: map[uint32]int{}}
}

// Add indexes one document: row is its key (ascending across calls),
// cols its columns' text.
func (bd *Builder) Add(row int64, cols ...string) error {
	if len(cols) != len(bd.weights) {
		return fmt.Errorf("bm25: row %d has %d columns; the index has %d", row, len(cols), len(bd.weights))
	}
	if n := len(bd.rows); n > 0 && row <= bd.rows[n-1] {
		return fmt.Errorf("bm25: row %d added after row %d; rows must ascend", row, bd.rows[n-1])
	}
	if len(bd.rows) >= MaxDocs {
		return fmt.Errorf("bm25: more than %d documents", MaxDocs)
	}
	doc := uint32(len(bd.rows))
	clear(bd.scratch)
	bd.order = bd.order[:0]
	var length uint32
	for c, text := range cols {
		w := bd.weights[c]
		fold(text, func(tok []byte) {
			length++
			id, ok := bd.folded[string(tok)]
			if !ok {
				spelling := string(tok)
				st := stem(tok)
				if id, ok = bd.terms[string(st)]; !ok {
					id = uint32(len(bd.post))
					bd.terms[string(st)] = id
					bd.post = append(bd.post, &building{})
				}
				bd.folded[spelling] = id
			}
			f, seen := bd.scratch[id]
			if !seen {
				bd.order = append(bd.order, id)
			}
			if f < maxFreq {
				bd.scratch[id] = f + w
			}
		})
	}
	for _, id := range bd.order {
		bd.post[id].add(doc, uint32(bd.scratch[id]))
	}
	bd.postings += int64(len(bd.order))
	bd.rows = append(bd.rows, row)
	bd.lens = append(bd.lens, length)
	bd.tokens += int64(length)
	return nil
}

func (p *building) add(doc, freq uint32) {
	if p.df == 0 || p.inBlk == blockSize {
		p.blocks = append(p.blocks, block{first: doc, off: uint32(len(p.data))})
		p.inBlk = 0
		p.data = binary.AppendUvarint(p.data, uint64(doc))
	} else {
		p.data = binary.AppendUvarint(p.data, uint64(doc-p.last))
	}
	p.data = binary.AppendUvarint(p.data, uint64(freq))
	p.blocks[len(p.blocks)-1].last = doc
	p.last = doc
	p.df++
	p.inBlk++
}

// Postings is the number of (term, document) pairs added so far.
func (bd *Builder) Postings() int64 { return bd.postings }

// Index is a built, immutable BM25 index.
type Index struct {
	weights  []int
	terms    map[string]uint32
	df       []uint32 // live documents holding the term
	post     []termPost
	rows     []int64
	norm     []float64 // k1 × (1 − b + b × length / avgdl), per document
	lens     []uint32  // tokens per document
	nTok     int64     // tokens of the live documents
	n        int       // live documents
	postings int64     // live (term, document) pairs

	// Set by Apply: documents removed since the build (their postings
	// stay, skipped by search) and how many changed since it.
	dead    []uint64 // bit per document; nil when none
	changed int
	derived bool // rows may not ascend

	cursors sync.Pool // of *cursor, reused across searches
}

// termPost is one term's postings: blocks whose offsets are into data.
type termPost struct {
	blocks []block
	data   []byte
	// avg is the least mean document length any block's bound was
	// computed at: with a larger mean now, lengths normalize smaller and
	// factors grow by at most the ratio (bound).
	avg float64
}

// bound is what p's block maxima are multiplied by to bound factors at
// mean length avgdl.
func (p *termPost) bound(avgdl float64) float64 {
	if avgdl > p.avg {
		return avgdl / p.avg
	}
	return 1
}

// Build finishes the index. The Builder must not be used after.
func (bd *Builder) Build() *Index {
	ix := &Index{weights: bd.weights, terms: bd.terms, rows: bd.rows, lens: bd.lens, n: len(bd.rows), nTok: bd.tokens}
	ix.df = make([]uint32, len(bd.post))
	ix.post = make([]termPost, len(bd.post))
	var nb, nd int
	for _, p := range bd.post {
		nb += len(p.blocks)
		nd += len(p.data)
	}
	// One array of blocks and one of postings, each term a slice of them.
	blocks := make([]block, 0, nb)
	data := make([]byte, 0, nd)
	ix.norm = make([]float64, ix.n)
	avgdl := float64(ix.nTok) / float64(ix.n)
	for d, l := range bd.lens {
		ix.norm[d] = k1 * (1 - b + b*float64(l)/avgdl)
	}
	var docs, freqs [blockSize]uint32
	for i, p := range bd.post {
		ix.df[i] = p.df
		ix.postings += int64(p.df)
		b0, d0 := len(blocks), len(data)
		data = append(data, p.data...)
		for _, blk := range p.blocks {
			n := decode(p.data[blk.off:], &docs, &freqs)
			best := 0.0
			for j := range n {
				best = max(best, tfFactor(float64(freqs[j]), ix.norm[docs[j]]))
			}
			blk.max = roundUp(best)
			blocks = append(blocks, blk)
		}
		ix.post[i] = termPost{blocks: blocks[b0:len(blocks):len(blocks)], data: data[d0:len(data):len(data)], avg: avgdl}
		bd.post[i] = nil
	}
	bd.post, bd.folded = nil, nil
	return ix
}

// decode reads one block's postings; the first document is stored
// whole and the rest as gaps.
func decode(data []byte, docs, freqs *[blockSize]uint32) int {
	var doc uint32
	i := 0
	for n := 0; n < blockSize; n++ {
		if i >= len(data) {
			return n
		}
		v, k := binary.Uvarint(data[i:])
		i += k
		if n == 0 {
			doc = uint32(v)
		} else {
			doc += uint32(v)
		}
		f, k2 := binary.Uvarint(data[i:])
		i += k2
		docs[n], freqs[n] = doc, uint32(f)
	}
	return blockSize
}

// tfFactor is BM25's term-frequency factor as FTS5 computes it.
func tfFactor(f, norm float64) float64 {
	return (f * (k1 + 1.0)) / (f + norm)
}

// roundUp returns x as a float32 no smaller than x.
func roundUp(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// idf is FTS5's inverse document frequency, floored at 1e-6.
func idf(n, df int) float64 {
	v := math.Log((float64(n) - float64(df) + 0.5) / (float64(df) + 0.5))
	if v <= 0 {
		return 1e-6
	}
	return v
}

// Docs is the number of documents indexed.
func (ix *Index) Docs() int { return ix.n }

// Tokens is the number of tokens indexed, over every column.
func (ix *Index) Tokens() int64 { return ix.nTok }

// Postings is the number of (term, document) pairs.
func (ix *Index) Postings() int64 { return ix.postings }

// Terms is the number of distinct tokens.
func (ix *Index) Terms() int { return len(ix.df) }

// DocFreq is the number of documents holding token t.
func (ix *Index) DocFreq(t string) int {
	id, ok := ix.terms[t]
	if !ok {
		return 0
	}
	return int(ix.df[id])
}

// Length returns the number of tokens in the document at row, and
// whether it is indexed.
func (ix *Index) Length(row int64) (int, bool) {
	if !ix.derived {
		d, ok := slices.BinarySearch(ix.rows, row)
		if !ok {
			return 0, false
		}
		return int(ix.lens[d]), true
	}
	for d := len(ix.rows) - 1; d >= 0; d-- {
		if ix.rows[d] == row && !ix.isDead(uint32(d)) {
			return int(ix.lens[d]), true
		}
	}
	return 0, false
}

// Rows returns each document's row, by its position (the doc a search's
// accept is asked about); the slice is the index's own. They ascend in a
// built index; in one from Apply, the documents added follow the others
// and the rows of removed ones remain (never a search's candidates).
func (ix *Index) Rows() []int64 { return ix.rows }

// Changed is how many documents were removed and added by Apply since
// the index was built.
func (ix *Index) Changed() int { return ix.changed }

func (ix *Index) isDead(d uint32) bool {
	return ix.dead != nil && ix.dead[d/64]&(1<<(d%64)) != 0
}

// Bytes estimates the index's memory: postings, blocks, per-document
// arrays and the vocabulary.
func (ix *Index) Bytes() int64 {
	n := int64(len(ix.df))*(4+56) + int64(len(ix.rows))*(8+8+4) + int64(len(ix.dead))*8
	for _, p := range ix.post {
		n += int64(len(p.data)) + int64(len(p.blocks))*16
	}
	for t := range ix.terms {
		n += int64(len(t)) + 16 + 4 + 8 // string header and bytes, id, map slot
	}
	return n
}
