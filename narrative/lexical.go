package narrative

import (
	"slices"
	"strings"
	"unicode"
)

// The lexical fallback scores a memory by the share of the query's words
// its summary contains, so recall works without an embedding model. Words
// are lower-cased, stripped of a plural or possessive ending, and common
// function words are ignored: "interactions with the blacksmith" looks
// for "interaction" and "blacksmith".

// stopwords are too common to say what a memory is about.
var stopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"did": true, "do": true, "for": true, "from": true, "had": true, "has": true, "have": true,
	"he": true, "her": true, "him": true, "his": true, "i": true, "in": true, "into": true,
	"is": true, "it": true, "its": true, "me": true, "my": true, "of": true, "on": true, "or": true,
	"our": true, "she": true, "so": true, "that": true, "the": true, "their": true, "them": true,
	"they": true, "this": true, "to": true, "was": true, "we": true, "were": true, "what": true,
	"when": true, "where": true, "which": true, "who": true, "with": true, "you": true, "your": true,
}

// maxTerms bounds the words taken from one text.
const maxTerms = 256

// terms returns the distinct content words of s, sorted.
func terms(s string) []string {
	var out []string
	for f := range strings.FieldsFuncSeq(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }) {
		w := stem(strings.ToLower(strings.Trim(f, "'")))
		if w == "" || stopwords[w] {
			continue
		}
		out = append(out, w)
		if len(out) == maxTerms*4 {
			break
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxTerms {
		out = out[:maxTerms]
	}
	return out
}

// stem removes a possessive or plural ending; no more, so that the
// fallback stays predictable.
func stem(w string) string {
	w = strings.TrimSuffix(w, "'s")
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// overlap returns the share of query terms q found in document terms d;
// both are sorted and distinct.
func overlap(q, d []string) float64 {
	if len(q) == 0 {
		return 0
	}
	n, i, j := 0, 0, 0
	for i < len(q) && j < len(d) {
		switch c := strings.Compare(q[i], d[j]); {
		case c == 0:
			n++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return float64(n) / float64(len(q))
}
