package markdown

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/ingest"
)

const srdMD = "../../../shared/testdata/srd51/md"

func TestSRDCombat(t *testing.T) {
	b, err := os.ReadFile(srdMD + "/Gameplay/Combat.md")
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s is absent: the shared test data is not checked out beside the repository", srdMD)
	}
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Markdown{}.Extract(context.Background(), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "COMBAT" {
		t.Errorf("title = %q", doc.Title)
	}
	// Seven # sections: seven pages, each opening with its heading.
	var roots []string
	for _, s := range doc.Outline {
		roots = append(roots, s.Title)
	}
	if len(doc.Pages) != 7 || len(roots) != 7 || roots[1] != "Reactions" || roots[6] != "Underwater Combat" {
		t.Fatalf("%d pages, outline roots %q", len(doc.Pages), roots)
	}
	if doc.Outline[4].Page != 5 || !strings.HasPrefix(doc.Pages[4].Text, "# Making an Attack") {
		t.Errorf("Making an Attack on page %d, page 5 starts %.40q", doc.Outline[4].Page, doc.Pages[4].Text)
	}
	init := doc.Outline[0].Children[1]
	if p := doc.Pages[init.Page-1].Text; init.Title != "Initiative" || init.Page != 1 || !strings.Contains(p, "Initiative determines the order of turns during combat.") {
		t.Errorf("%q on page %d:\n%.200s", init.Title, init.Page, p)
	}
	if doc.Depth() < 2 {
		t.Errorf("depth = %d", doc.Depth())
	}
}

func TestMarkdown(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		pages  []string // each page's first line
		titles string   // outline as "title@page" joined by spaces, depth-first
	}{
		{"sections", "# A\none\n\n# B\ntwo\n## B1\nthree", []string{"# A", "# B"}, "A@1 B@2 B1@2"},
		{"lone title", "# Book\nintro\n## X\nx\n## Y\ny", []string{"# Book", "## X", "## Y"}, "Book@1 X@2 Y@3"},
		{"fenced hash", "# A\n```\n# not a heading\n```\n# B\nb", []string{"# A", "# B"}, "A@1 B@2"},
		{"preamble", "before\n\n# A\na\n# B", []string{"before", "# A", "# B"}, "A@2 B@3"},
		{"no headings", "one two\n\nthree", []string{"one two"}, ""},
		{"skipped level", "## A\n#### deep\n## B", []string{"## A", "## B"}, "A@1 deep@1 B@2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Markdown{}.Extract(context.Background(), []byte(tt.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			var firsts []string
			for _, p := range doc.Pages {
				firsts = append(firsts, strings.SplitN(p.Text, "\n", 2)[0])
			}
			if strings.Join(firsts, "|") != strings.Join(tt.pages, "|") {
				t.Errorf("pages start %q, want %q", firsts, tt.pages)
			}
			var ts []string
			doc.Walk(func(s *ingest.Section) { ts = append(ts, s.Title+"@"+itoa(s.Page)) })
			if strings.Join(ts, " ") != tt.titles {
				t.Errorf("outline %q, want %q", strings.Join(ts, " "), tt.titles)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestText(t *testing.T) {
	para := strings.TrimSpace(strings.Repeat("word ", 250))
	in := strings.Join([]string{para, para, para, "short one", strings.Repeat("w ", 1500)}, "\n\n")
	doc, err := Text{}.Extract(context.Background(), []byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	var words []int
	total := 0
	for _, p := range doc.Pages {
		n := len(strings.Fields(p.Text))
		words = append(words, n)
		total += n
	}
	if total != 3*250+2+1500 {
		t.Errorf("pages hold %d words, want every word once", total)
	}
	for _, n := range words {
		if n > 2*PageWords {
			t.Errorf("a page of %d words: %v", n, words)
		}
	}
	if words[0] != 500 || words[1] != 252 {
		t.Errorf("pages of %v words, want paragraphs gathered up to %d", words, PageWords)
	}
}

func TestBadText(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ingest.ErrEmpty},
		{"blank", []byte(" \n\n \t\n"), ingest.ErrEmpty},
		{"binary", []byte("abc\x00def"), ingest.ErrCorrupt},
		{"not utf-8", []byte{0xff, 0xfe, 'a', 0x80}, ingest.ErrCorrupt},
	}
	for _, tt := range tests {
		for _, e := range []ingest.Extractor{Markdown{}, Text{}} {
			if _, err := e.Extract(context.Background(), tt.in, nil); !errors.Is(err, tt.want) {
				t.Errorf("%s %T: err = %v, want %v", tt.name, e, err, tt.want)
			}
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"# A\nx\n## B\ny", "```\n# x\n", "#\n##\n", "a\n\nb"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := Markdown{}.Extract(context.Background(), b, nil)
		if err != nil {
			return
		}
		for i, p := range doc.Pages {
			if p.Number != i+1 || strings.TrimSpace(p.Text) == "" {
				t.Fatalf("page %d: %+v", i+1, p)
			}
		}
		doc.Walk(func(s *ingest.Section) {
			if s.Page < 1 || s.Page > len(doc.Pages) {
				t.Fatalf("section %q on page %d of %d", s.Title, s.Page, len(doc.Pages))
			}
		})
	})
}
