package pdf

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// seg is a run of glyphs on one baseline with no wide gap inside: a
// line of a column, a table cell, a margin note's line.
type seg struct {
	text                string
	x0, x1, top, bottom float64
	size                float64
	chars, bold         int
}

// line is a line of text as read, in page coordinates (top-down).
type line struct {
	text                string
	x0, x1, top, bottom float64
	size                float64 // dominant font size
	bold                bool    // most of its characters are bold
	paraBefore          bool    // a paragraph gap precedes it
}

// Gaps, in units of the font size: wider than segGap splits a segment
// (a gutter or a table cell), wider than spaceGap is a missing space.
const (
	segGap   = 0.9
	spaceGap = 0.15
)

// buildSegments groups glyphs, in PDFium's order, into segments.
func buildSegments(gs []glyph) []seg {
	var segs []seg
	var b []byte // the segment's text, one buffer for all of them
	var cur seg
	var prev *glyph
	pendingSpace := false
	flush := func() {
		if cur.chars > 0 {
			if t := bytes.TrimSpace(b); len(t) > 0 {
				cur.text = string(t)
				segs = append(segs, cur)
			}
		}
		b = b[:0]
		cur = seg{}
		prev = nil
		pendingSpace = false
	}
	markJoins(gs)
	pendingBrk := false
	for i := range gs {
		g := &gs[i]
		if g.brk {
			pendingBrk = prev != nil
			continue
		}
		if g.space {
			pendingSpace = prev != nil
			continue
		}
		if prev != nil {
			h := max(g.size, 1)
			mid := (g.top + g.bottom) / 2
			sameLine := mid > cur.top-0.2*h && mid < cur.bottom+0.2*h
			gap := g.x0 - prev.x1
			switch {
			case g.join == joinGlue:
			case g.join == joinSpace:
				b = append(b, ' ')
			case !sameLine || gap > segGap*h || gap < -0.5*h || pendingBrk && !continuesAfterBreak(prev, g):
				flush()
			case pendingSpace || gap > spaceGap*h:
				b = append(b, ' ')
			case pendingBrk && gap > 0.05*h:
				// PDFium broke the line here; without a clear gap it is
				// the next word, with none at all (a superscript, a
				// letter drawn on its own) the same word.
				b = append(b, ' ')
			}
		}
		if cur.chars == 0 {
			cur = seg{x0: g.x0, x1: g.x1, top: g.top, bottom: g.bottom, size: g.size}
		}
		b = append(b, g.text...)
		cur.x0, cur.x1 = min(cur.x0, g.x0), max(cur.x1, g.x1)
		cur.top, cur.bottom = min(cur.top, g.top), max(cur.bottom, g.bottom)
		cur.size = max(cur.size, g.size)
		nc := utf8.RuneCountInString(g.text)
		cur.chars += nc
		if g.bold {
			cur.bold += nc
		}
		prev = g
		pendingSpace, pendingBrk = false, false
	}
	flush()
	return segs
}

// continuesAfterBreak reports whether g, after a line break PDFium
// inserted, still goes on the line of p: at most a segment gap to its
// right, measured by their boxes (the font size some producers report
// is far off), and level with it.
func continuesAfterBreak(p, g *glyph) bool {
	h := max(p.bottom-p.top, 1)
	gap := g.x0 - p.x1
	mid, pmid := (g.top+g.bottom)/2, (p.top+p.bottom)/2
	return gap > -0.1*h && gap < segGap*h && (mid > p.top && mid < p.bottom || pmid > g.top && pmid < g.bottom)
}

// gutter is a vertical strip of white space that separates columns.
type gutter struct{ lo, hi float64 }

// findGutters finds the gutters of a page: strips no narrow segment
// crosses, with text-like columns on both sides that sit beside each
// other on at least two lines. Segments spanning most of the text width
// (full-width headings, tables, paragraphs) are left out of the search,
// so a page mixing full-width blocks and columns still has its gutter.
func findGutters(segs []seg) []gutter {
	if len(segs) < 6 {
		return nil
	}
	left, right := math.Inf(1), math.Inf(-1)
	for _, s := range segs {
		left, right = min(left, s.x0), max(right, s.x1)
	}
	width := right - left
	if width < 50 {
		return nil
	}
	const bin = 1.0
	n := int(width/bin) + 1
	cover := make([]int, n)
	var narrow []seg
	for _, s := range segs {
		if s.x1-s.x0 > 0.75*width {
			continue
		}
		narrow = append(narrow, s)
		for k := int((s.x0 - left) / bin); k <= int((s.x1-left)/bin) && k < n; k++ {
			cover[max(k, 0)]++
		}
	}
	var out []gutter
	for k := 0; k < n; {
		if cover[k] != 0 {
			k++
			continue
		}
		j := k
		for j < n && cover[j] == 0 {
			j++
		}
		g := gutter{lo: left + float64(k)*bin, hi: left + float64(j)*bin}
		k = j
		if g.hi-g.lo < 6 || g.lo <= left || g.hi >= right {
			continue
		}
		if columnsBeside(narrow, g) {
			out = append(out, g)
		}
	}
	return out
}

