package pdfread

import (
	"fmt"
	"math"
	"strings"
)

// font is what the text interpreter needs of a font.
type font struct {
	name      string
	twoByte   bool // Type0 with Identity-H: two-byte codes
	cmap      *toUnicode
	enc       [256]rune // simple fonts: code to Unicode from the encoding
	encOK     [256]bool
	widths    map[uint32]float64 // glyph space / 1000 (CID or code)
	dw        float64            // default width
	ascent    float64            // in text space units per 1 (font size 1)
	descent   float64
	weight    int
	type3     bool
	fontScale float64 // Type3: FontMatrix[0]*1000 applied to widths; else 1
	err       error   // why this font's text cannot be read natively
	strict    bool    // codes without a width are not read natively
	// simple is a one-byte font's advance and text of every code,
	// worked out once: the glyph loop looked each character up in two
	// or three maps.
	simple *[256]simpleGlyph
}

// simpleGlyph is a one-byte code's advance and text (shared; read
// only); ok is false where text fails, to be asked again for its error.
type simpleGlyph struct {
	w    float64
	text []rune
	ok   bool
}

// maxSimpleRanges bounds the ToUnicode ranges a font with a simple
// table may have: each of its 256 codes may be looked for in all of them.
const maxSimpleRanges = 256

// fillSimple works out the simple table of a loaded one-byte font.
func (ft *font) fillSimple() {
	ft.simple = new([256]simpleGlyph)
	for c := range uint32(256) {
		g := &ft.simple[c]
		g.w = ft.width(c)
		g.text, g.ok = ft.mapText(c, nil)
	}
}

// baseWeight guesses the weight of a font without a descriptor (the
// standard 14) from its name; PDFium takes it from built-in metrics this
// package does not carry.
func baseWeight(base string) int {
	if strings.Contains(base, "Bold") {
		return 700
	}
	return 400
}

// fontWeight is PDFium's FPDFText_GetFontWeight: derived from the
// descriptor's StemV.
func fontWeight(stemV float64) int {
	v := int(stemV)
	if v < 140 {
		return v * 5
	}
	return v*4 + 140
}

// font loads the font o, once per object.
func (f *File) font(o Object) *font {
	d := f.dict(o)
	if d == nil {
		return &font{err: unsupported("font object is missing")}
	}
	r, isRef := o.(Ref)
	if !isRef {
		return f.loadFont(d)
	}
	f.mu.Lock()
	ft, ok := f.fonts[r]
	f.mu.Unlock()
	if ok {
		return ft
	}
	ft = f.loadFont(d)
	// The table costs 256 lookups: only for a font kept for the file
	// (a direct font dictionary is loaded at every Tf), and only with a
	// ToUnicode map short enough that they stay cheap.
	if !ft.twoByte && ft.err == nil && (ft.cmap == nil || len(ft.cmap.ranges) <= maxSimpleRanges) {
		ft.fillSimple()
	}
	f.mu.Lock()
	f.fonts[r] = ft
	f.mu.Unlock()
	return ft
}

func (f *File) loadFont(d Dict) *font {
	ft := &font{dw: 1, fontScale: 1, weight: 400}
	sub, _ := f.R(d["Subtype"]).(Name)
	base, _ := f.R(d["BaseFont"]).(Name)
	ft.name = string(base)
	if tu, ok := f.R(d["ToUnicode"]).(*Stream); ok {
		if data, err := f.decodeShared(tu); err == nil {
			if c, err := parseToUnicode(data); err == nil {
				ft.cmap = c
			}
		}
	}
	desc := f.dict(d["FontDescriptor"])
	switch sub {
	case "Type0":
		enc, _ := f.R(d["Encoding"]).(Name)
		if enc != "Identity-H" {
			ft.err = unsupported("Type0 font %s with encoding %v", base, f.R(d["Encoding"]))
			return ft
		}
		ft.twoByte = true
		desc = nil
		if ds, ok := f.R(d["DescendantFonts"]).(Array); ok && len(ds) > 0 {
			cid := f.dict(ds[0])
			desc = f.dict(cid["FontDescriptor"])
			ft.dw = 1
			if v, ok := num(f.R(cid["DW"])); ok {
				ft.dw = v / 1000
			}
			ft.widths = f.cidWidths(f.R(cid["W"]))
		}
		if ft.cmap == nil {
			ft.err = unsupported("Type0 font %s without a ToUnicode map", base)
		}
	case "Type1", "MMType1", "TrueType", "Type3":
		ft.type3 = sub == "Type3"
		if ft.type3 {
			if m, ok := f.R(d["FontMatrix"]).(Array); ok && len(m) == 6 {
				if v, ok := num(f.R(m[0])); ok {
					ft.fontScale = v * 1000
				}
			}
		}
		ft.widths = map[uint32]float64{}
		first, _ := f.R(d["FirstChar"]).(int64)
		if ws, ok := f.R(d["Widths"]).(Array); ok {
			for i, w := range ws {
				if v, ok := num(f.R(w)); ok {
					ft.widths[uint32(first)+uint32(i)] = v / 1000 * ft.fontScale
				}
			}
		} else if base == "Symbol" {
			// The standard 14 fonts may come without widths; PDFium has
			// their metrics built in, this package Symbol's common ones.
			for c, w := range symbolWidths {
				ft.widths[c] = w / 1000
			}
			ft.strict = true
			for c, r := range symbolText {
				ft.enc[c], ft.encOK[c] = r, true
			}
		} else {
			ft.err = unsupported("font %s has no /Widths", base)
			return ft
		}
		ft.dw = 0
		if desc != nil {
			if v, ok := num(f.R(desc["MissingWidth"])); ok {
				ft.dw = v / 1000 * ft.fontScale
			}
		}
		if !ft.strict {
			f.simpleEncoding(ft, d, desc)
		}
	default:
		ft.err = unsupported("font %s of subtype %s", base, sub)
		return ft
	}
	ft.ascent, ft.descent = 0.8, -0.2
	if desc != nil {
		a, ok1 := num(f.R(desc["Ascent"]))
		de, ok2 := num(f.R(desc["Descent"]))
		if ok1 && ok2 && a != de {
			ft.ascent, ft.descent = a/1000, de/1000
		} else if bb, ok := f.box(desc["FontBBox"]); ok && bb[3] != bb[1] {
			ft.ascent, ft.descent = bb[3]/1000, bb[1]/1000
		}
		stem, _ := num(f.R(desc["StemV"]))
		ft.weight = fontWeight(stem)
	} else {
		ft.weight = baseWeight(string(base))
	}
	return ft
}

