package retrieve

import (
	"iter"
	"strings"
	"unicode"
)

// Limits on the terms taken from free text, so a pasted page
// cannot make one search match the whole index many times over.
const (
	MaxTerms     = 32
	MaxTermBytes = 64
)

// Terms returns the words of free text a full-text search looks for: the
// text's words, lower-cased, without stopwords, contraction endings ("s"
// of "keeper's", "t" of "can't") or repeats, in the order they first
// appear. The words a question is phrased with ("what happens", "how does
// it work") are left out as well, unless nothing else is left: otherwise
// "how does grappling work" finds "Second-Story Work" first. It returns
// nil when no word remains.
//
// A term holds only letters, digits and combining marks, so no query
// syntax of any backend survives in it. Terms longer than MaxTermBytes
// are dropped (no word is that long), and at most MaxTerms are kept.
// Every backend builds its full-text query from these, so they search for
// the same words.
func Terms(text string) []string {
	var terms, fillers []string
	seen := map[string]bool{}
	for w, elided := range words(text) {
		w = strings.ToLower(w)
		if len(w) > MaxTermBytes || seen[w] || isStopword(w) || elided && isContraction(w) {
			continue
		}
		seen[w] = true
		if isQuestionFiller(w) {
			fillers = append(fillers, w)
		} else {
			terms = append(terms, w)
		}
	}
	if len(terms) == 0 {
		terms = fillers
	}
	return terms[:min(len(terms), MaxTerms)]
}

// words yields the runs of term runes in text, each with whether it
// directly follows an apostrophe.
func words(text string) iter.Seq2[string, bool] {
	return func(yield func(string, bool) bool) {
		start := -1
		var before rune // the rune before the current word
		var last rune
		for i, r := range text {
			switch {
			case isTermRune(r) && start < 0:
				start, before = i, last
			case !isTermRune(r) && start >= 0:
				if !yield(text[start:i], isApostrophe(before)) {
					return
				}
				start = -1
			}
			last = r
		}
		if start >= 0 {
			yield(text[start:], isApostrophe(before))
		}
	}
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

// isContraction reports the English endings the tokenizer splits off at
// an apostrophe; alone they match nearly everything.
func isContraction(w string) bool {
	switch w {
	case "s", "t", "m", "d", "ll", "re", "ve":
		return true
	}
	return false
}

// isQuestionFiller reports words that phrase a question rather than say
// what it is about.
func isQuestionFiller(w string) bool {
	switch w {
	case "happen", "happens", "happened", "happening", "way", "ways", "work", "works",
		"get", "gets", "getting", "got", "thing", "things", "something", "anything",
		"someone", "anyone", "really", "actually", "exactly", "also":
		return true
	}
	return false
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
