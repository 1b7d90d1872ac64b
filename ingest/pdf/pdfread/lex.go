package pdfread

import (
	"bytes"
	"strconv"
)

// lexer reads PDF tokens from a byte slice.
type lexer struct {
	b   []byte
	pos int
}

func isWhite(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (l *lexer) skipWhite() {
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		if isWhite(c) {
			l.pos++
		} else if c == '%' {
			for l.pos < len(l.b) && l.b[l.pos] != '\n' && l.b[l.pos] != '\r' {
				l.pos++
			}
		} else {
			return
		}
	}
}

// keyword is a bare token: an operator, true/false/null, R, obj, a number.
type keyword string

// token kinds returned by next besides values
type delim byte

// next returns the next token: a value (int64, float64, String, Name),
// a keyword, or a delim ('[', ']', '<' for "<<", '>' for ">>", '{', '}').
// ok is false at the end of input.
func (l *lexer) next() (tok any, ok bool, err error) {
	l.skipWhite()
	if l.pos >= len(l.b) {
		return nil, false, nil
	}
	c := l.b[l.pos]
	switch c {
	case '[', ']', '{', '}':
		l.pos++
		return delim(c), true, nil
	case '<':
		if l.pos+1 < len(l.b) && l.b[l.pos+1] == '<' {
			l.pos += 2
			return delim('<'), true, nil
		}
		s, err := l.hexString()
		return s, true, err
	case '>':
		if l.pos+1 < len(l.b) && l.b[l.pos+1] == '>' {
			l.pos += 2
			return delim('>'), true, nil
		}
		l.pos++
		return nil, true, malformed("stray '>' at offset %d", l.pos-1)
	case '(':
		s, err := l.litString()
		return s, true, err
	case '/':
		l.pos++
		start := l.pos
		for l.pos < len(l.b) && !isWhite(l.b[l.pos]) && !isDelim(l.b[l.pos]) {
			l.pos++
		}
		raw := l.b[start:l.pos]
		if bytes.IndexByte(raw, '#') < 0 {
			return Name(raw), true, nil
		}
		var out []byte
		for i := 0; i < len(raw); i++ {
			if raw[i] == '#' && i+2 < len(raw) {
				if v, err := strconv.ParseUint(string(raw[i+1:i+3]), 16, 8); err == nil {
					out = append(out, byte(v))
					i += 2
					continue
				}
			}
			out = append(out, raw[i])
		}
		return Name(out), true, nil
	case ')':
		l.pos++
		return nil, true, malformed("stray ')' at offset %d", l.pos-1)
	}
	start := l.pos
	for l.pos < len(l.b) && !isWhite(l.b[l.pos]) && !isDelim(l.b[l.pos]) {
		l.pos++
	}
	w := l.b[start:l.pos]
	if n, ok := parseNumber(w); ok {
		return n, true, nil
	}
	return keyword(w), true, nil
}

// parseNumber reads an integer or real; PDF reals have no exponent.
func parseNumber(w []byte) (Object, bool) {
	if len(w) == 0 {
		return nil, false
	}
	c := w[0]
	if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.') {
		return nil, false
	}
	neg := false
	i := 0
	if c == '-' || c == '+' {
		neg = c == '-'
		i = 1
		// Some producers write "--5"; read it as -5 like other readers.
		for i < len(w) && (w[i] == '-' || w[i] == '+') {
			i++
		}
	}
	var ip int64
	digits := 0
	for ; i < len(w) && w[i] >= '0' && w[i] <= '9'; i++ {
		if ip < 1<<58 {
			ip = ip*10 + int64(w[i]-'0')
		}
		digits++
	}
	if i == len(w) {
		if digits == 0 {
			return nil, false
		}
		if neg {
			ip = -ip
		}
		return ip, true
	}
	if w[i] != '.' {
		return nil, false
	}
	i++
	f := float64(ip)
	scale := 0.1
	for ; i < len(w) && w[i] >= '0' && w[i] <= '9'; i++ {
		f += float64(w[i]-'0') * scale
		scale /= 10
		digits++
	}
	if i != len(w) || digits == 0 {
		return nil, false
	}
	if neg {
		f = -f
	}
	return f, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func (l *lexer) hexString() (String, error) { return l.hexStringTo(nil) }

