package pdfread

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"math"
	"reflect"
)

// Char is one character of a page's text in content order, or a space
// or line break this package inserted where the text moves on (as
// PDFium's text page does).
type Char struct {
	R rune
	// The loose box in PDF user space (y up): the advance from the
	// origin, the font's ascent to its descent. NoBox for inserted
	// characters and for the second and later runes of one code (a
	// ligature's letters share the first one's box).
	X0, Y0, X1, Y1 float32
	NoBox          bool
	Size           float32 // the font size as set by Tf
	Weight         int32   // PDFium's weight estimate for the font
}

// Page is the text of one page.
type Page struct {
	Width, Height float64 // the crop box, turned by /Rotate
	Chars         []Char
	HasImages     bool // an image XObject or inline image is drawn
	// Images are the image XObjects drawn, in order, at most
	// maxImagesPerPage (ImagesCut says more were drawn).
	Images       []Image
	ImagesCut    bool
	InlineImages int // inline images (BI … EI) drawn, not reported
}

type matrix [6]float64

func (m matrix) mul(n matrix) matrix {
	var r matrix
	r[0], r[1], r[2], r[3], r[4], r[5] = mul6(m[0], m[1], m[2], m[3], m[4], m[5], n[0], n[1], n[2], n[3], n[4], n[5])
	return r
}

// mul6 is matrix.mul element by element. It inlines, and its operands
// stay in registers: the glyph loop's three products a character went
// through memory as 48-byte arrays, in calls, and were a fifth of its
// time.
func mul6(a0, a1, a2, a3, a4, a5, b0, b1, b2, b3, b4, b5 float64) (r0, r1, r2, r3, r4, r5 float64) {
	return a0*b0 + a1*b2, a0*b1 + a1*b3,
		a2*b0 + a3*b2, a2*b1 + a3*b3,
		a4*b0 + a5*b2 + b4, a4*b1 + a5*b3 + b5
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return x*m[0] + y*m[2] + m[4], x*m[1] + y*m[3] + m[5]
}

var identity = matrix{1, 0, 0, 1, 0, 0}

type gstate struct {
	ctm      matrix
	font     *font
	size     float64
	tc, tw   float64
	tz       float64 // horizontal scaling, 1 = 100%
	tl, rise float64
}

// interp runs content streams and collects characters.
type interp struct {
	f     *File
	page  *Page
	ops   int
	gs    gstate
	stack []gstate
	tm    matrix
	tlm   matrix
	err   error // the first reason the page cannot be read natively
	forms int
	limit int
	// TJ arrays' elements, reused from operator to operator.
	arrBuf []operand
	// strBuf holds the strings of the operator being read.
	strBuf []byte
	// runeBuf holds one code's text while it is placed.
	runeBuf []rune
	// The font last set by Tf, to skip the lookup when it repeats.
	fontName []byte
	fontRes  Dict
	lastFont *font
	// The previous character placed, for inserted spaces and breaks.
	prevOK               bool
	prevX1, prevY, prevH float64
	prevX0               float64
}

// ReadPage interprets page p's content and returns its characters, at
// most limit of them. An ErrUnsupported error means PDFium should read
// this page instead.
func (f *File) ReadPage(p PageRef, limit int) (*Page, error) {
	return f.ReadPageInto(p, limit, nil)
}

// ReadPageInto is ReadPage with the characters appended to chars[:0]:
// a caller done with one page's characters hands their array to the
// next page instead of growing a new one, which was most of what
// reading text allocated.
func (f *File) ReadPageInto(p PageRef, limit int, chars []Char) (*Page, error) {
	pg := &Page{}
	cb := p.CropBox
	pg.Width, pg.Height = cb[2]-cb[0], cb[3]-cb[1]
	if p.Rotate == 90 || p.Rotate == 270 {
		pg.Width, pg.Height = pg.Height, pg.Width
	}
	if p.Rotate != 0 {
		return nil, unsupported("rotated page (/Rotate %d)", p.Rotate)
	}
	in := &interp{f: f, page: pg, gs: gstate{ctm: identity, tz: 1}, limit: min(limit, maxCharsPerPage), runeBuf: make([]rune, 0, 8)}
	cbuf, _ := f.contentBufs.Get().(*contentBuf)
	if cbuf == nil {
		cbuf = &contentBuf{}
	}
	defer f.contentBufs.Put(cbuf)
	data, err := f.pageContent(p.Dict, cbuf)
	if err != nil {
		return nil, err
	}
	if cap(chars) > 0 {
		pg.Chars = chars[:0]
	} else {
		pg.Chars = make([]Char, 0, len(data)/32)
	}
	if err := in.run(data, p.Resources); err != nil {
		return nil, err
	}
	if in.err != nil {
		return nil, in.err
	}
	return pg, nil
}

