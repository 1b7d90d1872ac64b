package pdf

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// lettersAt lays text out as one glyph per character from x on the line
// top..top+size, each advance wide, with gap between letters and
// wordGap more at each space; brk puts PDFium's line break after every
// letter (letters drawn one by one), else a space marker parts words.
func lettersAt(text string, x, top, size, advance, gap, wordGap float64, brk bool) []glyph {
	var gs []glyph
	for _, r := range text {
		if r == ' ' {
			x += wordGap
			if !brk {
				gs = append(gs, glyph{space: true})
			}
			continue
		}
		gs = append(gs, glyph{text: string(r), x0: x, x1: x + advance, top: top, bottom: top + size, size: size})
		if brk {
			gs = append(gs, glyph{brk: true})
		} else {
			gs = append(gs, glyph{space: true})
		}
		x += advance + gap
	}
	return gs
}

// words lays out whole words with one space marker between them.
func words(text string, x, top, size float64) []glyph {
	var gs []glyph
	for i, w := range strings.Fields(text) {
		if i > 0 {
			gs = append(gs, glyph{space: true})
			x += 0.28 * size
		}
		wd := 0.5 * size * float64(len(w))
		gs = append(gs, glyph{text: w, x0: x, x1: x + wd, top: top, bottom: top + size, size: size})
		x += wd
	}
	return gs
}

func segTexts(segs []seg) []string {
	var out []string
	for _, s := range segs {
		out = append(out, s.text)
	}
	return out
}

