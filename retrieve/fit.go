package retrieve

import (
	"strings"
	"unicode"
	"unicode/utf8"

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
	// Kept texts by normalKey; texts whose keys collide with a kept one's
	// (not expected) go to more.
	kept := make(map[uint64]string, len(passages))
	var more map[uint64][]string
	for i := range r.Considered {
		p := &r.Considered[i]
		n := passageTokens(p.Chunk)
		key := normalKey(p.Chunk.Text)
		switch {
		case isKept(kept, more, key, p.Chunk.Text):
			p.Trace.Cut = CutDuplicate
		case limit > 0 && len(r.Passages) >= limit:
			p.Trace.Cut = CutLimit
		case budget > 0 && r.Tokens+n > budget:
			p.Trace.Cut = CutBudget
		default:
			p.Trace.Cut = Kept
			if _, taken := kept[key]; !taken {
				kept[key] = p.Chunk.Text
			} else {
				if more == nil {
					more = map[uint64][]string{}
				}
				more[key] = append(more[key], p.Chunk.Text)
			}
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
	// normalReader's loop, written out: hashing every candidate's text
	// is the common case and must not allocate.
	h := uint64(14695981039346656037)
	gap, started := false, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			gap = started
			continue
		}
		if gap {
			h = (h ^ uint64(' ')) * 1099511628211
			gap = false
		}
		started = true
		h = (h ^ uint64(unicode.ToLower(r))) * 1099511628211
	}
	return h
}

// isKept reports whether s, whose normalKey is key, is a duplicate of a
// kept text.
func isKept(kept map[uint64]string, more map[uint64][]string, key uint64, s string) bool {
	k, ok := kept[key]
	if !ok {
		return false
	}
	if sameNormal(k, s) {
		return true
	}
	for _, k := range more[key] {
		if sameNormal(k, s) {
			return true
		}
	}
	return false
}

// sameNormal reports normalText(a) == normalText(b), without building
// either.
func sameNormal(a, b string) bool {
	var x, y normalReader
	x.s, y.s = a, b
	for {
		r, ok := x.next()
		q, ok2 := y.next()
		if ok != ok2 || r != q {
			return false
		}
		if !ok {
			return true
		}
	}
}

// normalReader reads normalText(s) a rune at a time.
type normalReader struct {
	s            string
	i            int
	gap, started bool
	pending      rune // a rune read after a gap, owed after the space
	hasPending   bool
}

func (n *normalReader) next() (rune, bool) {
	if n.hasPending {
		n.hasPending = false
		return n.pending, true
	}
	for n.i < len(n.s) {
		r, size := utf8.DecodeRuneInString(n.s[n.i:])
		n.i += size
		if unicode.IsSpace(r) {
			n.gap = n.started
			continue
		}
		n.started = true
		if n.gap {
			n.gap = false
			n.pending, n.hasPending = unicode.ToLower(r), true
			return ' ', true
		}
		return unicode.ToLower(r), true
	}
	return 0, false
}
