package bm25

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Tokenize calls emit with each token of text as FTS5's 'porter
// unicode61' tokenizer produces it. The token passed to emit is only
// valid during the call.
//
// ASCII text is tokenized exactly as FTS5 does. Outside ASCII, token
// characters are Go's letters, numbers and private-use characters, and
// folding is Go's lower case with a single diacritic removed from Latin
// letters; SQLite's own tables are of an older Unicode version, so a
// few rare characters may differ. Callers that must be exact check the
// tokens against FTS5's own counts (the lore index checks every row's
// length when it builds).
func Tokenize(text string, emit func(tok []byte)) {
	fold(text, func(tok []byte) { emit(stem(tok)) })
}

// fold calls emit with each token of text before stemming: unicode61's
// tokens. emit may change the token's bytes.
func fold(text string, emit func(tok []byte)) {
	var buf [128]byte
	tok := buf[:0]
	in := false
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				tok, in = append(tok, c), true
			case 'A' <= c && c <= 'Z':
				tok, in = append(tok, c+32), true
			default:
				if in {
					emit(tok)
					tok, in = buf[:0], false
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case isTokenRune(r):
			tok, in = appendFolded(tok, r), true
		case in && isDiacritic(r):
			// A diacritic continues a token and folds to nothing.
		default:
			if in {
				emit(tok)
				tok, in = buf[:0], false
			}
		}
	}
	if in {
		emit(tok)
	}
}

// Tokens returns the tokens of text (see Tokenize).
func Tokens(text string) []string {
	var out []string
	Tokenize(text, func(t []byte) { out = append(out, string(t)) })
	return out
}

func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// isDiacritic is the set of combining marks unicode61 lets continue a
// token (U+0300 to U+0331, less a few).
func isDiacritic(r rune) bool {
	const mask0, mask1 = 0x08029FDF, 0x000361F8
	if r < 768 || r > 817 {
		return false
	}
	if r < 768+32 {
		return mask0&(1<<(r-768)) != 0
	}
	return mask1&(1<<(r-768-32)) != 0
}

// appendFolded appends r lower-cased, with a single diacritic removed
// from a Latin letter (unicode61's remove_diacritics=1).
func appendFolded(b []byte, r rune) []byte {
	r = unicode.ToLower(r)
	if r < 0x2000 && r >= 0xC0 {
		var tmp [8]byte
		n := utf8.EncodeRune(tmp[:], r)
		d := norm.NFD.Bytes(tmp[:n])
		// A base letter and exactly one combining mark: keep the base.
		if len(d) > 0 && d[0] < utf8.RuneSelf && ('a' <= d[0] && d[0] <= 'z') {
			mark, size := utf8.DecodeRune(d[1:])
			if size > 0 && 1+size == len(d) && unicode.Is(unicode.Mn, mark) {
				return append(b, d[0])
			}
		}
	}
	return utf8.AppendRune(b, r)
}
