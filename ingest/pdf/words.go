package pdf

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// join says how a glyph attaches to the text glyph before it on its line.
type join uint8

const (
	joinByGap join = iota // by the gap between them (buildSegments)
	joinGlue              // same word, whatever the gap or PDFium's marks
	joinSpace             // next word on the same line: one space
)

// Letter-spaced runs. Some headings set their letters apart ("A L E X
// S C H R O E D E R", tracking of a fifth of an em) or draw each letter
// on its own, so PDFium puts a space or a line break after every
// letter. No fixed gap separates letters from words there: a word break
// is a gap a space wider than the run's letter spacing.
const (
	spacedMinRun = 4    // glyphs in a run, at least
	spacedMaxGap = 0.45 // the letter spacing is narrower than this (em)
	spacedJump   = 0.08 // word gaps are wider than letter gaps by this (em)
)

// markJoins decides, for letter-spaced runs and superscripts, how each
// text glyph joins the one before it, overriding PDFium's spaces and
// line breaks between them.
func markJoins(gs []glyph) {
	var run []int // indices of the current run of short glyphs on one line
	prev := -1
	for i := range gs {
		g := &gs[i]
		if g.brk || g.space {
			continue
		}
		if prev >= 0 && superscriptAfterNumber(&gs[prev], g) {
			g.join = joinGlue
		}
		if short(g) && len(run) > 0 && prev == run[len(run)-1] && nextInRun(&gs[prev], g) {
			run = append(run, i)
		} else {
			markSpaced(gs, run)
			run = append(run[:0], i)
			if !short(g) {
				run = run[:0]
			}
		}
		prev = i
	}
	markSpaced(gs, run)
}

// short reports a glyph of one letter, or two (a ligature, or two
// letters PDFium did not part).
func short(g *glyph) bool {
	n := utf8.RuneCountInString(g.text)
	return n == 1 || n == 2
}

// nextInRun reports whether g follows p on the same line, close enough
// to be the next letter or word of a letter-spaced heading, in the same
// size.
func nextInRun(p, g *glyph) bool {
	h := max(p.size, 1)
	mid := (g.top + g.bottom) / 2
	gap := g.x0 - p.x1
	return mid > p.top && mid < p.bottom && gap > -0.5*h && gap < segGap*h &&
		g.size > 0.9*p.size && g.size < 1.1*p.size
}

// markSpaced marks the joins of a run of short glyphs if it is letter
// spaced: long enough, mostly single letters, and most gaps alike and
// narrower than spacedMaxGap. The gaps fall into letter gaps and word
// gaps at their widest jump, if that jump is wider than spacedJump;
// tracking and kerning move letter gaps by less.
func markSpaced(gs []glyph, run []int) {
	if len(run) < spacedMinRun {
		return
	}
	letters := 0
	for _, i := range run {
		r, n := utf8.DecodeRuneInString(gs[i].text)
		if n == len(gs[i].text) && unicode.IsLetter(r) {
			letters++
		}
	}
	if letters*2 < len(run) || letters < spacedMinRun-1 {
		return
	}
	h := max(gs[run[0]].size, 1)
	gaps := make([]float64, len(run)-1)
	for k := 1; k < len(run); k++ {
		gaps[k-1] = gs[run[k]].x0 - gs[run[k-1]].x1
	}
	sorted := slices.Clone(gaps)
	slices.Sort(sorted)
	cut, jump := math.Inf(1), spacedJump*h
	for k := 1; k < len(sorted); k++ {
		if d := sorted[k] - sorted[k-1]; d > jump {
			cut, jump = (sorted[k]+sorted[k-1])/2, d
		}
	}
	letterGaps := 0
	widest := sorted[0]
	for _, d := range gaps {
		if d < cut {
			letterGaps++
			widest = max(widest, d)
		}
	}
	// Mostly letter gaps, and narrower than a space: else these are
	// short words set normally.
	if letterGaps*3 < len(gaps)*2 || widest > spacedMaxGap*h {
		return
	}
	for k, d := range gaps {
		if d < cut {
			gs[run[k+1]].join = joinGlue
		} else {
			gs[run[k+1]].join = joinSpace
		}
	}
}

// superscriptAfterNumber reports a superscript ordinal: letters in a
// smaller size, raised above the baseline, right after a number ("3rd").
func superscriptAfterNumber(p, g *glyph) bool {
	last, _ := utf8.DecodeLastRuneInString(p.text)
	if !unicode.IsDigit(last) || g.text == "" || p.size <= 0 {
		return false
	}
	for _, r := range g.text {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	gap := g.x0 - p.x1
	return g.size < 0.9*p.size && g.bottom < p.bottom-0.1*p.size && g.bottom > p.top &&
		gap > -0.2*p.size && gap < spaceGap*p.size*2
}

// softHyphen stands, in glyph and line text, for a hyphen PDFium found at
// the end of a line, until dehyphenate decides what it becomes.
const softHyphen = '\u00ad'

// dehyphenate joins words hyphenated across lines: a line ending in a
// hyphen PDFium marked, followed by a line of the same paragraph that
// goes on in lower case, takes that line's first word ("inspira-" +
// "tion. The cost" gives "inspiration." and "The cost"). Every other
// marked hyphen is printed as "-". It returns ls without lines so
// emptied.
func dehyphenate(ls []line) []line {
	for i := range ls {
		l := &ls[i]
		if !strings.ContainsRune(l.text, softHyphen) {
			continue
		}
		if stem, ok := strings.CutSuffix(l.text, string(softHyphen)); ok && i+1 < len(ls) && continuesWord(stem, ls[i+1]) {
			word, rest, _ := strings.Cut(ls[i+1].text, " ")
			l.text = stem + word
			ls[i+1].text = strings.TrimSpace(rest)
		}
		l.text = strings.ReplaceAll(l.text, string(softHyphen), "-")
	}
	return slices.DeleteFunc(ls, func(l line) bool { return l.text == "" })
}

// continuesWord reports whether next carries on the word that stem, a
// line without its final hyphen, broke off: same paragraph, no table
// cells or margin notes beside either (the next line in reading order
// may then be another cell's), a lower-case letter next ("Arrow-" +
// "Catching" keeps its hyphen), and a stem word without digits or
// hyphens of its own ("3rd-" + "level", "10-foot-" + "radius").
func continuesWord(stem string, next line) bool {
	if next.paraBefore || strings.Contains(stem, " | ") || strings.Contains(next.text, " | ") {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(next.text); !unicode.IsLower(r) {
		return false
	}
	last := stem[strings.LastIndexByte(stem, ' ')+1:]
	return last != "" && !strings.ContainsFunc(last, func(r rune) bool {
		return unicode.IsDigit(r) || r == '-' || r == softHyphen
	})
}
