package pdf

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// glyph is a word as PDFium ordered it (or a space or line break
// between words), with its box in top-down page coordinates (y grows
// downwards from the top edge).
type glyph struct {
	text                string
	x0, x1, top, bottom float64
	size                float64
	bold                bool
	brk                 bool // a line break PDFium inserted
	space               bool // a space, real or inserted; it has no box
	join                join // how it attaches to the glyph before it (markJoins)
}

// charBox is one character's loose box in top-down page coordinates.
type charBox struct {
	x0, x1, top, bottom float64
	ok                  bool // PDFium gave the character a box
	asked               bool // PDFium was asked for it
}

// charFont is the font size and weight at one character.
type charFont struct {
	size        float64
	bold, asked bool
}

// Measuring words by their ends. Each call into PDFium costs a few
// microseconds, and measuring every character was most of a page's
// time. A word of three or more characters is measured by its first and
// last characters when those show one tight run on one line (fastWord).
// That misses a gap PDFium did not mark with a space (some producers
// space words by positioning alone), so some words of each page are
// also measured character by character: the first verifyFirst, then
// every verifyEvery-th. If any of them would split, the whole page is
// read again character by character, so such pages read as before.
// Before that, Extract reads a few probe pages character by character
// and measures by the ends only if every word of them agrees
// (measureProbe), so documents that lack spaces here and there are read
// character by character throughout.
const (
	// fastWordWidth bounds the average width of a word's inner
	// characters, in units of the font size.
	fastWordWidth = 0.7
	verifyFirst   = 16
	verifyEvery   = 4
)

// charSource answers for one text page what readGlyphs asks PDFium per
// character: through go-pdfium (pdfiumText) or directly (rawTextPage).
type charSource interface {
	// looseBox is the character's box in PDF coordinates (y up).
	looseBox(i int) (left, top, right, bottom float32, ok bool)
	// font is its font size and weight (negative when unknown).
	font(i int) (size float64, weight int, ok bool)
}

// pdfiumText is a text page read through go-pdfium's calls.
type pdfiumText struct {
	inst pdfium.Pdfium
	tp   references.FPDF_TEXTPAGE
}

func (t pdfiumText) looseBox(i int) (left, top, right, bottom float32, ok bool) {
	r, err := t.inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: t.tp, Index: i})
	if err != nil {
		return 0, 0, 0, 0, false
	}
	return r.Rect.Left, r.Rect.Top, r.Rect.Right, r.Rect.Bottom, true
}

func (t pdfiumText) font(i int) (size float64, weight int, ok bool) {
	fs, err := t.inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: t.tp, Index: i})
	if err != nil {
		return 0, -1, false
	}
	weight = -1
	if fw, err := t.inst.FPDFText_GetFontWeight(&requests.FPDFText_GetFontWeight{TextPage: t.tp, Index: i}); err == nil {
		weight = fw.FontWeight
	}
	return fs.FontSize, weight, true
}

// pageText is what readGlyphs asks PDFium once per page and character.
type pageText struct {
	src           charSource
	runes         []rune
	boxes         []charBox
	fonts         []charFont
	width, height float64
	buf           []glyph // the glyphs' array to reuse, if any
	word          []byte  // slowWord's word being built
}

// box returns character i's loose box (font ascent to descent: one call
// where a tight box costs nine, and line heights come out even).
func (t *pageText) box(i int) charBox {
	if t.boxes == nil {
		return t.loadBox(i)
	}
	if b := t.boxes[i]; b.asked {
		return b
	}
	b := t.loadBox(i)
	t.boxes[i] = b
	return b
}

func (t *pageText) loadBox(i int) charBox {
	b := charBox{asked: true}
	l, top, r, bot, ok := t.src.looseBox(i)
	if ok && !(r <= l && top <= bot) {
		b = charBox{float64(l), float64(r), t.height - float64(top), t.height - float64(bot), true, true}
	}
	return b
}

func (t *pageText) font(i int) charFont {
	if t.fonts != nil {
		if f := t.fonts[i]; f.asked {
			return f
		}
	}
	f := charFont{asked: true}
	if size, weight, ok := t.src.font(i); ok {
		f.size, f.bold = size, weight >= 600
	}
	if t.fonts != nil {
		t.fonts[i] = f
	}
	return f
}

// offPage reports a box outside the page: clipped overflow some
// producers leave.
func (t *pageText) offPage(b charBox) bool {
	return b.ok && (b.bottom <= 0 || b.top >= t.height || b.x1 <= 0 || b.x0 >= t.width)
}

