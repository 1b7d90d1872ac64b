package retrieve

import (
	"iter"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/tokens"
)

// Fit keeps passages, in the order given (best first), while they fit in
// budget tokens; budget <= 0 means no cap. A passage too big for what is
// left is cut and the next is tried, so a long chunk does not shut out a
// shorter one ranked below it. A passage whose text, ignoring case and
// spacing, equals a kept one's is cut as a duplicate.
//
// The returned Result's Considered lists every passage with its cut
// reason. Fit is exported so that passages from elsewhere — keyword lore
// triggered by a lorebook, scored by its caller with a Keyword signal —
// can share one budget with retrieved ones.
func Fit(passages []Passage, budget int) Result {
	return fit(passages, budget, 0)
}

// Fit fits fused passages to the query: at most its Limit passages
// within its Budget, duplicates cut, with Considered kept only when the
// query asks to Explain. A passage cut for the budget does not count
// against the limit.
func (q Query) Fit(passages []Passage) Result {
	r := fit(passages, q.Budget, q.EffectiveLimit())
	if !q.Explain {
		r.Considered = nil
	}
	return r
}

// fit is Fit that also keeps at most limit passages (0 means no limit).
// A passage cut for the budget does not count against the limit.
func fit(passages []Passage, budget, limit int) Result {
	var r Result
	r.Considered = make([]Passage, len(passages))
	copy(r.Considered, passages)
	kept := make(map[uint64][]string, len(passages)) // by normalKey: the kept texts
	for i := range r.Considered {
		p := &r.Considered[i]
		n := passageTokens(p.Chunk)
		key := normalKey(p.Chunk.Text)
		switch {
		case keptText(kept[key], p.Chunk.Text):
			p.Trace.Cut = CutDuplicate
		case limit > 0 && len(r.Passages) >= limit:
			p.Trace.Cut = CutLimit
		case budget > 0 && r.Tokens+n > budget:
			p.Trace.Cut = CutBudget
		default:
			p.Trace.Cut = Kept
			kept[key] = append(kept[key], p.Chunk.Text)
			r.Tokens += n
			r.Passages = append(r.Passages, *p)
		}
	}
	return r
}

// passageTokens is the chunk's token count, counted when the chunk came
// without one.
func passageTokens(c chunk.Chunk) int {
	if c.Tokens > 0 || c.Text == "" {
		return c.Tokens
	}
	if tc, err := tokens.CL100K(); err == nil {
		return tc.Count(c.Text)
	}
	// Without the encoding, over-estimate: cl100k averages about four
	// bytes of English per token.
	return len(c.Text)/3 + 1
}

// normalText is the text two passages must share to be duplicates.
func normalText(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// normalKey hashes normalText(s) (FNV-1a over its runes) without
// building it: Fit compares every candidate's text, dozens of passages
// of a few KB per search.
func normalKey(s string) uint64 {
	h := uint64(14695981039346656037)
	for r := range normalRunes(s) {
		h = (h ^ uint64(r)) * 1099511628211
	}
	return h
}

// keptText reports whether s is a duplicate of one of kept (texts with
// s's normalKey).
func keptText(kept []string, s string) bool {
	for _, k := range kept {
		if sameNormal(k, s) {
			return true
		}
	}
	return false
}

// sameNormal reports normalText(a) == normalText(b).
func sameNormal(a, b string) bool {
	next, stop := iter.Pull(normalRunes(b))
	defer stop()
	for r := range normalRunes(a) {
		if q, ok := next(); !ok || q != r {
			return false
		}
	}
	_, more := next()
	return !more
}

// normalRunes yields normalText(s) rune by rune: lower case, words
// separated by one space, no space at either end.
func normalRunes(s string) iter.Seq[rune] {
	return func(yield func(rune) bool) {
		gap := false
		started := false
		for _, r := range s {
			if unicode.IsSpace(r) {
				gap = started
				continue
			}
			if gap {
				if !yield(' ') {
					return
				}
				gap = false
			}
			started = true
			if !yield(unicode.ToLower(r)) {
				return
			}
		}
	}
}
