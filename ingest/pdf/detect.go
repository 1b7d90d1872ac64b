package pdf

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth/ingest"
)

const maxDetectedSections = 5000

// detectOutline finds a section tree in a document without bookmarks:
// from its printed table of contents when it has one, else from its
// font sizes and weights.
func detectOutline(pages [][]line, labels []string) []*ingest.Section {
	if toc := tocOutline(pages, labels); len(toc) > 0 {
		return toc
	}
	return headingOutline(pages)
}

// tocLineRe matches a contents entry: a title, dot leaders and a page
// number.
var tocLineRe = regexp.MustCompile(`^(.*?\pL.*?)\s*[.·…_](?:\s*[.·…_]){2,}\s*([0-9]{1,4})$`)

type tocEntry struct {
	title string
	x0    float64
	page  int
}

// tocOutline reads the contents pages: pages near the front where five
// or more lines are contents entries with page numbers that mostly rise.
func tocOutline(pages [][]line, labels []string) []*ingest.Section {
	var entries []tocEntry
	front := min(len(pages), max(20, len(pages)/5))
	for p := range front {
		var es []tocEntry
		for _, l := range pages[p] {
			if m := tocLineRe.FindStringSubmatch(l.text); m != nil {
				n, _ := strconv.Atoi(m[2])
				es = append(es, tocEntry{title: strings.TrimSpace(m[1]), x0: l.x0, page: n})
			}
		}
		if len(es) < 5 {
			continue
		}
		rising := 0
		for i := 1; i < len(es); i++ {
			if es[i].page >= es[i-1].page {
				rising++
			}
		}
		if rising*10 >= (len(es)-1)*8 {
			entries = append(entries, es...)
		}
	}
	if len(entries) < 5 {
		return nil
	}
	byLabel := map[string]int{}
	for i, l := range labels {
		if _, ok := byLabel[l]; !ok && l != "" {
			byLabel[l] = i + 1
		}
	}
	// Indentation gives the level: distinct left edges, rounded.
	var xs []float64
	for _, e := range entries {
		x := math.Round(e.x0/4) * 4
		if !slices.Contains(xs, x) {
			xs = append(xs, x)
		}
	}
	slices.Sort(xs)
	flat := make([]*ingest.Section, 0, len(entries))
	for _, e := range entries {
		page := byLabel[strconv.Itoa(e.page)]
		if page == 0 && e.page >= 1 && e.page <= len(pages) {
			page = e.page
		}
		level := min(slices.Index(xs, math.Round(e.x0/4)*4)+1, 4)
		flat = append(flat, &ingest.Section{Title: e.title, Level: level, Page: page})
		if len(flat) >= maxDetectedSections {
			break
		}
	}
	return nest(flat)
}

// headingOutline finds headings by type: lines that stand alone and are
// set larger than the body text, or bold at body size. Levels follow the
// size rank, largest first.
func headingOutline(pages [][]line) []*ingest.Section {
	sizeChars := map[float64]int{}
	total := 0
	for _, ls := range pages {
		for _, l := range ls {
			n := len([]rune(l.text))
			sizeChars[l.size] += n
			total += n
		}
	}
	if total == 0 {
		return nil
	}
	body, best := 0.0, 0
	for sz, c := range sizeChars {
		if c > best {
			body, best = sz, c
		}
	}
	type cand struct {
		title string
		size  float64
		bold  bool
		page  int
	}
	var cands []cand
	for p, ls := range pages {
		for i, l := range ls {
			large := l.size >= body*1.15
			boldAlone := l.bold && l.size >= body*0.95 && (i == 0 || l.paraBefore) &&
				(i+1 == len(ls) || ls[i+1].paraBefore || !ls[i+1].bold)
			if !(large || boldAlone) || !headingText(l.text) {
				continue
			}
			// A heading set on two lines is one heading.
			if n := len(cands); n > 0 && i > 0 && cands[n-1].page == p+1 && cands[n-1].size == l.size && !l.paraBefore && ls[i-1].size == l.size {
				cands[n-1].title += " " + l.text
				continue
			}
			cands = append(cands, cand{title: l.text, size: l.size, bold: l.bold, page: p + 1})
		}
	}
	// Rank the larger sizes; a size used for too much text is not a
	// heading size. Bold body-size headings rank below all of them.
	var sizes []float64
	for _, c := range cands {
		if c.size >= body*1.15 && !slices.Contains(sizes, c.size) && sizeChars[c.size]*5 < total {
			sizes = append(sizes, c.size)
		}
	}
	slices.SortFunc(sizes, func(a, b float64) int { return cmp.Compare(b, a) })
	sizes = sizes[:min(len(sizes), 3)]
	flat := []*ingest.Section{}
	for _, c := range cands {
		level := slices.Index(sizes, c.size) + 1
		if level == 0 {
			if c.size >= body*1.15 {
				continue // a size outside the top ranks or too common
			}
			level = len(sizes) + 1
		}
		flat = append(flat, &ingest.Section{Title: c.title, Level: level, Page: c.page})
		if len(flat) >= maxDetectedSections {
			break
		}
	}
	return nest(flat)
}

// headingText reports whether s reads like a heading: short, with
// letters, not a sentence running on.
func headingText(s string) bool {
	words := strings.Fields(s)
	if len(words) == 0 || len(words) > 14 || len(s) > 100 {
		return false
	}
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	last := s[len(s)-1]
	return letters >= 2 && last != ',' && last != ';' && !strings.Contains(s, " | ")
}

// nest turns a flat list of leveled sections into a tree; levels are
// renumbered so that every child is exactly one below its parent.
func nest(flat []*ingest.Section) []*ingest.Section {
	var roots []*ingest.Section
	var stack []*ingest.Section
	for _, s := range flat {
		for len(stack) > 0 && stack[len(stack)-1].Level >= s.Level {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, s)
		} else {
			p := stack[len(stack)-1]
			p.Children = append(p.Children, s)
		}
		stack = append(stack, s)
	}
	var relevel func(ss []*ingest.Section, level int)
	relevel = func(ss []*ingest.Section, level int) {
		for _, s := range ss {
			s.Level = level
			relevel(s.Children, level+1)
		}
	}
	relevel(roots, 1)
	return roots
}
