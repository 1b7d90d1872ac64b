package sqliteindex

import (
	"strings"

	"github.com/hearth-rpg/hearth/retrieve"
)

// Limits on the terms a query holds (see retrieve.Terms).
const (
	maxTerms     = retrieve.MaxTerms
	maxTermBytes = retrieve.MaxTermBytes
)

// matchQuery builds an FTS5 MATCH expression from free text: the words
// retrieve.Terms takes from it, each quoted as a string and joined with
// OR, so BM25 ranks chunks by how many of the words they hold and how
// rare those are. It returns "" when no word remains.
//
// User text never reaches FTS5's query syntax: a term holds only letters,
// digits and combining marks, and is wrapped in double quotes, so
// operators (AND, NEAR, *, ^, -, :, parentheses) are just words or
// separators.
func matchQuery(text string) string {
	var b strings.Builder
	for i, w := range retrieve.Terms(text) {
		if i > 0 {
			b.WriteString(" OR ")
		}
		// A term has no quote to escape: retrieve.Terms admits none.
		b.WriteByte('"')
		b.WriteString(w)
		b.WriteByte('"')
	}
	return b.String()
}