// simpleEncoding fills a simple font's code-to-Unicode table from its
// /Encoding. A font relying on the encoding built into its font program
// (an embedded symbolic font without /Encoding) cannot be mapped here
// unless its ToUnicode map covers the codes.
func (f *File) simpleEncoding(ft *font, d, desc Dict) {
	baseEnc := standard
	builtin := true
	symbolic := false
	if desc != nil {
		flags, _ := f.R(desc["Flags"]).(int64)
		symbolic = flags&4 != 0
	}
	var diffs Array
	switch e := f.R(d["Encoding"]).(type) {
	case Name:
		if t, ok := namedEncoding(e); ok {
			baseEnc, builtin = t, false
		}
	case Dict:
		if n, ok := f.R(e["BaseEncoding"]).(Name); ok {
			if t, ok := namedEncoding(n); ok {
				baseEnc, builtin = t, false
			}
		}
		diffs, _ = f.R(e["Differences"]).(Array)
	}
	// An embedded Type 1 program without /Encoding brings its own
	// encoding, which this package does not read from the program.
	embeddedType1 := desc != nil && (desc["FontFile"] != nil || desc["FontFile3"] != nil)
	if builtin && (symbolic || ft.type3 || embeddedType1) {
		// The font program's own encoding: known only for codes the
		// Differences or the ToUnicode map cover; the rest of the page
		// goes to PDFium.
		baseEnc = [256]rune{}
	}
	for i, r := range baseEnc {
		if r != 0 {
			ft.enc[i], ft.encOK[i] = r, true
		}
	}
	code := 0
	for _, x := range diffs {
		switch v := f.R(x).(type) {
		case int64:
			code = int(v)
		case Name:
			if code >= 0 && code < 256 {
				r := nameToRune(string(v))
				ft.enc[code], ft.encOK[code] = r, r != 0
			}
			code++
		}
	}
}

func namedEncoding(n Name) ([256]rune, bool) {
	switch n {
	case "WinAnsiEncoding":
		return winAnsi, true
	case "MacRomanEncoding":
		return macRoman, true
	case "StandardEncoding":
		return standard, true
	case "PDFDocEncoding":
		return pdfDoc, true
	}
	return [256]rune{}, false
}

// cidWidths reads a CIDFont's /W array: "c [w1 w2 ...]" and "c1 c2 w".
func (f *File) cidWidths(o Object) map[uint32]float64 {
	m := map[uint32]float64{}
	a, _ := o.(Array)
	for i := 0; i < len(a); {
		c, ok := f.R(a[i]).(int64)
		if !ok || i+1 >= len(a) {
			break
		}
		switch v := f.R(a[i+1]).(type) {
		case Array:
			if c < 0 || c > math.MaxUint32 {
				return m
			}
			for k, w := range v {
				if x, ok := num(f.R(w)); ok {
					m[uint32(c)+uint32(k)] = x / 1000
				}
			}
			i += 2
		case int64, float64:
			if i+2 >= len(a) {
				return m
			}
			hi, _ := num(v)
			w, _ := num(f.R(a[i+2]))
			if c < 0 || hi < float64(c) || hi-float64(c) > maxCMapEntries || hi > math.MaxUint32 {
				return m
			}
			for k := uint32(c); k <= uint32(hi); k++ {
				m[k] = w / 1000
			}
			i += 3
		default:
			return m
		}
	}
	return m
}

// decodeShared decodes a stream used by many pages (a ToUnicode map, a
// Form XObject) once.
func (f *File) decodeShared(s *Stream) ([]byte, error) {
	f.mu.Lock()
	b, ok := f.decoded[s]
	f.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := f.decode(s)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.decoded[s] = b
	f.mu.Unlock()
	return b, nil
}

// width is a code's advance in text space for font size 1.
func (ft *font) width(code uint32) float64 {
	if w, ok := ft.widths[code]; ok {
		return w
	}
	return ft.dw
}

// text maps a code to Unicode.
func (ft *font) text(code uint32, buf []rune) ([]rune, error) {
	if rs, ok := ft.mapText(code, buf); ok {
		return rs, nil
	}
	if ft.strict {
		if _, ok := ft.widths[code]; !ok {
			return nil, unsupported("font %s: no built-in width for code %#x", ft.name, code)
		}
	}
	return nil, unsupported("font %s: code %#x has no Unicode mapping", ft.name, code)
}

// mapText is text without the error's making.
func (ft *font) mapText(code uint32, buf []rune) ([]rune, bool) {
	if ft.strict {
		if _, ok := ft.widths[code]; !ok {
			return nil, false
		}
	}
	if ft.cmap != nil {
		if r, ok := ft.cmap.lookup(code, buf); ok {
			return r, true
		}
	}
	if !ft.twoByte && code < 256 && ft.encOK[code] {
		return append(buf[:0], ft.enc[code]), true
	}
	return nil, false
}

func (ft *font) String() string { return fmt.Sprintf("font %s", ft.name) }
