package dice

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits.
const (
	MaxLength      = 256  // bytes of notation
	MaxTerms       = 20   // terms per expression
	MaxDicePerTerm = 100  // dice asked for by one term
	MaxDice        = 1000 // dice asked for by the whole expression
	MaxSides       = 1000 // sides of one die
	MaxExplosions  = 100  // extra dice one term may add by exploding
)

// Error is a bad expression; Pos is the 1-based column of the problem.
type Error struct {
	Notation string
	Pos      int
	Msg      string
}

func (e *Error) Error() string {
	return fmt.Sprintf("dice: %q column %d: %s", e.Notation, e.Pos, e.Msg)
}

// cmp is a comparison against a number.
type cmp struct {
	op string // ">=", ">", "<=", "<", "="
	n  int
}

func (c cmp) match(v int) bool {
	switch c.op {
	case ">=":
		return v >= c.n
	case ">":
		return v > c.n
	case "<=":
		return v <= c.n
	case "<":
		return v < c.n
	}
	return v == c.n
}

func (c cmp) String() string {
	if c.op == "=" {
		return "=" + strconv.Itoa(c.n)
	}
	return c.op + strconv.Itoa(c.n)
}

// Kinds of terms.
const (
	kindDice = iota
	kindConst
	kindRef
)

type term struct {
	kind  int
	sign  int
	n     int // dice count, or the constant
	sides int // 3 for Fate, 66 for D66
	fate  bool
	d66   bool
	ref   string

	keep    string // "kh", "kl", "dh", "dl" or ""
	keepN   int
	explode *cmp
	reroll  *cmp
	success *cmp
	upperD  bool // written as 2D (Traveller), kept for String
	pos     int
}

// Expr is a parsed expression. It is immutable and safe for concurrent use.
type Expr struct {
	terms []term
	label string
	src   string
}

// MustParse is Parse that panics, for expressions fixed in code.
func MustParse(notation string) *Expr {
	e, err := Parse(notation)
	if err != nil {
		panic(err)
	}
	return e
}

// Parse parses notation.
func Parse(notation string) (*Expr, error) {
	if len(notation) > MaxLength {
		return nil, &Error{Notation: notation[:40] + "…", Pos: MaxLength + 1,
			Msg: fmt.Sprintf("expression is %d bytes long, the limit is %d", len(notation), MaxLength)}
	}
	p := &parser{src: notation}
	return p.parse()
}

type parser struct {
	src string
	i   int
}

