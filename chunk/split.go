package chunk

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth/tokens"
)

// DefaultTarget is the size, in tokens, that small consecutive paragraphs
// of one section are merged up to: big enough to carry context, small
// enough that a hit is about one thing.
const DefaultTarget = 300

const minMax = 8

// Options tune splitting. The zero value uses the defaults.
type Options struct {
	// Target is the size small blocks of one section are merged up to;
	// DefaultTarget when zero.
	Target int
	// Max caps every piece; MaxTokens when zero or above MaxTokens, and
	// at least minMax (a rune can take four tokens).
	Max int
}

func (o Options) norm() Options {
	if o.Max <= 0 || o.Max > MaxTokens {
		o.Max = MaxTokens
	}
	o.Max = max(o.Max, minMax)
	if o.Target <= 0 {
		o.Target = DefaultTarget
	}
	o.Target = min(o.Target, o.Max)
	return o
}

// Piece is a passage cut from a larger text, before the caller adds the
// metadata that makes it a Chunk.
type Piece struct {
	Section []string // heading path (or field path), outermost first
	Text    string
	Tokens  int // cl100k tokens of Text, never above Options.Max
	Line    int // 1-based line of the input the piece starts on
}

// unit is the smallest run of text the packer moves: a block that fits
// the cap, or a list item, table row, code line, sentence or hard-cut
// fragment of one that does not.
type unit struct {
	text   string
	tokens int
	line   int
	sep    string // joins it to the unit before it in a piece
}

// Markdown splits Markdown by heading, then by block (paragraph, list,
// table, fenced code), merging small blocks of one section up to the
// target but never across a heading. A block over the cap is cut between
// list items or table rows, then between sentences, then, for a sentence
// still over the cap, at a token boundary. Heading lines stay in the text
// of the piece they open, so the pieces together hold every non-space
// character of the input, in order.
func Markdown(text string, tok *tokens.Counter, opt Options) []Piece {
	return split(scan(text, true), tok, opt.norm())
}

// Plain splits plain text into paragraphs (blank-line separated), merged
// and cut like Markdown's blocks. No line is taken for a heading.
func Plain(text string, tok *tokens.Counter, opt Options) []Piece {
	return split(scan(text, false), tok, opt.norm())
}

// blockKind tells blocks apart.
type blockKind int

const (
	para blockKind = iota
	code
	heading
)

type block struct {
	kind  blockKind
	line  int // 1-based
	lines []string
	level int    // headings: 1–6
	title string // headings
}

func (b block) text() string { return strings.Join(b.lines, "\n") }

// scan cuts text into blocks with a line scanner. In Markdown mode it
// knows ATX and setext headings and fenced code (where # starts no
// heading); otherwise only blank lines matter.
func scan(text string, markdown bool) []block {
	var (
		out   []block
		cur   *block
		fence string // the opening fence's run of ` or ~ while inside one
	)
	flush := func() {
		if cur != nil && len(cur.lines) > 0 {
			out = append(out, *cur)
		}
		cur = nil
	}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		n := i + 1
		if fence != "" {
			cur.lines = append(cur.lines, line)
			if closesFence(line, fence) {
				fence = ""
				flush()
			}
			continue
		}
		if markdown {
			if f := opensFence(line); f != "" {
				flush()
				cur = &block{kind: code, line: n, lines: []string{line}}
				fence = f
				continue
			}
			if level, title, ok := atxHeading(line); ok {
				flush()
				out = append(out, block{kind: heading, line: n, lines: []string{line}, level: level, title: title})
				continue
			}
			if level := setextUnderline(line); level > 0 && cur != nil && cur.kind == para && setextable(cur.lines) {
				title := strings.TrimSpace(strings.Join(cur.lines, " "))
				cur.kind, cur.level, cur.title = heading, level, title
				cur.lines = append(cur.lines, line)
				flush()
				continue
			}
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if cur == nil {
			cur = &block{kind: para, line: n}
		}
		cur.lines = append(cur.lines, line)
	}
	flush()
	return out
}

// indent returns line without up to three leading spaces, and whether it
// had at most three (four make an indented code line, not a marker).
func indent(line string) (string, bool) {
	for i := 0; i < 4; i++ {
		if i == len(line) || line[i] != ' ' {
			return line[i:], true
		}
	}
	return line, false
}

