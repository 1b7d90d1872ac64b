package pdf

import (
	"math"
	"regexp"
	"slices"
	"strings"
)

// A running header or footer (a book title, a chapter name, a page
// number) sits in the top or bottom band of the page, recurs there with
// the same text, digits aside, and keeps one height on most of the
// pages it is on. It then either recurs on a large share of the pages
// or stands apart from the body text by a wide gap. Content that merely
// recurs at a page's edge (a stat block's "Hit Points" line, a table's
// header row, an "Actions" heading) moves up and down with the text and
// runs on at the body's line spacing, so it stays.
const (
	furnitureBand   = 0.09 // of the page height, top and bottom
	furnitureMin    = 3    // pages a header must be on
	furnitureShare  = 0.3  // of the pages: on as many, a header needs no gap
	furnitureSteady = 0.8  // of its pages at one height
	furnitureSlack  = 2.0  // points a header may move and still be at one height
	furnitureGap    = 2.5  // line heights between it and the body that set it apart
)

var (
	pageNumberRe = regexp.MustCompile(`^(?i:page\s+)?[-–—]?\s*([0-9]{1,4}|[ivxlcdm]{1,7})\s*[-–—]?$`)
	numberRe     = regexp.MustCompile(`\b[0-9]{1,4}\b`)
	digitsRe     = regexp.MustCompile(`[0-9]+`)
)

// bandLine is one page's line in a band, as furniture detection sees it.
type bandLine struct {
	top float64 // its top, in points
	gap float64 // white space between it and the body, in its line heights
}

// stripFurniture removes running headers, footers and bare page numbers
// from every page, in place, and returns the printed page labels found
// ("" where none was).
func stripFurniture(pages [][]line, raw []*rawPage) []string {
	labels := make([]string, len(pages))
	inBand := func(p int, l line) (string, bool) {
		h := raw[p].height
		switch {
		case l.bottom <= h*furnitureBand:
			return "h:", true
		case l.top >= h*(1-furnitureBand):
			return "f:", true
		}
		return "", false
	}
	seen := map[string][]bandLine{}
	for p, ls := range pages {
		onPage := map[string]bool{}
		for i, l := range ls {
			where, ok := inBand(p, l)
			if !ok {
				continue
			}
			k := where + furnitureKey(l.text)
			if onPage[k] {
				continue
			}
			onPage[k] = true
			seen[k] = append(seen[k], bandLine{top: l.top, gap: bodyGap(ls, i, where == "h:")})
		}
	}
	furniture := map[string]bool{}
	for k, bs := range seen {
		furniture[k] = isFurniture(bs, len(pages))
	}
	for p, ls := range pages {
		var kept []line
		for i, l := range ls {
			where, ok := inBand(p, l)
			if !ok {
				kept = append(kept, l)
				continue
			}
			text := strings.TrimSpace(l.text)
			// A bare number is a page number at the page's very edge;
			// further in it is content, a table row's number say.
			if m := pageNumberRe.FindStringSubmatch(text); m != nil && atEdge(ls, i, where == "h:") {
				labels[p] = m[1]
				continue
			}
			if furniture[where+furnitureKey(text)] {
				if labels[p] == "" {
					if nums := numberRe.FindAllString(text, -1); len(nums) > 0 {
						labels[p] = nums[len(nums)-1]
					}
				}
				continue
			}
			kept = append(kept, l)
		}
		if len(kept) > 0 {
			kept[0].paraBefore = false
		}
		pages[p] = kept
	}
	return labels
}

// isFurniture decides whether a text seen in a band on these pages, one
// bandLine a page, out of a document of pages pages, is a running
// header or footer.
func isFurniture(bs []bandLine, pages int) bool {
	n := len(bs)
	if n < furnitureMin {
		return false
	}
	// The most pages on which it sits at one height.
	tops := make([]float64, n)
	for i, b := range bs {
		tops[i] = b.top
	}
	slices.Sort(tops)
	steady := 0
	for i, j := 0, 0; i < n; i++ {
		for tops[i]-tops[j] > furnitureSlack {
			j++
		}
		steady = max(steady, i-j+1)
	}
	if float64(steady) < furnitureSteady*float64(n) {
		return false
	}
	if float64(n) >= furnitureShare*float64(pages) {
		return true
	}
	gaps := make([]float64, n)
	for i, b := range bs {
		gaps[i] = b.gap
	}
	slices.Sort(gaps)
	// The lower median: a stat block's "Challenge" line at the top of
	// a page is followed by a paragraph gap on half of its pages.
	return gaps[(n-1)/2] >= furnitureGap
}

// bodyGap measures the white space between line i and the page's other
// text below it (a header) or above it (a footer), in units of the
// line's height, which a producer's odd font size does not skew.
// A line alone on its page is infinitely far from the body.
func bodyGap(ls []line, i int, header bool) float64 {
	l := ls[i]
	gap := math.Inf(1)
	for j, o := range ls {
		switch {
		case j == i:
		case header && o.top >= l.bottom-0.5:
			gap = min(gap, o.top-l.bottom)
		case !header && o.bottom <= l.top+0.5:
			gap = min(gap, l.top-o.bottom)
		}
	}
	return max(gap, 0) / max(l.bottom-l.top, 1)
}

// atEdge reports whether no other line of the page lies wholly above
// line i (a header) or below it (a footer).
func atEdge(ls []line, i int, header bool) bool {
	l := ls[i]
	for j, o := range ls {
		if j != i && (header && o.bottom <= l.top+0.5 || !header && o.top >= l.bottom-0.5) {
			return false
		}
	}
	return true
}

// furnitureKey normalises a line so that running headers on different
// pages compare equal: digits become #, case and spacing are folded.
func furnitureKey(s string) string {
	s = digitsRe.ReplaceAllString(strings.ToLower(s), "#")
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "|", " ")), " ")
}
