package bm25

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
)

// Doc is one document for Apply: its row and its columns' text.
type Doc struct {
	Row  int64
	Cols []string
}

// Apply returns an index holding ix's documents less those at the rows
// in remove, plus add (rows ascending; a changed document is in both),
// ranking exactly as one built from the result would: the document
// count, the mean length and each term's document frequency are the
// result's. ix is unchanged and may be searched meanwhile.
//
// The removed documents' postings stay, skipped by search; the added
// ones take positions after every other, and only the terms they hold
// are copied. The cost is a pass over the vocabulary's blocks per call
// (to count which terms a removed document held) and a copy of the
// added terms' postings: for a few changes, not many (Changed says how
// many so far; build again past a bound).
func (ix *Index) Apply(remove []int64, add []Doc) (*Index, error) {
	for i, d := range add {
		if len(d.Cols) != len(ix.weights) {
			return nil, fmt.Errorf("bm25: row %d has %d columns; the index has %d", d.Row, len(d.Cols), len(ix.weights))
		}
		if i > 0 && d.Row <= add[i-1].Row {
			return nil, fmt.Errorf("bm25: row %d added after row %d; rows must ascend", d.Row, add[i-1].Row)
		}
	}
	if len(ix.rows)+len(add) > MaxDocs {
		return nil, fmt.Errorf("bm25: more than %d documents", MaxDocs)
	}
	out := &Index{weights: ix.weights, terms: ix.terms, n: ix.n, nTok: ix.nTok, postings: ix.postings,
		changed: ix.changed + len(add), derived: true}

	// The live documents at the rows removed.
	var gone []uint32 // ascending
	if len(remove) > 0 {
		rm := make(map[int64]bool, len(remove))
		for _, r := range remove {
			rm[r] = true
		}
		for d, r := range ix.rows {
			if rm[r] && !ix.isDead(uint32(d)) {
				gone = append(gone, uint32(d))
			}
		}
	}
	out.changed += len(gone)
	out.dead = slices.Clone(ix.dead)
	if len(gone) > 0 && out.dead == nil {
		out.dead = make([]uint64, (len(ix.rows)+63)/64)
	}
	for _, d := range gone {
		out.dead[d/64] |= 1 << (d % 64)
		out.n--
		out.nTok -= int64(ix.lens[d])
	}

	// The documents added, tokenized as Build does.
	bd := newBuilder(ix.weights)
	for _, d := range add {
		if err := bd.Add(d.Row, d.Cols...); err != nil {
			return nil, err
		}
	}
	base := uint32(len(ix.rows))
	out.rows = append(slices.Clip(ix.rows), bd.rows...)
	out.lens = append(slices.Clip(ix.lens), bd.lens...)
	out.nTok += bd.tokens
	out.n += len(bd.rows)
	if n := len(out.dead); n > 0 && n*64 < len(out.rows) {
		out.dead = append(out.dead, make([]uint64, (len(out.rows)+63)/64-n)...)
	}

	// Every document's length normalizes by the new mean.
	avgdl := float64(out.nTok) / float64(out.n)
	out.norm = make([]float64, len(out.rows))
	for d, l := range out.lens {
		out.norm[d] = k1 * (1 - b + b*float64(l)/avgdl)
	}

	out.df = slices.Clone(ix.df)
	out.post = slices.Clone(ix.post)
	if len(gone) > 0 {
		out.postings -= ix.uncount(gone, out.df)
	}

	// The added documents' postings, after each term's others, in
	// blocks of their own whose bounds are at the new mean.
	cloned := false
	var docs, freqs [blockSize]uint32
	for stemmed, tmp := range bd.terms {
		id, ok := out.terms[stemmed]
		if !ok {
			if !cloned {
				out.terms, cloned = maps.Clone(ix.terms), true
			}
			id = uint32(len(out.post))
			out.terms[stemmed] = id
			out.df = append(out.df, 0)
			out.post = append(out.post, termPost{avg: avgdl})
		}
		src := bd.post[tmp]
		old := out.post[id]
		p := termPost{avg: min(old.avg, avgdl),
			blocks: slices.Grow(slices.Clip(old.blocks), (int(src.df)+blockSize-1)/blockSize),
			data:   slices.Grow(slices.Clip(old.data), len(src.data)+binary.MaxVarintLen32)}
		for _, blk := range src.blocks {
			n := decode(src.data[blk.off:], &docs, &freqs)
			nb := block{first: base + docs[0], last: base + docs[n-1], off: uint32(len(p.data))}
			best, prev := 0.0, uint32(0)
			for j := range n {
				doc := base + docs[j]
				if j == 0 {
					p.data = binary.AppendUvarint(p.data, uint64(doc))
				} else {
					p.data = binary.AppendUvarint(p.data, uint64(doc-prev))
				}
				p.data = binary.AppendUvarint(p.data, uint64(freqs[j]))
				prev = doc
				best = max(best, tfFactor(float64(freqs[j]), out.norm[doc]))
			}
			nb.max = roundUp(best)
			p.blocks = append(p.blocks, nb)
		}
		out.post[id] = p
		out.df[id] += src.df
		out.postings += int64(src.df)
	}
	return out, nil
}

// uncount takes the documents gone (ascending, live in ix) from each
// term's count in df, and returns how many postings they held.
func (ix *Index) uncount(gone []uint32, df []uint32) int64 {
	var docs, freqs [blockSize]uint32
	var removed int64
	for id := range ix.post {
		p := &ix.post[id]
		for bi, blk := range p.blocks {
			// The documents gone within the block's range, if any.
			i, _ := slices.BinarySearch(gone, blk.first)
			if i == len(gone) || gone[i] > blk.last {
				continue
			}
			end := len(p.data)
			if bi+1 < len(p.blocks) {
				end = int(p.blocks[bi+1].off)
			}
			n := decode(p.data[blk.off:end], &docs, &freqs)
			for j := range n {
				for i < len(gone) && gone[i] < docs[j] {
					i++
				}
				if i == len(gone) {
					break
				}
				if gone[i] == docs[j] {
					df[id]--
					removed++
				}
			}
		}
	}
	return removed
}