// opensFence returns the fence run (``` or ~~~, at least three) a line
// opens, or "".
func opensFence(line string) string {
	t, ok := indent(line)
	if !ok || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return ""
	}
	return t[:n]
}

func closesFence(line, fence string) bool {
	t, ok := indent(line)
	if !ok || !strings.HasPrefix(t, fence) {
		return false
	}
	rest := strings.TrimLeft(t, fence[:1])
	return strings.TrimSpace(rest) == ""
}

// atxHeading reads "## Title ##".
func atxHeading(line string) (int, string, bool) {
	t, ok := indent(line)
	if !ok {
		return 0, "", false
	}
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0, "", false
	}
	title := strings.TrimSpace(t[n:])
	// A closing run of # is decoration when a space precedes it.
	if s := strings.TrimRight(title, "#"); s == "" || strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\t") {
		title = strings.TrimSpace(s)
	}
	return n, title, true
}

// setextUnderline returns 1 for a line of =, 2 for a line of -, else 0.
func setextUnderline(line string) int {
	t, ok := indent(line)
	t = strings.TrimRight(t, " \t")
	if !ok || t == "" {
		return 0
	}
	if strings.Trim(t, "=") == "" {
		return 1
	}
	if strings.Trim(t, "-") == "" {
		return 2
	}
	return 0
}

// setextable reports whether a paragraph can be a setext heading's text:
// not a table and not a list (a line of - under those is something else).
func setextable(lines []string) bool {
	for _, l := range lines {
		if itemStart(l) {
			return false
		}
	}
	return true
}

// itemStart reports whether a line begins a list item or a table row.
func itemStart(line string) bool {
	t := strings.TrimLeft(line, " \t")
	if t == "" {
		return false
	}
	if t[0] == '|' {
		return true
	}
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		return true
	}
	d := 0
	for d < len(t) && d < 9 && t[d] >= '0' && t[d] <= '9' {
		d++
	}
	return d > 0 && d+1 < len(t) && (t[d] == '.' || t[d] == ')') && (t[d+1] == ' ' || t[d+1] == '\t')
}

// splitter holds what one call needs.
type splitter struct {
	tok *tokens.Counter
	opt Options
	out []Piece
}

func split(blocks []block, tok *tokens.Counter, opt Options) []Piece {
	s := &splitter{tok: tok, opt: opt}
	var (
		stack   []block // open headings
		section []string
		group   []unit
		body    bool // the group holds more than headings
	)
	flush := func() {
		s.emit(section, group)
		group, body = nil, false
	}
	for _, b := range blocks {
		if b.kind == heading {
			if body {
				flush()
			}
			for len(stack) > 0 && stack[len(stack)-1].level >= b.level {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, b)
			section = make([]string, len(stack))
			for i, h := range stack {
				section[i] = h.title
			}
			group = append(group, s.units(b)...)
			continue
		}
		for _, u := range s.units(b) {
			size := sum(group) + u.tokens
			switch {
			case body && size > s.opt.Target:
				flush()
			case !body && len(group) > 0 && size > s.opt.Max:
				// Headings stay with the text they open unless that
				// would break the cap.
				flush()
			}
			group = append(group, u)
			body = true
		}
	}
	if len(group) > 0 {
		flush()
	}
	return s.out
}

// sum estimates a group's size: its units and one token per separator.
// emit counts the joined text exactly.
func sum(us []unit) int {
	n := 0
	for i, u := range us {
		n += u.tokens
		if i > 0 {
			n++
		}
	}
	return n
}

func (s *splitter) emit(section []string, group []unit) {
	if len(group) == 0 {
		return
	}
	if len(group) == 1 {
		u := group[0]
		s.out = append(s.out, Piece{Section: slices.Clone(section), Text: u.text, Tokens: u.tokens, Line: u.line})
		return
	}
	var b strings.Builder
	for i, u := range group {
		if i > 0 {
			b.WriteString(u.sep)
		}
		b.WriteString(u.text)
	}
	text := b.String()
	n := s.tok.Count(text)
	if n > s.opt.Max {
		// Joining merged tokens unluckily; every unit fits alone.
		for _, u := range group {
			s.emit(section, []unit{u})
		}
		return
	}
	s.out = append(s.out, Piece{Section: slices.Clone(section), Text: text, Tokens: n, Line: group[0].line})
}