// How readGlyphs measures words.
type measure int

const (
	measureChars measure = iota // every character
	measureEnds                 // by the ends, checking some words
	measureProbe                // every character, noting whether measuring by the ends would agree
)

// readGlyphs reads the words of a page through go-pdfium. The page
// text comes in one call, size and weight are asked once per word, and
// in measureEnds most words are measured by their first and last
// characters only. endsOK reports, for measureProbe, whether that
// would have given the same glyphs.
func (w *worker) readGlyphs(page requests.Page, width, height float64, mode measure) (glyphs []glyph, endsOK bool, err error) {
	tp, err := w.inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: page})
	if err != nil {
		return nil, false, err
	}
	defer w.inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	cc, err := w.inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return nil, false, err
	}
	n := min(cc.Count, w.opts.MaxPageChars)
	if n <= 0 {
		return nil, true, nil
	}
	runes, err := w.pageRunes(tp.TextPage, n)
	if err != nil {
		return nil, false, err
	}
	glyphs, endsOK = measureGlyphs(pdfiumText{w.inst, tp.TextPage}, runes, width, height, mode, nil)
	return glyphs, endsOK, nil
}

// measureGlyphs makes the glyphs of a page's text as mode says,
// appending them to buf[:0].
func measureGlyphs(src charSource, runes []rune, width, height float64, mode measure, buf []glyph) ([]glyph, bool) {
	n := len(runes)
	t := &pageText{src: src, runes: runes, width: width, height: height, buf: buf}
	if _, cheap := src.(nativeText); !cheap {
		// Each answer costs a call into PDFium: keep them.
		t.boxes, t.fonts = make([]charBox, n), make([]charFont, n)
	}
	out, ok := t.glyphs(mode)
	if !ok && mode == measureEnds {
		out, _ = t.glyphs(measureChars)
	}
	return out, ok
}

// glyphs splits the page text into words and measures them as mode
// says. It reports false when a checked word shows that measuring by
// the ends is wrong on this page; in measureEnds it then stops early.
func (t *pageText) glyphs(mode measure) ([]glyph, bool) {
	out := t.buf[:0]
	var idx []int    // the word's printable characters' indices
	var chars []rune // and their runes
	seen := 0        // words measured by their ends
	agree := true
	runes, n := t.runes, len(t.runes)
	for i := 0; i < n; {
		r := runes[i]
		switch {
		case r == '\r' || r == '\n':
			out = append(out, glyph{brk: true})
			i++
			continue
		case unicode.IsSpace(r):
			out = append(out, glyph{space: true})
			i++
			continue
		}
		j := i
		for j < n && !unicode.IsSpace(runes[j]) {
			j++
		}
		idx, chars = idx[:0], chars[:0]
		for k := i; k < j; k++ {
			r := runes[k]
			if r == 2 || r == 0xAD || r == 0xFFFE { // PDFium's marks for a hyphen at a line end; a soft hyphen
				r = softHyphen
			} else if r == 0 || r == utf8.RuneError || r >= 0xFFFE || !unicode.IsPrint(r) {
				continue
			}
			idx, chars = append(idx, k), append(chars, r)
		}
		if len(idx) == 0 {
			i = j
			continue
		}
		// Size and weight are asked once per word; words whose letters
		// sit apart (a space PDFium did not insert) are split.
		f := t.font(i)
		i = j
		if m := len(idx); mode != measureChars && m >= 3 {
			if g, ok := t.fastWord(idx[0], idx[m-1], m, f.size); ok {
				g.text = string(chars)
				g.size, g.bold = glyphSize(f.size, g), f.bold
				if mode == measureProbe {
					slow := t.slowWord(out, idx, chars, f)
					agree = agree && len(slow) == len(out)+1 && sameWord(slow[len(out)], g)
					out = slow
					continue
				}
				if seen < verifyFirst || seen%verifyEvery == 0 {
					if slow := t.slowWord(nil, idx, chars, f); len(slow) != 1 || !sameWord(slow[0], g) {
						return nil, false
					}
				}
				seen++
				out = append(out, g)
				continue
			}
		}
		out = t.slowWord(out, idx, chars, f)
	}
	return out, agree
}

