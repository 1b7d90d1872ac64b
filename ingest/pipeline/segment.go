package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/ingest"
)

// SegmentWords is the size a segment is cut at, between paragraphs.
const SegmentWords = 600

// minWords is the least a segment holds before a deep heading may start
// the next one: a run of tiny subsections stays together.
const minWords = 150

// Segment is one section of the book: the unit of a pack file and of
// classification.
type Segment struct {
	Title string   `json:"title"`
	Path  []string `json:"path,omitempty"` // heading path, outermost first
	Page  int      `json:"page"`           // where it starts
	Text  string   `json:"text"`
	Words int      `json:"words"`
}

// Structure is the outline the later stages use, and each page's place
// in it.
type Structure struct {
	Outline []*ingest.Section `json:"outline,omitempty"`
	// PagePath[i] is the outline path in force on page i+1.
	PagePath [][]string `json:"page_path"`
}

// structure finds the outline: the document's own, else the Markdown
// headings in its text; and the section path of every page.
func structure(doc *ingest.Document) Structure {
	s := Structure{Outline: doc.Outline}
	if len(s.Outline) == 0 {
		var flat []*ingest.Section
		for _, p := range doc.Pages {
			for _, l := range strings.Split(p.Text, "\n") {
				if lv, t, ok := atx(l); ok {
					flat = append(flat, &ingest.Section{Title: t, Level: lv, Page: p.Number})
				}
			}
		}
		s.Outline = nest(flat)
	}
	starts := map[int][]string{} // page → the deepest path that starts on it
	var walk func(ss []*ingest.Section, path []string)
	walk = func(ss []*ingest.Section, path []string) {
		for _, sec := range ss {
			p := append(slices.Clip(path), sec.Title)
			if sec.Page > 0 {
				if _, ok := starts[sec.Page]; !ok || len(p) >= len(starts[sec.Page]) {
					starts[sec.Page] = p
				}
			}
			walk(sec.Children, p)
		}
	}
	walk(s.Outline, nil)
	var cur []string
	s.PagePath = make([][]string, len(doc.Pages))
	for i := range doc.Pages {
		if p, ok := starts[i+1]; ok {
			cur = p
		}
		s.PagePath[i] = cur
	}
	return s
}

// nest builds a tree from headings in order.
func nest(flat []*ingest.Section) []*ingest.Section {
	var roots, stack []*ingest.Section
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
	return roots
}

// atx parses a Markdown heading line.
func atx(line string) (int, string, bool) {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n >= len(line) || line[n] != ' ' {
		return 0, "", false
	}
	t := strings.TrimSpace(strings.TrimRight(line[n:], "# "))
	return n, t, t != ""
}

// segment cuts the pages into sections of about SegmentWords words: a new
// one at every top heading, at a deeper heading once the current one has
// minWords, where the outline starts a new section on a page, and between
// paragraphs past SegmentWords.
func segment(doc *ingest.Document, st Structure) []Segment {
	var out []Segment
	var cur *Segment
	var headPath []string // from # lines
	var headLevels []int
	part := 1
	flush := func() {
		if cur != nil && strings.TrimSpace(cur.Text) != "" {
			cur.Text = strings.TrimSpace(cur.Text)
			out = append(out, *cur)
		}
		cur = nil
	}
	open := func(page int, pagePath []string) {
		path := headPath
		if len(path) == 0 {
			path = pagePath
		}
		title := fmt.Sprintf("Page %d", page)
		if len(path) > 0 {
			title = path[len(path)-1]
		}
		if part > 1 {
			title = fmt.Sprintf("%s (part %d)", title, part)
		}
		cur = &Segment{Title: title, Path: slices.Clone(path), Page: page}
	}
	for i, p := range doc.Pages {
		pagePath := st.PagePath[i]
		if i > 0 && !slices.Equal(pagePath, st.PagePath[i-1]) && len(headPath) == 0 {
			flush()
			part = 1
		}
		for _, block := range strings.Split(p.Text, "\n\n") {
			block = strings.TrimSpace(block)
			if block == "" {
				continue
			}
			if lv, t, ok := atx(block); ok && !strings.Contains(block, "\n") {
				for len(headLevels) > 0 && headLevels[len(headLevels)-1] >= lv {
					headLevels, headPath = headLevels[:len(headLevels)-1], headPath[:len(headPath)-1]
				}
				headLevels, headPath = append(headLevels, lv), append(slices.Clip(headPath), t)
				if cur != nil && (lv <= 2 || cur.Words >= minWords) {
					flush()
				}
				if cur == nil {
					part = 1
				}
			}
			w := len(strings.Fields(block))
			if cur != nil && cur.Words > 0 && cur.Words+w > SegmentWords {
				flush()
				part++
			}
			if cur == nil {
				open(p.Number, pagePath)
			}
			cur.Text += block + "\n\n"
			cur.Words += w
		}
	}
	flush()
	return out
}