// hexStringTo appends the string's bytes to out and returns out.
func (l *lexer) hexStringTo(out []byte) (String, error) {
	start := l.pos
	l.pos++ // '<'
	var hi byte
	half := false
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		l.pos++
		if c == '>' {
			if half {
				out = append(out, hi<<4)
			}
			return String(out), nil
		}
		v, ok := unhex(c)
		if !ok {
			if isWhite(c) {
				continue
			}
			return nil, malformed("bad hex string at offset %d", start)
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	return nil, malformed("unterminated hex string at offset %d", start)
}

func (l *lexer) litString() (String, error) { return l.litStringTo(make([]byte, 0, 16)) }

// litStringTo appends the string's bytes to out and returns out.
func (l *lexer) litStringTo(out []byte) (String, error) {
	start := l.pos
	l.pos++ // '('
	depth := 1
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return String(out), nil
			}
		case '\\':
			if l.pos >= len(l.b) {
				break
			}
			e := l.b[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.pos < len(l.b) && l.b[l.pos] == '\n' {
					l.pos++
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.pos < len(l.b) && l.b[l.pos] >= '0' && l.b[l.pos] <= '7'; k++ {
						v = v*8 + int(l.b[l.pos]-'0')
						l.pos++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		out = append(out, c)
	}
	return nil, malformed("unterminated string at offset %d", start)
}

// parser builds objects from tokens.
type parser struct {
	lex    lexer
	noRefs bool // content streams have no indirect references
}

// object reads one object. Indirect references "n g R" are recognised
// by looking two tokens ahead.
func (p *parser) object(depth int) (Object, error) {
	tok, ok, err := p.lex.next()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, malformed("unexpected end of data at offset %d", p.lex.pos)
	}
	return p.fromToken(tok, depth)
}

func (p *parser) fromToken(tok any, depth int) (Object, error) {
	if depth > maxDepth {
		return nil, malformed("objects nested deeper than %d at offset %d", maxDepth, p.lex.pos)
	}
	switch t := tok.(type) {
	case int64:
		save := p.lex.pos
		if t >= 0 && !p.noRefs {
			t2, ok, _ := p.lex.next()
			if g, isInt := t2.(int64); ok && isInt && g >= 0 {
				t3, ok, _ := p.lex.next()
				if k, isKw := t3.(keyword); ok && isKw && k == "R" {
					return Ref{int(t), int(g)}, nil
				}
			}
		}
		p.lex.pos = save
		return t, nil
	case float64, String, Name:
		return t, nil
	case keyword:
		switch t {
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		}
		return nil, malformed("unexpected %q at offset %d", string(t), p.lex.pos)
	case delim:
		switch t {
		case '[':
			var arr Array
			for {
				tok, ok, err := p.lex.next()
				if err != nil {
					return nil, err
				}
				if !ok {
					return nil, malformed("unterminated array at offset %d", p.lex.pos)
				}
				if d, isD := tok.(delim); isD && d == ']' {
					return arr, nil
				}
				o, err := p.fromToken(tok, depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, o)
			}
		case '<':
			d := Dict{}
			for {
				tok, ok, err := p.lex.next()
				if err != nil {
					return nil, err
				}
				if !ok {
					return nil, malformed("unterminated dictionary at offset %d", p.lex.pos)
				}
				if dl, isD := tok.(delim); isD && dl == '>' {
					return d, nil
				}
				k, isName := tok.(Name)
				if !isName {
					return nil, malformed("dictionary key is not a name at offset %d", p.lex.pos)
				}
				v, err := p.object(depth + 1)
				if err != nil {
					return nil, err
				}
				if v != nil {
					d[k] = v
				}
			}
		}
	}
	return nil, malformed("unexpected token at offset %d", p.lex.pos)
}
