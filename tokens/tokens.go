package tokens

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// pattern splits text into the pieces cl100k_base encodes one by one
// (tiktoken's pattern for it; regexp2, since it needs a lookahead).
const pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// Counter counts cl100k tokens. It is safe for concurrent use.
type Counter struct {
	v  *vocab
	re *regexp2.Regexp
}

var shared = sync.OnceValues(func() (*Counter, error) {
	v, err := decodeRanks(cl100kRanks)
	if err != nil {
		return nil, fmt.Errorf("load the cl100k token encoding: %w", err)
	}
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("load the cl100k token encoding: %w", err)
	}
	return &Counter{v: v, re: re}, nil
})

// CL100K returns the cl100k counter, loading the encoding on first use
// (about 20 ms of CPU); later calls return the same counter.
func CL100K() (*Counter, error) { return shared() }

// Count returns the number of tokens in s.
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	n := 0
	c.encode(s, func(int) bool { n++; return true })
	return n
}

// Truncate returns the longest prefix of s that fits in max tokens, cut at a
// token boundary, and its token count.
func (c *Counter) Truncate(s string, max int) (string, int) {
	if max <= 0 {
		return "", 0
	}
	var toks []int
	c.encode(s, func(r int) bool {
		toks = append(toks, r)
		return len(toks) <= max
	})
	if len(toks) <= max {
		return s, len(toks)
	}
	var out []byte
	for _, r := range toks[:max] {
		out = append(out, c.v.token(r)...)
	}
	return string(out), max
}

// encode gives emit the ranks of s's tokens in order until emit returns
// false. It encodes as tiktoken-go's EncodeOrdinary does, to the token:
// s is read as runes (invalid UTF-8 is U+FFFD), split by pattern, and each
// piece that is not a token itself is merged pair by pair, lowest rank
// first.
func (c *Counter) encode(s string, emit func(rank int) bool) {
	runes := []rune(s)
	var piece []byte
	m, _ := c.re.FindRunesMatch(runes)
	for m != nil {
		piece = piece[:0]
		for _, r := range runes[m.Index : m.Index+m.Length] {
			piece = utf8.AppendRune(piece, r)
		}
		if !c.mergePiece(piece, emit) {
			return
		}
		m, _ = c.re.FindNextMatch(m)
	}
}

// mergePiece is tiktoken's byte pair merge of one piece. parts[i] is the
// start of the i-th part and the rank of it joined with the next part
// (noRank when that is no token).
func (c *Counter) mergePiece(piece []byte, emit func(int) bool) bool {
	if r, ok := c.v.rank(piece); ok {
		return emit(r)
	}
	const noRank = int(^uint(0) >> 1)
	type part struct{ start, rank int }
	var buf [64]part
	parts := buf[:0]
	if len(piece)+1 > len(buf) {
		parts = make([]part, 0, len(piece)+1)
	}
	for i := 0; i <= len(piece); i++ {
		parts = append(parts, part{i, noRank})
	}
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := c.v.rank(piece[parts[i].start:parts[i+skip+2].start]); ok {
				return r
			}
		}
		return noRank
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rank(i, 0)
	}
	for len(parts) > 1 {
		minRank, i := noRank, -1
		for j := 0; j < len(parts)-1; j++ {
			if parts[j].rank < minRank {
				minRank, i = parts[j].rank, j
			}
		}
		if i < 0 {
			break
		}
		parts[i].rank = rank(i, 1)
		if i > 0 {
			parts[i-1].rank = rank(i-1, 1)
		}
		parts = append(parts[:i+1], parts[i+2:]...)
	}
	for i := 0; i < len(parts)-1; i++ {
		r, _ := c.v.rank(piece[parts[i].start:parts[i+1].start])
		if !emit(r) {
			return false
		}
	}
	return true
}
