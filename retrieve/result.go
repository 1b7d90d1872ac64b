package retrieve

import "github.com/hearth-rpg/hearth/chunk"

// Result is what a search returns.
type Result struct {
	// Passages are the kept passages, best first.
	Passages []Passage
	// Considered is every passage examined, kept or cut, in fused rank
	// order; only filled when the query asked to Explain. Chunks the
	// role may not see are never in it: they are only counted, in
	// Withheld.
	Considered []Passage
	// Tokens is the kept passages' total.
	Tokens int
	// Withheld counts the chunks that matched but were cut because the
	// role may not see them (cut reason CutRole). Only their number is
	// known; nothing of them is read. Only counted with Explain.
	Withheld int
}

// Passage is one chunk in a result.
type Passage struct {
	Chunk chunk.Chunk
	// Score is the fused score the passage ranked by, higher first. In a
	// Ranking given to Fuse or a list given to Fit, it is the caller's
	// own score.
	Score float64
	Trace Trace
}

// Trace explains a passage's place in a result.
type Trace struct {
	// Signals are the rankings the passage appeared in, in SignalKind
	// order.
	Signals []Signal
	// Fused is the reciprocal-rank fusion score of those signals.
	Fused float64
	// Cut says why the passage was left out; empty when it was kept.
	Cut Reason
}

// Signal is a passage's place in one ranking.
type Signal struct {
	Kind SignalKind
	// Rank is the 1-based position in that ranking.
	Rank int
	// Score is the ranking's own score: for full text, BM25 on SQLite
	// (higher better, negated from SQLite's convention) and IDF-weighted
	// ts_rank on PostgreSQL (see retrieve/pgindex); for vectors, cosine
	// similarity; for metadata, the chunk's precedence tier (lower
	// first); for keyword lore, whatever its caller scored.
	Score float64
}

// SignalKind names a ranking.
type SignalKind string

// The rankings a passage can come from, in the order traces list them.
const (
	Metadata SignalKind = "metadata" // filter matches by precedence tier, then file order
	Keyword  SignalKind = "keyword"  // keyword-triggered lore (lorebook entries), scored by the caller
	FullText SignalKind = "fulltext" // BM25 over heading, text and tags
	Vector   SignalKind = "vector"   // cosine similarity of embeddings
)

func (k SignalKind) order() int {
	switch k {
	case Metadata:
		return 0
	case Keyword:
		return 1
	case FullText:
		return 2
	case Vector:
		return 3
	}
	return 4
}

// Reason says why a passage was cut.
type Reason string

// Why a passage was left out of a result.
const (
	Kept         Reason = ""
	CutRole      Reason = "role"      // the reader's role may not see it (counted, never shown)
	CutFilter    Reason = "filter"    // it fails the filter (for callers using Filter.Match; an index excludes these unread)
	CutBudget    Reason = "budget"    // it did not fit in the token budget
	CutDuplicate Reason = "duplicate" // a better-ranked passage has the same text
	CutLimit     Reason = "limit"     // the result already had Limit passages
)
