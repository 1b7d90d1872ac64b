package lorebook

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// compileKeys prepares keys for matching. A key written /pattern/flags is a
// regular expression, as in SillyTavern; with useRegex (V3 use_regex) every
// key is a bare pattern. Regexes run on Go's RE2, which guarantees linear
// time whatever the pattern, so a hostile key cannot stall a turn; the price
// is that lookarounds and backreferences do not exist. Such keys are kept,
// reported through warn, and never match.
func compileKeys(texts []string, useRegex bool, warn func(string)) []key {
	out := make([]key, 0, len(texts))
	for _, t := range texts {
		k := key{text: t, lower: strings.ToLower(t), multi: len(strings.Fields(t)) > 1}
		if pattern, flags, ok := slashRegex(t); ok {
			re, err := compileJS(pattern, flags)
			if err != nil {
				warn(fmt.Sprintf("regex key %q cannot run on RE2 (%v); it will never match", t, err))
				k.dead = true
			} else {
				k.need = requiredLiterals(re.String())
			}
			k.re = re
		} else if useRegex {
			re, err := compileJS(t, "")
			fold, ferr := compileJS(t, "i")
			if err != nil || ferr != nil {
				warn(fmt.Sprintf("use_regex key %q cannot run on RE2 (%v); it will never match", t, err))
				k.dead = true
			} else {
				k.need, k.foldNeed = requiredLiterals(re.String()), requiredLiterals(fold.String())
			}
			k.re, k.fold = re, fold
		}
		out = append(out, k)
	}
	return out
}

// slashRegex recognises SillyTavern's regex key syntax exactly as its
// parseRegexFromString does: /^\/([\w\W]+?)\/([gimsuy]*)$/, then refuses a
// pattern holding a "/" not preceded by a backslash. The lazy group can
// only end at the last slash, since the flags contain no slash.
func slashRegex(s string) (pattern, flags string, ok bool) {
	if len(s) < 3 || s[0] != '/' {
		return "", "", false
	}
	end := strings.LastIndexByte(s, '/')
	if end < 2 {
		return "", "", false
	}
	flags = s[end+1:]
	if strings.Trim(flags, "gimsuy") != "" {
		return "", "", false
	}
	pattern = s[1:end]
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '/' && (i == 0 || pattern[i-1] != '\\') {
			return "", "", false
		}
	}
	return pattern, flags, true
}

// compileJS compiles a JavaScript regex for RE2. Flags i, m and s map onto
// RE2 flags; y (sticky, with lastIndex 0) anchors the match at the start of
// the text; g and u change nothing for a yes/no test. JavaScript's \uXXXX
// and \u{X} escapes are rewritten to RE2's \x{X}.
func compileJS(pattern, flags string) (*regexp.Regexp, error) {
	seen := map[rune]bool{}
	prefix := ""
	for _, f := range flags {
		if seen[f] {
			return nil, fmt.Errorf("flag %q given twice", f)
		}
		seen[f] = true
		if f == 'i' || f == 'm' || f == 's' {
			prefix += string(f)
		}
	}
	p := rewriteUnicodeEscapes(pattern)
	if seen['y'] {
		p = `\A(?:` + p + `)`
	}
	if prefix != "" {
		p = "(?" + prefix + ")" + p
	}
	return regexp.Compile(p)
}

func rewriteUnicodeEscapes(p string) string {
	if !strings.Contains(p, `\u`) {
		return p
	}
	var sb strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '\\' || i+1 >= len(p) {
			sb.WriteByte(p[i])
			continue
		}
		if p[i+1] != 'u' {
			sb.WriteString(p[i : i+2]) // keep \\ and every other escape whole
			i++
			continue
		}
		rest := p[i+2:]
		if strings.HasPrefix(rest, "{") {
			if j := strings.IndexByte(rest, '}'); j > 1 && isHex(rest[1:j]) {
				sb.WriteString(`\x{` + rest[1:j] + `}`)
				i += 2 + j
				continue
			}
		} else if len(rest) >= 4 && isHex(rest[:4]) {
			sb.WriteString(`\x{` + rest[:4] + `}`)
			i += 5
			continue
		}
		sb.WriteString(`\u`) // left for RE2 to reject
		i++
	}
	return sb.String()
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// haystack is the text one entry is matched against: the scanned messages
// and the recursion buffer, joined the way SillyTavern joins them. Its
// variants and trigram filters are built on first use.
type haystack struct {
	raw    string
	lower  *text // strings.ToLower, as JavaScript's toLowerCase
	folded *text // each rune folded to one case, for case-insensitive regex literals
	exact  *text
}