// columnsBeside reports whether the gutter g has text columns on both
// sides: at least three segments each, averaging ten or more characters
// (table cells are shorter), side by side on two or more lines.
func columnsBeside(segs []seg, g gutter) bool {
	var l, r []seg
	lc, rc := 0, 0
	for _, s := range segs {
		switch {
		case s.x1 <= g.lo:
			l, lc = append(l, s), lc+s.chars
		case s.x0 >= g.hi:
			r, rc = append(r, s), rc+s.chars
		}
	}
	if len(l) < 3 || len(r) < 3 || lc < 10*len(l) || rc < 10*len(r) {
		return false
	}
	beside := 0
	for _, a := range r {
		for _, b := range l {
			if overlapY(a, b) > 0.5*min(a.bottom-a.top, b.bottom-b.top) {
				beside++
				break
			}
		}
	}
	return beside >= 2
}

func overlapY(a, b seg) float64 { return min(a.bottom, b.bottom) - max(a.top, b.top) }

// orderLines puts a page's segments into reading order: columns band by
// band, top to bottom, and a full-width block between the column
// stretches above and below it.
func orderLines(segs []seg, pageW, pageH float64) []line {
	if len(segs) == 0 {
		return nil
	}
	gutters := findGutters(segs)
	band := func(s seg) int {
		b := 0
		for _, g := range gutters {
			switch {
			case s.x1 <= g.hi+1 && s.x0 < g.lo:
				return b
			case s.x0 >= g.lo-1:
				b++
			default:
				return -1 // crosses the gutter
			}
		}
		return b
	}
	sorted := slices.Clone(segs)
	slices.SortStableFunc(sorted, func(a, b seg) int { return cmp.Compare(a.top, b.top) })

	var out []line
	bands := make([][]seg, len(gutters)+1)
	flush := func() {
		for i, bs := range bands {
			out = append(out, groupLines(bs)...)
			bands[i] = nil
		}
	}
	for _, s := range sorted {
		b := band(s)
		if b < 0 {
			flush()
			// Segments of the same full-width line come together.
			out = append(out, groupLines([]seg{s})...)
			continue
		}
		bands[b] = append(bands[b], s)
	}
	flush()
	return mergeSameLine(out)
}

// groupLines joins segments of one column into lines, top to bottom.
func groupLines(segs []seg) []line {
	if len(segs) == 0 {
		return nil
	}
	slices.SortStableFunc(segs, func(a, b seg) int { return cmp.Compare(a.top, b.top) })
	var out []line
	var row []seg
	emit := func() {
		if len(row) == 0 {
			return
		}
		slices.SortStableFunc(row, func(a, b seg) int { return cmp.Compare(a.x0, b.x0) })
		out = append(out, rowLine(row))
		row = row[:0]
	}
	for _, s := range segs {
		if len(row) > 0 {
			last := row[0]
			if overlapY(s, last) < 0.5*min(s.bottom-s.top, last.bottom-last.top) {
				emit()
			}
		}
		row = append(row, s)
	}
	emit()
	return out
}

// rowLine joins the segments of one row; wide gaps become " | " so
// table rows keep their cells apart.
func rowLine(row []seg) line {
	var b strings.Builder
	n := 0
	for _, s := range row {
		n += len(s.text) + 3
	}
	b.Grow(n)
	l := line{x0: row[0].x0, x1: row[0].x1, top: row[0].top, bottom: row[0].bottom}
	chars, bold := 0, 0
	sizeChars := map[float64]int{}
	for i, s := range row {
		if i > 0 {
			if s.x0-row[i-1].x1 > 1.5*max(s.size, 1) {
				b.WriteString(" | ")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(s.text)
		l.x0, l.x1 = min(l.x0, s.x0), max(l.x1, s.x1)
		l.top, l.bottom = min(l.top, s.top), max(l.bottom, s.bottom)
		chars += s.chars
		bold += s.bold
		sizeChars[math.Round(s.size*2)/2] += s.chars
	}
	best := 0
	for sz, c := range sizeChars {
		if c > best || c == best && sz > l.size {
			l.size, best = sz, c
		}
	}
	l.text = b.String()
	l.bold = bold*10 >= chars*6
	return l
}

// mergeSameLine marks paragraph gaps: a line starting well below the
// one before it in the same column.
func mergeSameLine(ls []line) []line {
	for i := 1; i < len(ls); i++ {
		p, c := ls[i-1], ls[i]
		gap := c.top - p.bottom
		if gap > 0.6*max(c.size, 1) || c.top < p.top {
			ls[i].paraBefore = true
		}
	}
	return ls
}

// joinLines renders a page's lines as text.
func joinLines(ls []line) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			if l.paraBefore {
				b.WriteString("\n\n")
			} else {
				b.WriteByte('\n')
			}
		}
		b.WriteString(l.text)
	}
	return b.String()
}