// contentBuf is a reusable buffer for one page's content, with a zlib
// reader to reset: a content stream is consumed while its page is read.
type contentBuf struct {
	buf limitedBuf
	zr  io.ReadCloser
}

// pageContent concatenates the page's content streams. A single
// Flate-encoded stream is decoded into cb.
func (f *File) pageContent(d Dict, cb *contentBuf) ([]byte, error) {
	switch c := f.R(d["Contents"]).(type) {
	case *Stream:
		if names, params := f.filterList(c.Dict); len(names) == 1 && (names[0] == "FlateDecode" || names[0] == "Fl") && params[0] == nil {
			cb.buf.Reset()
			out, err := inflateInto(c.Raw, &cb.buf, cb.zr)
			if err != nil {
				return nil, fmt.Errorf("object %d, filter FlateDecode: %w", c.ref.Num, err)
			}
			if cb.zr == nil {
				if zr, err := zlib.NewReader(bytes.NewReader(c.Raw)); err == nil {
					cb.zr = zr
				}
			}
			return out, nil
		}
		return f.decode(c)
	case Array:
		var buf bytes.Buffer
		for _, x := range c {
			s, ok := f.R(x).(*Stream)
			if !ok {
				continue
			}
			b, err := f.decode(s)
			if err != nil {
				return nil, err
			}
			if buf.Len()+len(b) > maxDecoded {
				return nil, malformed("page content larger than %d bytes", maxDecoded)
			}
			buf.Write(b)
			buf.WriteByte('\n')
		}
		return buf.Bytes(), nil
	}
	return nil, nil
}

// operand is a content-stream operand, read without boxing: content
// streams are mostly numbers and short strings, and allocating each
// was most of the reader's time.
type operand struct {
	kind opKind
	num  float64
	b    []byte    // a name's or a string's bytes
	arr  []operand // an array's elements (TJ)
	obj  Object    // anything else (dictionaries, nested arrays)
}

type opKind uint8

const (
	kNum opKind = iota
	kName
	kStr
	kArr
	kObj
)

// run interprets one content stream with the resources res.
func (in *interp) run(data []byte, res Dict) error {
	l := lexer{b: data}
	var ops []operand
	for {
		l.skipWhite()
		if l.pos >= len(data) {
			return nil
		}
		// Every token counts, operands too: a form drawn many times
		// over with long operand lists is work all the same.
		in.ops++
		if in.ops > maxOpsPerPage {
			return malformed("more than %d content tokens on one page", maxOpsPerPage)
		}
		c := data[l.pos]
		if c == '[' {
			start := l.pos
			l.pos++
			elems, ok := in.array(&l)
			if !ok {
				// Nested arrays or dictionaries: the general parser.
				l.pos = start
				p := parser{lex: l, noRefs: true}
				o, err := p.object(0)
				if err != nil {
					return nil // a syntax error ends the stream, as in PDFium
				}
				l = p.lex
				ops = appendOperand(ops, operand{kind: kObj, obj: o})
				continue
			}
			ops = appendOperand(ops, operand{kind: kArr, arr: elems})
			continue
		}
		o, isOp, ok := in.token(&l)
		if !ok {
			return nil
		}
		if !isOp {
			ops = appendOperand(ops, o)
			continue
		}
		kw := o.b
		if string(kw) == "BI" {
			in.page.HasImages = true
			in.page.InlineImages++
			k := bytes.Index(data[l.pos:], []byte("EI"))
			for k >= 0 {
				end := l.pos + k
				if (end == 0 || isWhite(data[end-1])) && (end+2 >= len(data) || isWhite(data[end+2])) {
					break
				}
				n := bytes.Index(data[end+2:], []byte("EI"))
				if n < 0 {
					k = -1
					break
				}
				k += 2 + n
			}
			if k < 0 {
				return nil
			}
			l.pos += k + 2
			ops = ops[:0]
			continue
		}
		if err := in.op(kw, ops, res); err != nil {
			return err
		}
		ops = ops[:0]
		in.arrBuf = in.arrBuf[:0]
		in.strBuf = in.strBuf[:0]
	}
}