// text is one variant of a haystack with a filter of the byte trigrams it
// contains: a key with a trigram the text lacks cannot occur in it, which
// rejects most keys of a large book without scanning the text.
type text struct {
	s     string
	grams []uint64 // bitset of trigram hashes
}

const gramBits = 1 << 16

func newText(s string) *text {
	t := &text{s: s}
	if len(s) >= 3 {
		t.grams = make([]uint64, gramBits/64)
		for i := 0; i+3 <= len(s); i++ {
			h := gramHash(s[i], s[i+1], s[i+2])
			t.grams[h/64] |= 1 << (h % 64)
		}
	}
	return t
}

func gramHash(a, b, c byte) uint32 {
	return (uint32(a)*0x9E3779B1 ^ uint32(b)*0x85EBCA77 ^ uint32(c)*0xC2B2AE3D) >> 16
}

// contains reports whether needle occurs in t.
func (t *text) contains(needle string) bool {
	if len(needle) > len(t.s) {
		return false
	}
	if t.grams != nil {
		for i := 0; i+3 <= len(needle); i++ {
			h := gramHash(needle[i], needle[i+1], needle[i+2])
			if t.grams[h/64]&(1<<(h%64)) == 0 {
				return false
			}
		}
	}
	return strings.Contains(t.s, needle)
}

func (h *haystack) text(caseSensitive bool) *text {
	if caseSensitive {
		if h.exact == nil {
			h.exact = newText(h.raw)
		}
		return h.exact
	}
	if h.lower == nil {
		h.lower = newText(strings.ToLower(h.raw))
	}
	return h.lower
}

func (h *haystack) foldedText() *text {
	if h.folded == nil {
		h.folded = newText(foldString(h.raw))
	}
	return h.folded
}

// match reports whether k occurs in h under the entry's settings.
// Regex keys ignore both settings, as in SillyTavern (case comes from the
// i flag); bare use_regex patterns follow the case setting.
func (k *key) match(h *haystack, caseSensitive, wholeWords bool) bool {
	switch {
	case k.dead:
		return false
	case k.fold != nil && !caseSensitive:
		return h.mayMatch(k.foldNeed) && k.fold.MatchString(h.raw)
	case k.re != nil:
		return h.mayMatch(k.need) && k.re.MatchString(h.raw)
	}
	t, needle := h.text(caseSensitive), k.text
	if !caseSensitive {
		needle = k.lower
	}
	if !wholeWords || k.multi {
		return t.contains(needle)
	}
	return t.contains(needle) && containsWord(t.s, needle)
}

// mayMatch checks a regex's required literals before the regex runs.
func (h *haystack) mayMatch(need []literal) bool {
	for _, l := range need {
		if l.fold {
			if !h.foldedText().contains(l.s) {
				return false
			}
		} else if !h.text(true).contains(l.s) {
			return false
		}
	}
	return true
}

// literal is a string every match of a regex contains; fold marks a
// case-insensitive one, stored folded.
type literal struct {
	s    string
	fold bool
}

// requiredLiterals finds literals every match must contain: those that are
// parts of a concatenation at the top of the pattern, including inside
// groups and one-or-more repeats. Alternations contribute nothing.
func requiredLiterals(pattern string) []literal {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	var out []literal
	var walk func(*syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			if re.Flags&syntax.FoldCase != 0 {
				out = append(out, literal{s: foldString(string(re.Rune)), fold: true})
			} else {
				out = append(out, literal{s: string(re.Rune)})
			}
		case syntax.OpConcat, syntax.OpCapture, syntax.OpPlus:
			for _, sub := range re.Sub {
				walk(sub)
			}
		case syntax.OpRepeat:
			if re.Min >= 1 {
				walk(re.Sub[0])
			}
		}
	}
	walk(re.Simplify())
	return out
}

// foldString maps every rune to the smallest rune of its case-folding
// orbit, the equivalence RE2's case-insensitive literals match under.
func foldString(s string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				return r - 'a' + 'A'
			}
			return r
		}
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

// containsWord is SillyTavern's whole-word test (?:^|\W)needle(?:$|\W),
// where \W is any byte outside [A-Za-z0-9_]: non-ASCII letters count as
// boundaries there too.
func containsWord(text, needle string) bool {
	if needle == "" {
		return false
	}
	for from := 0; from <= len(text)-len(needle); {
		i := strings.Index(text[from:], needle)
		if i < 0 {
			return false
		}
		start := from + i
		end := start + len(needle)
		if (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		from = start + 1
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
