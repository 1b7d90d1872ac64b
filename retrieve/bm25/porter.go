package bm25

// The Porter stemmer as FTS5's 'porter' tokenizer applies it: to the
// token's bytes (anything not a, e, i, o, u or a y after a consonant is
// a consonant), tokens under 3 or over 64 bytes unchanged, and with
// FTS5's own readings of the conditions (in *v*, a y is a vowel anywhere
// but first). Ranking must match FTS5 token for token, so this follows
// FTS5's behaviour rather than another Porter implementation's.

const maxStemBytes = 64

// stem stems tok in place and returns the stemmed prefix.
func stem(tok []byte) []byte {
	n := len(tok)
	if n < 3 || n > maxStemBytes {
		return tok
	}
	b := tok

	// Step 1a.
	if b[n-1] == 's' {
		switch {
		case b[n-2] == 'e' && (n > 4 && b[n-4] == 's' && b[n-3] == 's' || n > 3 && b[n-3] == 'i'):
			n -= 2
		case b[n-2] == 'e' || b[n-2] != 's':
			n--
		}
	}

	// Step 1b.
	removed := false
	switch {
	case hasSuffix(b[:n], "eed"):
		if mGt0(b[:n-3]) {
			n--
		}
	case hasSuffix(b[:n], "ed"):
		if hasVowel(b[:n-2]) {
			n, removed = n-2, true
		}
	case hasSuffix(b[:n], "ing"):
		if hasVowel(b[:n-3]) {
			n, removed = n-3, true
		}
	}
	if removed {
		switch {
		case hasSuffix(b[:n], "at"), hasSuffix(b[:n], "bl"), hasSuffix(b[:n], "iz"):
			b = append(b[:n], 'e')
			n++
		default:
			c := b[n-1]
			if n >= 2 && !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == b[n-2] {
				n--
			} else if mEq1(b[:n]) && oStar(b[:n]) {
				b = append(b[:n], 'e')
				n++
			}
		}
	}

	// Step 1c.
	if b[n-1] == 'y' && hasVowel(b[:n-1]) {
		b[n-1] = 'i'
	}

	b, n = applyRules(b, n, step2)
	b, n = applyRules(b, n, step3)
	b, n = applyRules(b, n, step4)

	// Step 5a.
	if b[n-1] == 'e' && (mGt1(b[:n-1]) || mEq1(b[:n-1]) && !oStar(b[:n-1])) {
		n--
	}
	// Step 5b.
	if n > 1 && b[n-1] == 'l' && b[n-2] == 'l' && mGt1(b[:n-1]) {
		n--
	}
	return b[:n]
}

// hasSuffix reports whether w ends in s with at least one byte before it
// (FTS5 never takes a whole word as a suffix).
func hasSuffix(w []byte, s string) bool {
	if len(w) <= len(s) {
		return false
	}
	return string(w[len(w)-len(s):]) == s
}

type cond uint8

const (
	always cond = iota
	condMGt0
	condMGt1
	condMGt1ST // m > 1 and the stem ends in s or t
)

type rule struct {
	suffix, repl string
	cond         cond
}

// applyRules applies the first rule whose suffix w has, if its condition
// holds; a later rule is not tried when the first matching one's
// condition fails.
func applyRules(b []byte, n int, rules []rule) ([]byte, int) {
	for _, r := range rules {
		if !hasSuffix(b[:n], r.suffix) {
			continue
		}
		s := b[:n-len(r.suffix)]
		ok := true
		switch r.cond {
		case condMGt0:
			ok = mGt0(s)
		case condMGt1:
			ok = mGt1(s)
		case condMGt1ST:
			ok = (s[len(s)-1] == 's' || s[len(s)-1] == 't') && mGt1(s)
		}
		if ok {
			b = append(s, r.repl...)
			n = len(b)
		}
		return b, n
	}
	return b, n
}

var step2 = []rule{
	{"ational", "ate", condMGt0}, {"tional", "tion", condMGt0},
	{"enci", "ence", condMGt0}, {"anci", "ance", condMGt0},
	{"izer", "ize", condMGt0},
	{"logi", "log", condMGt0},
	{"bli", "ble", condMGt0}, {"alli", "al", condMGt0}, {"entli", "ent", condMGt0}, {"eli", "e", condMGt0}, {"ousli", "ous", condMGt0},
	{"ization", "ize", condMGt0}, {"ation", "ate", condMGt0}, {"ator", "ate", condMGt0},
	{"alism", "al", condMGt0}, {"iveness", "ive", condMGt0}, {"fulness", "ful", condMGt0}, {"ousness", "ous", condMGt0},
	{"aliti", "al", condMGt0}, {"iviti", "ive", condMGt0}, {"biliti", "ble", condMGt0},
}

var step3 = []rule{
	{"ical", "ic", condMGt0},
	{"ness", "", condMGt0},
	{"icate", "ic", condMGt0}, {"iciti", "ic", condMGt0},
	{"ful", "", condMGt0},
	{"ative", "", condMGt0},
	{"alize", "al", condMGt0},
}

var step4 = []rule{
	{"al", "", condMGt1},
	{"ance", "", condMGt1}, {"ence", "", condMGt1},
	{"er", "", condMGt1},
	{"ic", "", condMGt1},
	{"able", "", condMGt1}, {"ible", "", condMGt1},
	{"ant", "", condMGt1}, {"ement", "", condMGt1}, {"ment", "", condMGt1}, {"ent", "", condMGt1},
	{"ion", "", condMGt1ST}, {"ou", "", condMGt1},
	{"ism", "", condMGt1},
	{"ate", "", condMGt1}, {"iti", "", condMGt1},
	{"ous", "", condMGt1},
	{"ive", "", condMGt1},
	{"ize", "", condMGt1},
}

func isVowel(c byte, yIsVowel bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || yIsVowel && c == 'y'
}

// gobbleVC returns the length of w's first vowels-then-consonant run
// (a y after a consonant is a vowel), or 0 if there is none.
func gobbleVC(w []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(w); i++ {
		if cons = !isVowel(w[i], cons); !cons {
			break
		}
	}
	for i++; i < len(w); i++ {
		if cons = !isVowel(w[i], cons); cons {
			return i + 1
		}
	}
	return 0
}

func mGt0(w []byte) bool { return gobbleVC(w, false) > 0 }

func mGt1(w []byte) bool {
	n := gobbleVC(w, false)
	return n > 0 && gobbleVC(w[n:], true) > 0
}

func mEq1(w []byte) bool {
	n := gobbleVC(w, false)
	return n > 0 && gobbleVC(w[n:], true) == 0
}

// oStar: w ends consonant, vowel, consonant, the last not w, x or y.
func oStar(w []byte) bool {
	c := w[len(w)-1]
	if c == 'w' || c == 'x' || c == 'y' {
		return false
	}
	mask, cons := 0, false
	for _, ch := range w {
		cons = !isVowel(ch, cons)
		mask <<= 1
		if cons {
			mask |= 1
		}
	}
	return mask&7 == 5
}

// hasVowel is FTS5's *v*: a vowel, or a y anywhere but first.
func hasVowel(w []byte) bool {
	for i, c := range w {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}