func TestBuildSegmentsJoins(t *testing.T) {
	superscript := append(words("Shape change (3", 72, 100, 10),
		glyph{brk: true},
		glyph{text: "rd", x0: 72 + 0.28*10*2 + 0.5*10*(5+6+2), x1: 72 + 0.28*10*2 + 0.5*10*(5+6+2) + 8, top: 97, bottom: 104.5, size: 7.5},
		glyph{space: true})
	superscript = append(superscript, words("circle) allows", superscript[len(superscript)-2].x1+2.8, 100, 10)...)
	footer := append(words("Exhaustion", 42, 729, 15), glyph{brk: true},
		// A footer whose font size PDFium reports as 150: its box is
		// what tells it is another line.
		glyph{text: "100", x0: 36, x1: 51, top: 756, bottom: 765, size: 150})
	tests := []struct {
		name string
		gs   []glyph
		want []string
	}{
		{"tracked capitals with a space after each letter",
			lettersAt("ALEX SCHROEDER", 72, 28, 16, 10.8, 3.2, 5.4, false), []string{"ALEX SCHROEDER"}},
		{"letters drawn one by one, overlapping boxes",
			lettersAt("Arrow of Slaying", 134, 0, 12, 4.5, -0.2, 1.8, true), []string{"Arrow of Slaying"}},
		{"letters drawn one by one, word gap smaller than a space",
			lettersAt("Bag of Beans", 134, 0, 12, 4.5, -0.2, 1.4, true), []string{"Bag of Beans"}},
		{"superscript ordinal after a number", superscript, []string{"Shape change (3rd circle) allows"}},
		{"a line break to another line is kept", footer, []string{"Exhaustion", "100"}},
		{"normal words", words("The quick brown fox jumps", 72, 100, 10), []string{"The quick brown fox jumps"}},
		{"short words set normally are not glued",
			words("I am a man of it", 72, 100, 10), []string{"I am a man of it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := segTexts(buildSegments(tt.gs))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("segments = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDehyphenate(t *testing.T) {
	sh := string(softHyphen)
	tests := []struct {
		name string
		in   []line
		want []string
	}{
		{"a word broken across lines", []line{{text: "examples and inspira" + sh}, {text: "tion. The cost listed"}},
			[]string{"examples and inspiration.", "The cost listed"}},
		{"the next line is only the rest of the word", []line{{text: "a paragraph of inspira" + sh}, {text: "tion."}, {text: "Next", paraBefore: true}},
			[]string{"a paragraph of inspiration.", "Next"}},
		{"a capital goes on: a compound", []line{{text: "Arrow" + sh}, {text: "Catching Shield"}}, []string{"Arrow-", "Catching Shield"}},
		{"an ordinal compound keeps its hyphen", []line{{text: "a 3rd" + sh}, {text: "level spell"}}, []string{"a 3rd-", "level spell"}},
		{"a compound keeps its hyphen", []line{{text: "a 10-foot" + sh}, {text: "radius sphere"}}, []string{"a 10-foot-", "radius sphere"}},
		{"a new paragraph", []line{{text: "some" + sh}, {text: "thing", paraBefore: true}}, []string{"some-", "thing"}},
		{"table cells", []line{{text: "Heal" + sh + " | Might Diffi" + sh}, {text: "ing | culty"}}, []string{"Heal- | Might Diffi-", "ing | culty"}},
		{"the last line", []line{{text: "end" + sh}}, []string{"end-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, l := range dehyphenate(tt.in) {
				got = append(got, l.text)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("lines = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSpacingInPDF runs hand-made content streams through PDFium:
// character spacing (Tc), letters placed one by one, and a raised
// smaller ordinal (Ts).
func TestSpacingInPDF(t *testing.T) {
	body := "BT /F1 10 Tf 72 600 Td (Body text follows here in a normal setting, long enough to count.) Tj ET\n"
	var oneByOne strings.Builder
	x := 72.0
	for _, r := range "Bag of Beans" {
		if r == ' ' {
			x += 7.2 // Courier: every advance is 0.6 em
			continue
		}
		fmt.Fprintf(&oneByOne, "BT /F2 12 Tf %.2f 700 Td (%c) Tj ET\n", x, r)
		x += 7.0 // a little tighter than the advance
	}
	tests := []struct {
		name, content, want string
	}{
		{"character spacing", "BT /F1 16 Tf 3.2 Tc 72 700 Td (ALEX SCHROEDER) Tj ET\n", "ALEX SCHROEDER"},
		{"letters placed one by one", oneByOne.String(), "Bag of Beans"},
		{"superscript ordinal", "BT /F1 10 Tf 72 700 Td (Shape change \\(3) Tj /F1 7 Tf 3.5 Ts (rd) Tj /F1 10 Tf 0 Ts ( circle\\) allows you to change.) Tj ET\n",
			"Shape change (3rd circle) allows you to change."},
	}
	e := extractor(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := e.Extract(context.Background(), streamPDF(tt.content+body), nil)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(d.Pages[0].Text, "\n")
			if first != tt.want {
				t.Errorf("first line = %q, want %q; page:\n%s", first, tt.want, d.Pages[0].Text)
			}
		})
	}
}

var (
	spacedRe       = regexp.MustCompile(`\b\pL (?:\pL ){3,}\pL\b`)
	splitOrdinalRe = regexp.MustCompile(`\d (?:st|nd|rd|th)\b`)
)

// TestSpacingRealPages checks the letter-spaced headings and the
// superscript ordinals of the test PDFs.
func TestSpacingRealPages(t *testing.T) {
	tests := []struct {
		file  string
		pages []int    // 1-based; none: every page
		want  []string // lines some page must have
	}{
		{"mdsrd5.pdf", []int{7, 8, 9, 261}, []string{"Arrow-Catching Shield", "Arrow of Slaying", "Belt of Dwarvenkind", "Ring of Animal Influence", "Adventuring Gear"}},
		{"Halberds-and-Helmets-Ref-Guide.pdf", nil, []string{"ALEX SCHROEDER", "HALBERDS & HELMETS", "RUNNING THE GAME"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			d := realDoc(t, tt.file, Options{})
			lines := map[string]bool{}
			pages := tt.pages
			if pages == nil {
				for i := range d.Pages {
					pages = append(pages, i+1)
				}
			}
			for _, n := range pages {
				text := d.Pages[n-1].Text
				for _, l := range strings.Split(text, "\n") {
					lines[l] = true
				}
				if m := spacedRe.FindString(text); m != "" {
					t.Errorf("page %d has letter-spaced text %q", n, m)
				}
				if m := splitOrdinalRe.FindString(text); m != "" {
					t.Errorf("page %d has a split ordinal %q", n, m)
				}
			}
			for _, w := range tt.want {
				if !lines[w] {
					t.Errorf("no line %q", w)
				}
			}
		})
	}
	d := realDoc(t, "Halberds-and-Helmets-Ref-Guide.pdf", Options{})
	if text := norm(d.Pages[16].Text); !strings.Contains(text, "bugbears do not gain any more levels; 3rd level is their") {
		t.Errorf("page 17 lacks its ordinal whole:\n%s", text)
	}
	d = realDoc(t, "minimal-opend6-srd.pdf", Options{})
	if text := norm(d.Pages[4].Text); !strings.Contains(text, "meant to serve as examples and inspiration. The cost") {
		t.Errorf("page 5 lacks the word hyphenated across lines:\n%.1500s", text)
	}
}
