package retrieve

import (
	"cmp"
	"slices"
)

// RRFK is the constant of reciprocal-rank fusion: a passage at rank r in
// a ranking scores 1/(RRFK+r). 60 is the value of Cormack et al., which
// keeps one list's top result from drowning out agreement between lists.
const RRFK = 60

// Ranking is one ranked list, best first, from one signal. Each
// passage's Score is the ranking's own score.
type Ranking struct {
	Kind     SignalKind
	Passages []Passage
}

// Fuse merges rankings by reciprocal-rank fusion: a passage's score is
// the sum of 1/(RRFK+rank) over the rankings it is in. The result is
// ordered by that score, ties broken by chunk ID, and each passage's
// Trace lists its signals. The order of the rankings does not change the
// result. A chunk listed twice in one ranking counts at its best rank.
func Fuse(rankings ...Ranking) []Passage {
	byID := map[string]int{}
	var out []Passage
	for _, r := range rankings {
		seen := map[string]bool{}
		for i, p := range r.Passages {
			id := p.Chunk.ID
			if seen[id] {
				continue
			}
			seen[id] = true
			s := Signal{Kind: r.Kind, Rank: i + 1, Score: p.Score}
			j, ok := byID[id]
			if !ok {
				j = len(out)
				byID[id] = j
				out = append(out, Passage{Chunk: p.Chunk})
			}
			out[j].Trace.Signals = append(out[j].Trace.Signals, s)
		}
	}
	for i := range out {
		t := &out[i].Trace
		// Summing in a fixed order keeps the float result, and so the
		// ties, independent of the order the rankings came in.
		slices.SortStableFunc(t.Signals, func(a, b Signal) int {
			return cmp.Or(cmp.Compare(a.Kind.order(), b.Kind.order()), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Rank, b.Rank))
		})
		for _, s := range t.Signals {
			t.Fused += 1 / float64(RRFK+s.Rank)
		}
		out[i].Score = t.Fused
	}
	slices.SortFunc(out, byScore)
	return out
}

// byScore orders passages best first, ties by chunk ID.
func byScore(a, b Passage) int {
	return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Chunk.ID, b.Chunk.ID))
}