func appendOperand(ops []operand, o operand) []operand {
	if len(ops) < 64 {
		ops = append(ops, o)
	}
	return ops
}

// token reads one token that is not an array: an operand, or an
// operator (isOp, its bytes in o.b). ok is false at a syntax error.
func (in *interp) token(l *lexer) (o operand, isOp, ok bool) {
	data := l.b
	c := data[l.pos]
	switch {
	case c == '/':
		l.pos++
		start := l.pos
		for l.pos < len(data) && !isWhite(data[l.pos]) && !isDelim(data[l.pos]) {
			l.pos++
		}
		nb := data[start:l.pos]
		if bytes.IndexByte(nb, '#') >= 0 {
			l.pos = start - 1
			t, _, err := l.next()
			if err != nil {
				return o, false, false
			}
			nb = []byte(t.(Name))
		}
		return operand{kind: kName, b: nb}, false, true
	case c == '(' || c == '<' && (l.pos+1 >= len(data) || data[l.pos+1] != '<'):
		// Strings are decoded into a buffer reused from operator to
		// operator: show consumes them at once.
		n0 := len(in.strBuf)
		var full String
		var err error
		if c == '(' {
			full, err = l.litStringTo(in.strBuf)
		} else {
			full, err = l.hexStringTo(in.strBuf)
		}
		if err != nil {
			return o, false, false
		}
		in.strBuf = full
		return operand{kind: kStr, b: full[n0:len(full):len(full)]}, false, true
	case c == '<':
		p := parser{lex: *l, noRefs: true}
		obj, err := p.object(0)
		if err != nil {
			return o, false, false
		}
		*l = p.lex
		return operand{kind: kObj, obj: obj}, false, true
	case c == ']' || c == '>' || c == ')' || c == '{' || c == '}':
		l.pos++
		return operand{kind: kObj}, false, true // stray: ignored
	}
	start := l.pos
	for l.pos < len(data) && !isWhite(data[l.pos]) && !isDelim(data[l.pos]) {
		l.pos++
	}
	w := data[start:l.pos]
	if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' {
		if v, ok := fastNumber(w); ok {
			return operand{kind: kNum, num: v}, false, true
		}
	}
	switch string(w) {
	case "true", "false", "null":
		return operand{kind: kObj}, false, true
	}
	return operand{b: w}, true, true
}