func (p *parser) fail(pos int, format string, args ...any) error {
	return &Error{Notation: p.src, Pos: pos + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
}

func (p *parser) peek() byte {
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isIdent(c byte) bool {
	return c == '_' || c == '.' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// number reads digits; ok is false when there are none.
func (p *parser) number() (int, bool, error) {
	start := p.i
	for p.i < len(p.src) && isDigit(p.src[p.i]) {
		p.i++
	}
	if start == p.i {
		return 0, false, nil
	}
	if p.i-start > 6 {
		return 0, false, p.fail(start, "number %s is too large", p.src[start:p.i])
	}
	n, _ := strconv.Atoi(p.src[start:p.i])
	return n, true, nil
}

func (p *parser) parse() (*Expr, error) {
	e := &Expr{src: p.src}
	// A label ends the expression: "# text" or "[text]".
	body := p.src
	if i := strings.IndexByte(body, '#'); i >= 0 {
		e.label = strings.TrimSpace(body[i+1:])
		body = body[:i]
	} else if i := strings.IndexByte(body, '['); i >= 0 {
		j := strings.IndexByte(body[i:], ']')
		if j < 0 {
			return nil, p.fail(i, "label opened with [ is not closed with ]")
		}
		if strings.TrimSpace(body[i+j+1:]) != "" {
			return nil, p.fail(i+j+1, "nothing may follow the label")
		}
		e.label = strings.TrimSpace(body[i+1 : i+j])
		body = body[:i]
	}
	p.src = body
	defer func() { p.src = e.src }()
	adv := 0
	total := 0
	for {
		p.skipSpace()
		if p.i >= len(p.src) {
			break
		}
		sign := 1
		start := p.i
		switch c := p.peek(); {
		case c == '+' || c == '-':
			if c == '-' {
				sign = -1
			}
			p.i++
			p.skipSpace()
		case len(e.terms) > 0:
			// A word after a complete expression: advantage or disadvantage.
			w := p.word()
			switch strings.ToLower(w) {
			case "adv", "advantage":
				adv = 1
				continue
			case "dis", "disadvantage":
				adv = -1
				continue
			case "":
				return nil, p.fail(start, "unexpected %q; expected + or - and another term", string(c))
			}
			if isDigit(w[0]) {
				return nil, p.fail(start, "unexpected %q; expected + or - and another term", w)
			}
			return nil, p.fail(start, "unexpected %q; expected + or -, adv or dis", w)
		}
		if p.i >= len(p.src) {
			return nil, p.fail(p.i, "expression ends after an operator; expected a number, dice or a name")
		}
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		t.sign, t.pos = sign, start
		if t.kind == kindDice {
			total += t.n
			if total > MaxDice {
				return nil, p.fail(start, "too many dice: the expression asks for %d, the limit is %d", total, MaxDice)
			}
		}
		e.terms = append(e.terms, t)
		if len(e.terms) > MaxTerms {
			return nil, p.fail(start, "too many terms: the limit is %d", MaxTerms)
		}
		// "d20adv": a word glued to a term.
		if w := p.wordAhead(); w == "adv" || w == "advantage" || w == "dis" || w == "disadvantage" {
			continue
		}
	}
	if len(e.terms) == 0 {
		return nil, p.fail(0, "empty expression; expected dice such as 2d6+1")
	}
	if adv != 0 {
		if err := applyAdvantage(e, adv); err != nil {
			return nil, p.fail(0, "%v", err)
		}
	}
	return e, nil
}

// word reads an identifier.
func (p *parser) word() string {
	start := p.i
	for p.i < len(p.src) && isIdent(p.src[p.i]) {
		p.i++
	}
	return p.src[start:p.i]
}

// wordAhead returns the identifier at the cursor without consuming it.
func (p *parser) wordAhead() string {
	j := p.i
	for j < len(p.src) && isIdent(p.src[j]) {
		j++
	}
	return strings.ToLower(p.src[p.i:j])
}

func applyAdvantage(e *Expr, adv int) error {
	for i := range e.terms {
		t := &e.terms[i]
		if t.kind == kindDice && t.sides == 20 && t.n == 1 && t.keep == "" && !t.d66 {
			t.n, t.keep, t.keepN = 2, "kh", 1
			if adv < 0 {
				t.keep = "kl"
			}
			return nil
		}
	}
	return fmt.Errorf("advantage and disadvantage need a 1d20 term")
}

func (p *parser) term() (term, error) {
	start := p.i
	n, hasN, err := p.number()
	if err != nil {
		return term{}, err
	}
	c := p.peek()
	if c != 'd' && c != 'D' {
		if hasN {
			if isIdent(c) && c != '.' && !isDigit(c) && p.wordAhead() != "adv" && p.wordAhead() != "dis" &&
				p.wordAhead() != "advantage" && p.wordAhead() != "disadvantage" {
				return term{}, p.fail(p.i, "unexpected %q after %d; expected d and the number of sides, or an operator", string(c), n)
			}
			return term{kind: kindConst, n: n}, nil
		}
		w := p.word()
		if w == "" {
			return term{}, p.fail(start, "unexpected %q; expected a number, dice such as 2d6, or a name", string(c))
		}
		if isDigit(w[0]) || w[0] == '.' || w[len(w)-1] == '.' {
			return term{}, p.fail(start, "%q is not a valid name; names start with a letter", w)
		}
		return term{kind: kindRef, ref: w}, nil
	}
	// A name that starts with d: "dex", "dexterity".
	if !hasN {
		j := p.i + 1
		for j < len(p.src) && isIdent(p.src[j]) {
			j++
		}
		w := strings.ToLower(p.src[p.i+1 : j])
		if w != "" && !isDigit(w[0]) && w != "f" && !strings.HasPrefix(w, "adv") && !strings.HasPrefix(w, "dis") &&
			!(len(w) > 0 && (w[0] == 'k' || w[0] == 'r')) {
			return term{kind: kindRef, ref: p.word()}, nil
		}
	}
	upper := c == 'D'
	p.i++ // the d
	if !hasN {
		n = 1
	}
	if n < 1 {
		return term{}, p.fail(start, "0 dice: roll at least one")
	}
	if n > MaxDicePerTerm {
		return term{}, p.fail(start, "too many dice: %dd asks for %d, the limit is %d per term", n, n, MaxDicePerTerm)
	}
	t := term{kind: kindDice, n: n, upperD: upper}
	switch c := p.peek(); {
	case c == '%':
		p.i++
		t.sides = 100
	case c == 'F' || c == 'f':
		p.i++
		t.fate, t.sides = true, 3
	case isDigit(c):
		sidesAt := p.i
		s, _, err := p.number()
		if err != nil {
			return term{}, err
		}
		if s == 66 && !hasN {
			t.d66, t.sides = true, 66
			break
		}
		if s < 1 {
			return term{}, p.fail(sidesAt, "a die needs at least 1 side")
		}
		if s > MaxSides {
			return term{}, p.fail(sidesAt, "d%d has too many sides; the limit is %d", s, MaxSides)
		}
		t.sides = s
	default:
		t.sides = 6 // Traveller: 2D is 2d6
	}
	if err := p.modifiers(&t); err != nil {
		return term{}, err
	}
	return t, nil
}

func (p *parser) comparison() (*cmp, bool, error) {
	start := p.i
	op := ""
	for _, o := range []string{">=", "<=", ">", "<", "="} {
		if strings.HasPrefix(p.src[p.i:], o) {
			op = o
			break
		}
	}
	if op == "" {
		return nil, false, nil
	}
	p.i += len(op)
	n, ok, err := p.number()
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return nil, false, p.fail(p.i, "%s needs a number after it", p.src[start:p.i])
	}
	return &cmp{op: op, n: n}, true, nil
}

func (p *parser) modifiers(t *term) error {
	for p.i < len(p.src) {
		at := p.i
		rest := strings.ToLower(p.src[p.i:])
		switch {
		case strings.HasPrefix(rest, "kh"), strings.HasPrefix(rest, "kl"), strings.HasPrefix(rest, "dh"), strings.HasPrefix(rest, "dl"),
			strings.HasPrefix(rest, "k") && len(rest) > 1 && isDigit(rest[1]):
			if t.keep != "" {
				return p.fail(at, "only one keep or drop per term")
			}
			kind := rest[:2]
			if kind[1] >= '0' && kind[1] <= '9' {
				kind = "kh"
				p.i++
			} else {
				p.i += 2
			}
			n, ok, err := p.number()
			if err != nil {
				return err
			}
			if !ok {
				return p.fail(p.i, "%s needs a count, e.g. 4d6kh3", kind)
			}
			if t.d66 || t.fate {
				return p.fail(at, "keep and drop work on ordinary dice, not %s", map[bool]string{true: "D66", false: "Fate dice"}[t.d66])
			}
			if (kind[0] == 'k' && (n < 1 || n > t.n)) || (kind[0] == 'd' && n >= t.n) {
				return p.fail(at, "%s%d does not fit %d dice; keep 1 to %d or drop fewer than %d", kind, n, t.n, t.n, t.n)
			}
			t.keep, t.keepN = kind, n
		case strings.HasPrefix(rest, "!"):
			p.i++
			c, ok, err := p.comparison()
			if err != nil {
				return err
			}
			if !ok {
				c = &cmp{op: ">=", n: t.sides}
			}
			if t.sides < 2 || t.d66 || t.fate {
				return p.fail(at, "these dice cannot explode")
			}
			if c.match(minFace(t)) {
				return p.fail(at, "explode on %s would explode every die; use a condition the lowest face does not meet", c)
			}
			t.explode = c
		case strings.HasPrefix(rest, "r") && !strings.HasPrefix(rest, "re"):
			p.i++
			c, ok, err := p.comparison()
			if err != nil {
				return err
			}
			if !ok {
				n, nok, err := p.number()
				if err != nil {
					return err
				}
				if !nok {
					return p.fail(p.i, "r needs a face or a comparison, e.g. r1 or r<3")
				}
				c = &cmp{op: "=", n: n}
			}
			t.reroll = c
		case rest[0] == '>' || rest[0] == '<' || rest[0] == '=':
			c, _, err := p.comparison()
			if err != nil {
				return err
			}
			t.success = c
		default:
			if isIdent(rest[0]) && !strings.HasPrefix(rest, "adv") && !strings.HasPrefix(rest, "dis") {
				return p.fail(at, "unknown modifier %q; expected kh, kl, dh, dl, !, r or a comparison such as >=5", p.wordAhead())
			}
			return nil
		}
	}
	return nil
}

func minFace(t *term) int {
	if t.fate {
		return -1
	}
	return 1
}

// Label returns the expression's label.
func (e *Expr) Label() string { return e.label }

// String returns the canonical notation; Parse(e.String()) gives an
// equivalent expression.
func (e *Expr) String() string {
	var b strings.Builder
	for i, t := range e.terms {
		switch {
		case t.sign < 0:
			b.WriteByte('-')
		case i > 0:
			b.WriteByte('+')
		}
		b.WriteString(t.text())
	}
	if e.label != "" {
		b.WriteString(" # " + e.label)
	}
	return b.String()
}

func (t term) text() string {
	switch t.kind {
	case kindConst:
		return strconv.Itoa(t.n)
	case kindRef:
		return t.ref
	}
	var b strings.Builder
	switch {
	case t.d66:
		b.WriteString("D66")
	case t.fate:
		fmt.Fprintf(&b, "%ddF", t.n)
	default:
		fmt.Fprintf(&b, "%dd%d", t.n, t.sides)
	}
	if t.explode != nil {
		b.WriteString("!")
		// The short form "!" is ambiguous before a success comparison.
		if !(t.explode.op == ">=" && t.explode.n == t.sides) || (t.success != nil && t.reroll == nil && t.keep == "") {
			b.WriteString(t.explode.String())
		}
	}
	if t.reroll != nil {
		b.WriteString("r")
		if t.reroll.op == "=" {
			b.WriteString(strconv.Itoa(t.reroll.n))
		} else {
			b.WriteString(t.reroll.String())
		}
	}
	if t.keep != "" {
		fmt.Fprintf(&b, "%s%d", t.keep, t.keepN)
	}
	if t.success != nil {
		b.WriteString(t.success.String())
	}
	return b.String()
}