// units turns a block into units that each fit the cap.
func (s *splitter) units(b block) []unit {
	text := strings.TrimSpace(b.text())
	if text == "" {
		return nil
	}
	us := s.textUnits(text, b.kind == code)
	line := b.line + leadingLines(b.text())
	for i := range us {
		us[i].line += line
	}
	if len(us) > 0 {
		us[0].sep = "\n\n"
	}
	return us
}

// maxRun bounds the runs of letters, marks or spaces that are counted
// whole: the tokenizer's time grows with the square of a run's length,
// so longer runs (never seen in prose, easy to write in a hostile file)
// are cut into fragments first.
const maxRun = 1024

// textUnits cuts trimmed text into units that each fit the cap, with
// lines relative to text.
func (s *splitter) textUnits(text string, everyLine bool) []unit {
	if segs := longRuns(text); segs != nil {
		var out []unit
		for _, sg := range segs {
			var us []unit
			if sg.run {
				us = s.fragments(sg.text)
			} else {
				us = s.textUnits(sg.text, everyLine)
			}
			for i := range us {
				us[i].line += sg.line
				if i == 0 {
					us[i].sep = " "
				}
			}
			out = append(out, us...)
		}
		return out
	}
	if n := s.tok.Count(text); n <= s.opt.Max {
		return []unit{{text: text, tokens: n}}
	}
	var out []unit
	// Items: list items and table rows for prose, lines for code.
	for _, it := range items(text, everyLine) {
		if n := s.tok.Count(it.text); n <= s.opt.Max {
			it.tokens = n
			out = append(out, it)
			continue
		}
		first := true
		for _, se := range sentences(it.text) {
			se.line += it.line
			se.sep = " "
			if first {
				se.sep, first = it.sep, false
			}
			if n := s.tok.Count(se.text); n <= s.opt.Max {
				se.tokens = n
				out = append(out, se)
				continue
			}
			for j, h := range s.hardSplit(se.text) {
				h.line += se.line
				h.sep = ""
				if j == 0 {
					h.sep = se.sep
				}
				out = append(out, h)
			}
		}
	}
	return out
}

// segment is a stretch of text between long runs, or a long run.
type segment struct {
	text string
	line int
	run  bool
}