// fastNumber parses a number as a float without allocating (as
// parseNumber does, without boxing the result).
func fastNumber(w []byte) (float64, bool) {
	i, neg := 0, false
	for i < len(w) && (w[i] == '-' || w[i] == '+') {
		neg = neg || w[i] == '-'
		i++
	}
	var v float64
	digits := 0
	for ; i < len(w) && w[i] >= '0' && w[i] <= '9'; i++ {
		v = v*10 + float64(w[i]-'0')
		digits++
	}
	if i < len(w) && w[i] == '.' {
		i++
		scale := 0.1
		for ; i < len(w) && w[i] >= '0' && w[i] <= '9'; i++ {
			v += float64(w[i]-'0') * scale
			scale /= 10
			digits++
		}
	}
	if i != len(w) || digits == 0 {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// array reads a flat array of numbers, strings and names after its
// "[", for TJ. ok is false for anything else inside.
func (in *interp) array(l *lexer) ([]operand, bool) {
	start := len(in.arrBuf)
	for {
		l.skipWhite()
		if l.pos >= len(l.b) {
			return nil, false
		}
		c := l.b[l.pos]
		if c == ']' {
			l.pos++
			return in.arrBuf[start:len(in.arrBuf):len(in.arrBuf)], true
		}
		if c == '[' || c == '<' && l.pos+1 < len(l.b) && l.b[l.pos+1] == '<' {
			in.arrBuf = in.arrBuf[:start]
			return nil, false
		}
		o, isOp, ok := in.token(l)
		if !ok || isOp {
			in.arrBuf = in.arrBuf[:start]
			return nil, false
		}
		if len(in.arrBuf)-start > 1<<16 {
			in.arrBuf = in.arrBuf[:start]
			return nil, false
		}
		in.arrBuf = append(in.arrBuf, o)
	}
}

// nums reads the last n operands as numbers.
func nums(ops []operand, n int) ([6]float64, bool) {
	var out [6]float64
	if len(ops) < n || n > 6 {
		return out, false
	}
	for i := range n {
		o := ops[len(ops)-n+i]
		if o.kind != kNum {
			return out, false
		}
		out[i] = o.num
	}
	return out, true
}

func lastString(ops []operand) (String, bool) {
	if len(ops) == 0 || ops[len(ops)-1].kind != kStr {
		return nil, false
	}
	return String(ops[len(ops)-1].b), true
}

func (in *interp) op(op []byte, ops []operand, res Dict) error {
	g := &in.gs
	switch string(op) {
	case "q":
		if len(in.stack) < 1024 {
			in.stack = append(in.stack, *g)
		}
	case "Q":
		if n := len(in.stack); n > 0 {
			*g = in.stack[n-1]
			in.stack = in.stack[:n-1]
		}
	case "cm":
		if v, ok := nums(ops, 6); ok {
			g.ctm = matrix(v).mul(g.ctm)
		}
	case "BT":
		in.tm, in.tlm = identity, identity
	case "Tf":
		if len(ops) >= 2 && ops[len(ops)-2].kind == kName && ops[len(ops)-1].kind == kNum {
			name := ops[len(ops)-2].b
			g.size = ops[len(ops)-1].num
			if in.fontName == nil || string(in.fontName) != string(name) || in.fontRes == nil || !sameDict(in.fontRes, res) {
				fonts := in.f.dict(res["Font"])
				fo, ok := fonts[Name(name)]
				if !ok {
					g.font = &font{err: unsupported("font /%s is not in the page's resources", name)}
				} else {
					g.font = in.f.font(fo)
				}
				in.fontName, in.fontRes, in.lastFont = append(in.fontName[:0], name...), res, g.font
			} else {
				g.font = in.lastFont
			}
		}
	case "Tc":
		if v, ok := nums(ops, 1); ok {
			g.tc = v[0]
		}
	case "Tw":
		if v, ok := nums(ops, 1); ok {
			g.tw = v[0]
		}
	case "Tz":
		if v, ok := nums(ops, 1); ok {
			g.tz = v[0] / 100
		}
	case "TL":
		if v, ok := nums(ops, 1); ok {
			g.tl = v[0]
		}
	case "Ts":
		if v, ok := nums(ops, 1); ok {
			g.rise = v[0]
		}
	case "Td":
		if v, ok := nums(ops, 2); ok {
			in.tlm = matrix{1, 0, 0, 1, v[0], v[1]}.mul(in.tlm)
			in.tm = in.tlm
		}
	case "TD":
		if v, ok := nums(ops, 2); ok {
			g.tl = -v[1]
			in.tlm = matrix{1, 0, 0, 1, v[0], v[1]}.mul(in.tlm)
			in.tm = in.tlm
		}
	case "Tm":
		if v, ok := nums(ops, 6); ok {
			in.tlm = matrix(v)
			in.tm = in.tlm
		}
	case "T*":
		in.nextLine()
	case "Tj":
		if s, ok := lastString(ops); ok {
			in.show(s)
		}
	case "'":
		in.nextLine()
		if s, ok := lastString(ops); ok {
			in.show(s)
		}
	case "\"":
		if len(ops) >= 3 {
			if v, ok := nums(ops[:len(ops)-1], 2); ok {
				g.tw, g.tc = v[0], v[1]
			}
			in.nextLine()
			if s, ok := lastString(ops); ok {
				in.show(s)
			}
		}
	case "TJ":
		if len(ops) == 0 {
			break
		}
		switch o := ops[len(ops)-1]; o.kind {
		case kArr:
			for _, e := range o.arr {
				switch e.kind {
				case kStr:
					in.show(String(e.b))
				case kNum:
					t := &in.tm
					t[0], t[1], t[2], t[3], t[4], t[5] = mul6(1, 0, 0, 1, -e.num/1000*g.size*g.tz, 0, t[0], t[1], t[2], t[3], t[4], t[5])
				}
			}
		case kObj:
			a, _ := o.obj.(Array)
			for _, e := range a {
				switch v := e.(type) {
				case String:
					in.show(v)
				case int64, float64:
					x, _ := num(v)
					in.tm = matrix{1, 0, 0, 1, -x / 1000 * g.size * g.tz, 0}.mul(in.tm)
				}
			}
		}
	case "Do":
		if len(ops) >= 1 && ops[len(ops)-1].kind == kName {
			return in.do(Name(ops[len(ops)-1].b), res)
		}
	}
	return nil
}

// sameDict reports whether a and b are the same dictionary (maps are
// compared by identity).
func sameDict(a, b Dict) bool {
	return len(a) == len(b) && len(a) > 0 && reflectPointer(a) == reflectPointer(b)
}

func (in *interp) nextLine() {
	in.tlm = matrix{1, 0, 0, 1, 0, -in.gs.tl}.mul(in.tlm)
	in.tm = in.tlm
}

// do draws an XObject: an image marks the page, a form is run with its
// own resources and matrix.
func (in *interp) do(name Name, res Dict) error {
	xo := in.f.dict(res["XObject"])
	s, ok := in.f.R(xo[name]).(*Stream)
	if !ok {
		return nil
	}
	switch st, _ := in.f.R(s.Dict["Subtype"]).(Name); st {
	case "Image":
		in.page.HasImages = true
		in.image(s, res)
	case "Form":
		if in.forms >= maxFormDepth {
			return malformed("Form XObjects nested deeper than %d (object %d)", maxFormDepth, s.ref.Num)
		}
		data, err := in.f.decodeShared(s)
		if err != nil {
			return fmt.Errorf("form XObject %d: %w", s.ref.Num, err)
		}
		saved, savedTM, savedTLM := in.gs, in.tm, in.tlm
		savedStack := len(in.stack)
		if m, ok := in.f.R(s.Dict["Matrix"]).(Array); ok && len(m) == 6 {
			var v [6]float64
			for i := range 6 {
				v[i], _ = num(in.f.R(m[i]))
			}
			in.gs.ctm = matrix(v).mul(in.gs.ctm)
		}
		fres := in.f.dict(s.Dict["Resources"])
		if fres == nil {
			fres = res
		}
		in.forms++
		err = in.run(data, fres)
		in.forms--
		in.gs, in.tm, in.tlm = saved, savedTM, savedTLM
		if len(in.stack) > savedStack {
			in.stack = in.stack[:savedStack]
		}
		return err
	}
	return nil
}

// show places the characters of one string.
func (in *interp) show(s String) {
	g := &in.gs
	ft := g.font
	if ft == nil {
		in.fail(unsupported("text shown before a font is set"))
		return
	}
	if ft.err != nil {
		in.fail(ft.err)
		return
	}
	for i := 0; i < len(s); {
		var code uint32
		if ft.twoByte {
			if i+1 >= len(s) {
				break
			}
			code = uint32(s[i])<<8 | uint32(s[i+1])
			i += 2
		} else {
			code = uint32(s[i])
			i++
		}
		var w float64
		var rs []rune
		if q := ft.simple; q != nil && code < 256 && q[code].ok {
			w, rs = q[code].w, q[code].text
		} else {
			w = ft.width(code)
			var err error
			if rs, err = ft.text(code, in.runeBuf[:0]); err != nil {
				in.fail(err)
				return
			}
		}
		// The character's matrix without the font size: Tz and Tm
		// and the CTM; the rise moves the origin.
		t, c := &in.tm, &g.ctm
		a0, a1, a2, a3, a4, a5 := mul6(g.tz, 0, 0, 1, 0, g.rise, t[0], t[1], t[2], t[3], t[4], t[5])
		var m matrix
		m[0], m[1], m[2], m[3], m[4], m[5] = mul6(a0, a1, a2, a3, a4, a5, c[0], c[1], c[2], c[3], c[4], c[5])
		in.place(rs, m, w, ft)
		adv := w*g.size + g.tc
		if !ft.twoByte && code == 32 {
			adv += g.tw
		}
		t[0], t[1], t[2], t[3], t[4], t[5] = mul6(1, 0, 0, 1, adv*g.tz, 0, t[0], t[1], t[2], t[3], t[4], t[5])
	}
}

func (in *interp) fail(err error) {
	if in.err == nil {
		in.err = err
	}
}

// place adds a character with PDFium's loose box: from the origin by the
// advance, and the font's ascent to descent scaled to the font size.
func (in *interp) place(rs []rune, m matrix, w float64, ft *font) {
	if len(rs) == 0 {
		return
	}
	pg := in.page
	if len(pg.Chars) >= in.limit {
		return
	}
	g := &in.gs
	ox, oy := m[4], m[5]
	scale := m[0] * g.size
	x1 := ox + m[0]*w*g.size
	top := oy + ft.ascent*scale/(ft.ascent-ft.descent)
	bottom := oy + ft.descent*scale/(ft.ascent-ft.descent)
	h := math.Abs(scale)
	if h == 0 {
		h = math.Hypot(m[2], m[3]) * g.size
	}
	// A space or line break where the text moves on, as PDFium inserts.
	if in.prevOK && len(pg.Chars) > 0 {
		last := pg.Chars[len(pg.Chars)-1].R
		ph := max(in.prevH, 0.01)
		dy := oy - in.prevY
		switch {
		case dy > 0.25*ph || dy < -0.375*ph || ox < in.prevX0-0.5*ph:
			if last == '-' && len(pg.Chars) > 1 && isLetter(pg.Chars[len(pg.Chars)-2].R) {
				pg.Chars[len(pg.Chars)-1].R = 0xAD // a hyphen at a line end, as PDFium marks it
			}
			pg.Chars = append(pg.Chars, Char{R: '\n', NoBox: true})
		case ox-in.prevX1 > 0.15*ph && last != ' ' && rs[0] != ' ':
			pg.Chars = append(pg.Chars, Char{R: ' ', NoBox: true})
		}
	}
	for k, r := range expand(rs) {
		c := Char{R: r, X0: float32(min(ox, x1)), X1: float32(max(ox, x1)), Y0: float32(min(bottom, top)), Y1: float32(max(bottom, top)),
			Size: float32(g.size), Weight: int32(ft.weight)}
		c.NoBox = k > 0
		pg.Chars = append(pg.Chars, c)
	}
	in.prevOK = true
	in.prevX0, in.prevX1, in.prevY, in.prevH = ox, x1, oy, h
}

func isLetter(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0xBF && r < 0x2000
}

// expand spells out Latin ligatures, as PDFium's text does.
func expand(rs []rune) []rune {
	if len(rs) != 1 {
		return rs
	}
	switch rs[0] {
	case 0xFB00:
		return []rune("ff")
	case 0xFB01:
		return []rune("fi")
	case 0xFB02:
		return []rune("fl")
	case 0xFB03:
		return []rune("ffi")
	case 0xFB04:
		return []rune("ffl")
	case 0xFB05, 0xFB06:
		return []rune("st")
	}
	return rs
}

func reflectPointer(d Dict) uintptr { return reflect.ValueOf(d).Pointer() }
