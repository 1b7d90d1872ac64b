package pdf

import (
	"strings"
	"unicode"
	"unicode/utf8"

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
}

// readGlyphs reads the words of a page. Calls into PDFium are the cost
// here, so the page text comes in one call and only each word's first
// and last character are measured.
func (w *worker) readGlyphs(page requests.Page, width, height float64) ([]glyph, error) {
	tp, err := w.inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: page})
	if err != nil {
		return nil, err
	}
	defer w.inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	cc, err := w.inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return nil, err
	}
	n := min(cc.Count, w.opts.MaxPageChars)
	if n <= 0 {
		return nil, nil
	}
	runes, err := w.pageRunes(tp.TextPage, n)
	if err != nil {
		return nil, err
	}

	var out []glyph
	// Loose boxes (font ascent to descent) cost one call where tight
	// ones cost nine, and they make line heights even.
	box := func(i int) (x0, x1, top, bottom float64, ok bool) {
		b, err := w.inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp.TextPage, Index: i})
		if err != nil || b.Rect.Right <= b.Rect.Left && b.Rect.Top <= b.Rect.Bottom {
			return 0, 0, 0, 0, false
		}
		return float64(b.Rect.Left), float64(b.Rect.Right), height - float64(b.Rect.Top), height - float64(b.Rect.Bottom), true
	}
	var word strings.Builder
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
		// Size and weight are asked once per word; words whose letters
		// sit apart (a space PDFium did not insert) are split.
		size, bold := 0.0, false
		if fs, err := w.inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp.TextPage, Index: i}); err == nil {
			size = fs.FontSize
		}
		if fw, err := w.inst.FPDFText_GetFontWeight(&requests.FPDFText_GetFontWeight{TextPage: tp.TextPage, Index: i}); err == nil {
			bold = fw.FontWeight >= 600
		}
		var g glyph
		prevX0 := 0.0 // a ligature's letters share one box
		word.Reset()
		emit := func() {
			if word.Len() > 0 && g.x1 > g.x0 {
				g.text = word.String()
				g.size, g.bold = size, bold
				if g.size <= 0 {
					g.size = max(g.bottom-g.top, 1)
				}
				out = append(out, g)
			}
			word.Reset()
			g = glyph{}
		}
		for k := i; k < j; k++ {
			r := runes[k]
			if r == 2 || r == 0xAD { // PDFium's mark for a hyphen at a line end; a soft hyphen
				r = '-'
			} else if r == 0 || r == utf8.RuneError || r >= 0xFFFE || !unicode.IsPrint(r) {
				continue
			}
			x0, x1, top, bottom, ok := box(k)
			if ok && (bottom <= 0 || top >= height || x1 <= 0 || x0 >= width) {
				continue // off the page: clipped overflow some producers leave
			}
			if !ok {
				if word.Len() > 0 {
					word.WriteRune(r) // a ligature's second letter, say
				}
				continue
			}
			if word.Len() > 0 {
				h := max(size, bottom-top, 1)
				mid := (top + bottom) / 2
				if gap := x0 - g.x1; gap > spaceGap*h || gap < -0.5*h && x0 < prevX0-0.5 || mid < g.top || mid > g.bottom {
					emit()
					out = append(out, glyph{space: true})
				}
			}
			if word.Len() == 0 {
				g = glyph{x0: x0, x1: x1, top: top, bottom: bottom}
			}
			g.x0, g.x1 = min(g.x0, x0), max(g.x1, x1)
			g.top, g.bottom = min(g.top, top), max(g.bottom, bottom)
			word.WriteRune(r)
			prevX0 = x0
		}
		emit()
		i = j
	}
	return out, nil
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
