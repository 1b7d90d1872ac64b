package sqlite

import (
	"strings"
	"unicode"
)

// Limits on the full-text query built from free text, so a pasted page
// cannot make one search match the whole index many times over.
const (
	maxTerms     = 32
	maxTermBytes = 64
)

// matchQuery builds an FTS5 MATCH expression from free text: the text's
// words, lower-cased, without stopwords or repeats, each quoted as a
// string and joined with OR, so BM25 ranks chunks by how many of the
// words they hold and how rare those are. It returns "" when no word
// remains.
//
// User text never reaches FTS5's query syntax: a term holds only letters,
// digits and combining marks, and is wrapped in double quotes, so
// operators (AND, NEAR, *, ^, -, :, parentheses) are just words or
// separators. Terms longer than maxTermBytes are dropped (no word is that
// long), and at most maxTerms are kept.
func matchQuery(text string) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isTermRune(r) }) {
		w = strings.ToLower(w)
		if len(w) > maxTermBytes || seen[w] || isStopword(w) {
			continue
		}
		seen[w] = true
		if b.Len() > 0 {
			b.WriteString(" OR ")
		}
		// A term has no quote to escape: isTermRune admits none.
		b.WriteByte('"')
		b.WriteString(w)
		b.WriteByte('"')
		if len(seen) == maxTerms {
			break
		}
	}
	return b.String()
}

// isTermRune is what the unicode61 tokenizer keeps in a token (letters,
// numbers) plus combining marks, so an accented letter stays one word.
func isTermRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r)
}

// isStopword reports English function words: matching them finds
// everything and ranks nothing.
func isStopword(w string) bool {
	switch w {
	case "a", "about", "above", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at",
		"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further",
		"had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how",
		"i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself",
		"no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own",
		"same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then",
		"there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very",
		"was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
		"you", "your", "yours", "yourself", "yourselves":
		return true
	}
	return false
}