// longRuns cuts text around runs of non-space (or space) bytes longer
// than maxRun; nil when there are none. Long runs of space are dropped.
func longRuns(text string) []segment {
	var out []segment
	start, line, startLine := 0, 0, 0
	for i := 0; i < len(text); {
		j := i
		space := isSpaceByte(text[i])
		for j < len(text) && isSpaceByte(text[j]) == space {
			j++
		}
		if j-i > maxRun {
			if t := strings.TrimSpace(text[start:i]); t != "" {
				out = append(out, segment{text: t, line: startLine + leadingLines(text[start:i])})
			}
			if !space {
				out = append(out, segment{text: text[i:j], line: line, run: true})
			}
			start = j
			line += strings.Count(text[i:j], "\n")
			startLine = line
			i = j
			continue
		}
		line += strings.Count(text[i:j], "\n")
		i = j
	}
	if out == nil {
		return nil
	}
	if t := strings.TrimSpace(text[start:]); t != "" {
		out = append(out, segment{text: t, line: startLine + leadingLines(text[start:])})
	}
	return out
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// fragments cuts a long run into pieces of at most Max bytes, which
// always fit: a token is at least one byte.
func (s *splitter) fragments(run string) []unit {
	var out []unit
	for run != "" {
		cut := runeBack(run, min(len(run), s.opt.Max))
		if cut == 0 {
			_, cut = utf8.DecodeRuneInString(run)
		}
		out = append(out, unit{text: run[:cut], tokens: s.tok.Count(run[:cut])})
		run = run[cut:]
	}
	return out
}

// leadingLines counts the blank lines TrimSpace removed from the start.
func leadingLines(s string) int {
	trimmed := strings.TrimLeftFunc(s, unicode.IsSpace)
	return strings.Count(s[:len(s)-len(trimmed)], "\n")
}

// items cuts a block at the lines that start list items or table rows
// (every line, for code). Lines that start nothing continue the item
// before them. Each item's line is relative to the block.
func items(text string, everyLine bool) []unit {
	lines := strings.Split(text, "\n")
	var out []unit
	start, startLine := 0, 0
	off := 0
	for i, l := range lines {
		if i > 0 && (everyLine || itemStart(l)) {
			out = append(out, unit{text: strings.TrimSpace(text[start : off-1]), line: startLine, sep: "\n"})
			start, startLine = off, i
		}
		off += len(l) + 1
	}
	out = append(out, unit{text: strings.TrimSpace(text[start:]), line: startLine, sep: "\n"})
	out[0].sep = ""
	kept := out[:0]
	for _, u := range out {
		if u.text != "" {
			kept = append(kept, u)
		}
	}
	return kept
}

// sentences cuts text after ". ", "! " and "? " (a closing quote or
// bracket may follow the mark). Each sentence's line is relative to text.
func sentences(text string) []unit {
	var out []unit
	start, line := 0, 0 // line: newlines before start
	add := func(end int) {
		seg := text[start:end]
		t := strings.TrimLeftFunc(seg, unicode.IsSpace)
		lead := len(seg) - len(t)
		if t = strings.TrimRightFunc(t, unicode.IsSpace); t != "" {
			out = append(out, unit{text: t, line: line + strings.Count(seg[:lead], "\n")})
		}
		line += strings.Count(seg, "\n")
		start = end
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(text) && strings.IndexByte("\"')]*_", text[j]) >= 0 {
			j++
		}
		if j < len(text) && (text[j] == ' ' || text[j] == '\n' || text[j] == '\t') {
			add(j)
			i = j
		}
	}
	add(len(text))
	return out
}

// hardSplit cuts text that has no usable boundary into pieces of at most
// the cap, at token boundaries, moved back to a rune boundary and, when
// one is near, to a space. Only a window of the text is tokenized per
// cut, so the work stays linear. A piece of at most Max bytes always
// fits, because a token is at least one byte; that is the fallback.
func (s *splitter) hardSplit(text string) []unit {
	var out []unit
	line := 0
	window := s.opt.Max * 16
	for {
		trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
		line += strings.Count(text[:len(text)-len(trimmed)], "\n")
		text = trimmed
		if text == "" {
			break
		}
		w := text
		if len(w) > window {
			w = text[:runeBack(text, window)]
		}
		// The tokenizer reads bytes that are not UTF-8 as U+FFFD, so its
		// prefix of such a window is no prefix of text, and a window of
		// them costs it the square of its length: cut those by bytes.
		valid := utf8.ValidString(w)
		if len(w) == len(text) && (valid || len(text) <= s.opt.Max) {
			if n := s.tok.Count(text); n <= s.opt.Max {
				out = append(out, unit{text: text, tokens: n, line: line})
				break
			}
		}
		cut := 0
		if valid {
			if p, _ := s.tok.Truncate(w, s.opt.Max); strings.HasPrefix(text, p) {
				cut = len(p)
			}
		}
		cut = runeBack(text, cut)
		if sp := strings.LastIndexFunc(text[:cut], unicode.IsSpace); sp > cut/2 {
			cut = sp
		}
		piece := strings.TrimRightFunc(text[:cut], unicode.IsSpace)
		n := 0
		if piece != "" {
			n = s.tok.Count(piece)
		}
		if piece == "" || n > s.opt.Max {
			cut = runeBack(text, min(len(text), s.opt.Max))
			if cut == 0 { // a rune wider than the cap: only with a tiny cap
				_, cut = utf8.DecodeRuneInString(text)
			}
			piece = text[:cut]
			n = s.tok.Count(piece)
		}
		out = append(out, unit{text: piece, tokens: n, line: line})
		line += strings.Count(text[:cut], "\n")
		text = text[cut:]
	}
	return out
}

// runeBack moves i back to the start of the rune it falls inside. Bytes
// that are not UTF-8 are no rune: i stays, so a run of them is cut where
// asked, not one byte at a time.
func runeBack(s string, i int) int {
	if i <= 0 || i >= len(s) {
		return i
	}
	for k := i - 1; k >= 0 && k > i-utf8.UTFMax; k-- {
		if utf8.RuneStart(s[k]) {
			if _, size := utf8.DecodeRuneInString(s[k:]); k+size > i {
				return k
			}
			return i
		}
	}
	return i
}