// glyphSize is a glyph's font size: the one PDFium reports, or the
// height of its box where that is unknown or more than three times off.
// Some producers set text at size 150 and shrink it with the text
// matrix; PDFium reports 150, and a 9-point footer taken for 150 points
// tall swallows the last line of the page above it.
func glyphSize(reported float64, g glyph) float64 {
	h := g.bottom - g.top
	if reported <= 0 || h > 0 && (reported > 3*h || 3*reported < h) {
		return max(h, 1)
	}
	return reported
}

// sameWord reports whether measuring by the ends gave g where measuring
// every character gave the one glyph s.
func sameWord(s, g glyph) bool {
	far := func(a, b float64) bool { return a-b > 0.5 || b-a > 0.5 }
	return s.text == g.text && !far(s.x0, g.x0) && !far(s.x1, g.x1) && !far(s.top, g.top) && !far(s.bottom, g.bottom)
}

// fastWord makes the glyph of the word of m characters from a to b from
// their boxes when those show one tight run on one line: both on the
// page, b right of a on the same line, and no wider than fastWordWidth
// per inner character. The caller sets the text, size and weight.
func (t *pageText) fastWord(a, b, m int, size float64) (glyph, bool) {
	first, last := t.box(a), t.box(b)
	if !first.ok || !last.ok || t.offPage(first) || t.offPage(last) {
		return glyph{}, false
	}
	h := max(size, first.bottom-first.top, last.bottom-last.top, 1)
	mid0, mid1 := (first.top+first.bottom)/2, (last.top+last.bottom)/2
	if last.x0 < first.x0 || mid1 < first.top || mid1 > first.bottom || mid0 < last.top || mid0 > last.bottom {
		return glyph{}, false
	}
	if last.x0-first.x1 > float64(m-2)*fastWordWidth*h {
		return glyph{}, false
	}
	return glyph{
		x0: min(first.x0, last.x0), x1: max(first.x1, last.x1),
		top: min(first.top, last.top), bottom: max(first.bottom, last.bottom),
	}, true
}

// slowWord measures a word character by character, splitting it where
// its letters sit apart, and appends its glyphs to out.
func (t *pageText) slowWord(out []glyph, idx []int, chars []rune, f charFont) []glyph {
	// The word's bytes go to a buffer kept from word to word, so its
	// text is one allocation of its size.
	word := t.word[:0]
	var g glyph
	prevX0 := 0.0 // a ligature's letters share one box
	emit := func() {
		if len(word) > 0 && g.x1 > g.x0 {
			g.text = string(word)
			g.size, g.bold = glyphSize(f.size, g), f.bold
			out = append(out, g)
		}
		word = word[:0]
		g = glyph{}
	}
	for p, k := range idx {
		r := chars[p]
		b := t.box(k)
		if t.offPage(b) {
			continue // off the page: clipped overflow some producers leave
		}
		if !b.ok {
			if len(word) > 0 {
				word = utf8.AppendRune(word, r) // a ligature's second letter, say
			}
			continue
		}
		if len(word) > 0 {
			h := max(f.size, b.bottom-b.top, 1)
			mid := (b.top + b.bottom) / 2
			if gap := b.x0 - g.x1; gap > spaceGap*h || gap < -0.5*h && b.x0 < prevX0-0.5 || mid < g.top || mid > g.bottom {
				emit()
				out = append(out, glyph{space: true})
			}
		}
		if len(word) == 0 {
			g = glyph{x0: b.x0, x1: b.x1, top: b.top, bottom: b.bottom}
		}
		g.x0, g.x1 = min(g.x0, b.x0), max(g.x1, b.x1)
		g.top, g.bottom = min(g.top, b.top), max(g.bottom, b.bottom)
		word = utf8.AppendRune(word, r)
		prevX0 = b.x0
	}
	emit()
	t.word = word
	return out
}

// pageRunes returns the page's first n characters, one rune per PDFium
// character index: from one FPDFText_GetText call when its length
// matches, else character by character.
func (w *worker) pageRunes(tp references.FPDF_TEXTPAGE, n int) ([]rune, error) {
	if t, err := w.inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp, StartIndex: 0, Count: n}); err == nil {
		rs := []rune(strings.TrimSuffix(t.Text, "\x00"))
		if len(rs) == n {
			return rs, nil
		}
	}
	rs := make([]rune, n)
	for i := range n {
		u, err := w.inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp, Index: i})
		if err != nil {
			return nil, err
		}
		rs[i] = rune(u.Unicode)
	}
	return rs, nil
}
