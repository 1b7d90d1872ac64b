package markdown

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/ingest"
)

// Markdown reads Markdown.
type Markdown struct{}

var _ ingest.Extractor = Markdown{}

// heading is an ATX heading line outside code fences.
type heading struct {
	line  int // index into the lines
	level int
	title string
}

// Extract reads Markdown: the headings as the outline, one page per
// top-level section.
func (Markdown) Extract(ctx context.Context, data []byte, progress func(done, total int)) (*ingest.Document, error) {
	s, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("read Markdown: %w", err)
	}
	lines := strings.Split(s, "\n")
	hs := headings(lines)
	doc := &ingest.Document{Format: ingest.Markdown}
	top := topLevel(hs)
	if top == 0 { // no headings: page it like text
		for i, p := range pageParagraphs(paragraphs(s), PageWords) {
			doc.Pages = append(doc.Pages, ingest.Page{Number: i + 1, Text: p})
		}
	} else {
		start := 0
		cut := func(end int) {
			if t := strings.TrimSpace(strings.Join(lines[start:end], "\n")); t != "" {
				doc.Pages = append(doc.Pages, ingest.Page{Number: len(doc.Pages) + 1, Text: t})
			}
			start = end
		}
		pageAt := map[int]int{} // heading line → page
		for _, h := range hs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if h.level <= top {
				cut(h.line)
			}
			pageAt[h.line] = len(doc.Pages) + 1
		}
		cut(len(lines))
		doc.Outline = outline(hs, pageAt)
		for _, h := range hs {
			if h.level == 1 {
				doc.Title = h.title
				break
			}
		}
	}
	if len(doc.Pages) == 0 {
		return nil, fmt.Errorf("read Markdown: %w: only white space", ingest.ErrEmpty)
	}
	if progress != nil {
		progress(len(doc.Pages), len(doc.Pages))
	}
	return doc, nil
}

// headings finds the ATX headings ("## Title") outside fenced code.
func headings(lines []string) []heading {
	var hs []heading
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) > 3 {
			continue // indented code
		}
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		n := 0
		for n < len(t) && t[n] == '#' {
			n++
		}
		if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
			continue
		}
		title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[n:]), "#"))
		if title == "" {
			continue
		}
		hs = append(hs, heading{line: i, level: n, title: title})
	}
	return hs
}

// topLevel is the heading level that starts pages: the shallowest level
// used, or the next one when the shallowest is a lone document title.
func topLevel(hs []heading) int {
	count := map[int]int{}
	minL := 7
	for _, h := range hs {
		count[h.level]++
		minL = min(minL, h.level)
	}
	if minL == 7 {
		return 0
	}
	if count[minL] == 1 {
		for l := minL + 1; l <= 6; l++ {
			if count[l] > 0 {
				return l
			}
		}
	}
	return minL
}

// outline nests the headings by level.
func outline(hs []heading, pageAt map[int]int) []*ingest.Section {
	var roots []*ingest.Section
	var stack []*ingest.Section
	for _, h := range hs {
		s := &ingest.Section{Title: h.title, Level: h.level, Page: pageAt[h.line]}
		for len(stack) > 0 && stack[len(stack)-1].Level >= h.level {
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
	// Levels in the tree are depths, whatever the # count said.
	var relevel func([]*ingest.Section, int)
	relevel = func(ss []*ingest.Section, d int) {
		for _, s := range ss {
			s.Level = d
			relevel(s.Children, d+1)
		}
	}
	relevel(roots, 1)
	return roots
}
