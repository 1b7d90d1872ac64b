package pdf

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// steadyLines is a text on n pages at one height, gap line heights from
// the body.
func steadyLines(n int, top, gap float64) []bandLine {
	bs := make([]bandLine, n)
	for i := range bs {
		bs[i] = bandLine{top: top, gap: gap}
	}
	return bs
}

func TestIsFurniture(t *testing.T) {
	// A stat block line that lands at the top of a page: the page's
	// first line on some pages, the second or third on others, and
	// followed at the body's line spacing.
	wandering := append(steadyLines(10, 36.6, 1.25), steadyLines(8, 57.3, 1.25)...)
	// "Challenge": mostly the first line, followed by a paragraph gap
	// on half its pages.
	challenge := append(append(steadyLines(3, 36.6, 1.25), steadyLines(2, 36.6, 2.1)...), bandLine{top: 57.3, gap: 2.1})
	// A running header that shifts a point between odd and even pages.
	shifting := append(steadyLines(13, 38.3, 3.2), steadyLines(13, 38.7, 3.5)...)
	tests := []struct {
		name  string
		lines []bandLine
		pages int
		want  bool
	}{
		{"book title on every page", steadyLines(531, 806, 3.1), 531, true},
		{"header on alternate pages, apart from the body", shifting, 60, true},
		{"chapter header on a few pages of a long book, apart from the body", steadyLines(20, 40, 3), 500, true},
		{"footer on a third of the pages, close to the body", steadyLines(200, 806, 0.5), 531, true},
		{"table header on a few pages, close to the body", steadyLines(4, 38.9, 0.5), 531, false},
		{"stat block line at varying heights", wandering, 531, false},
		{"stat block line on a third of the pages at varying heights", wandering, 40, false},
		{"challenge line, sometimes before a paragraph gap", challenge, 531, false},
		{"on two pages only", steadyLines(2, 40, 5), 2, false},
		{"on three pages of three", steadyLines(3, 40, 0.5), 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isFurniture(tt.lines, tt.pages); got != tt.want {
				t.Errorf("isFurniture = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBodyGap(t *testing.T) {
	ls := []line{
		{text: "Running Header 5", top: 38, bottom: 48},
		{text: "Body line one", top: 80, bottom: 90},
		{text: "Body line two", top: 92, bottom: 102},
		{text: "Last body line", top: 760, bottom: 770},
		{text: "5", top: 800, bottom: 810},
	}
	tests := []struct {
		i      int
		header bool
		want   float64
	}{
		{0, true, 3.2},   // 32 points to the body, 10-point line
		{1, true, 0.2},   // the next body line
		{4, false, 3},    // 30 points above it
		{3, false, 65.8}, // the body line above, far up
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("line %d", tt.i), func(t *testing.T) {
			if got := bodyGap(ls, tt.i, tt.header); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("bodyGap = %v, want %v", got, tt.want)
			}
		})
	}
	if got := bodyGap(ls[:1], 0, true); !math.IsInf(got, 1) {
		t.Errorf("a line alone on its page: bodyGap = %v, want +Inf", got)
	}
}

func TestAtEdge(t *testing.T) {
	// A table at the top of a page: its heading, then rows numbered
	// 1, 2, ..., and the page number at the bottom.
	ls := []line{
		{text: "d10 Purpose", top: 38.9, bottom: 48.1},
		{text: "2", top: 58.1, bottom: 67.3},
		{text: "Bane: the item seeks to defeat", top: 52.7, bottom: 61.9},
		{text: "275", top: 806, bottom: 815},
	}
	tests := []struct {
		i      int
		header bool
		want   bool
	}{
		{0, true, true},
		{1, true, false}, // the heading is above it
		{3, false, true},
		{1, false, false},
	}
	for _, tt := range tests {
		if got := atEdge(ls, tt.i, tt.header); got != tt.want {
			t.Errorf("atEdge(%q, header %v) = %v, want %v", ls[tt.i].text, tt.header, got, tt.want)
		}
	}
}

// TestFurnitureSRD checks on the SRD that the running footer goes from
// every page while content that recurs at a page's top or bottom stays.
func TestFurnitureSRD(t *testing.T) {
	d := realDoc(t, "mdsrd5.pdf", Options{})
	for _, p := range d.Pages {
		// The footer "N The Markdown SRD5" gives each page its label.
		if want := strconv.Itoa(p.Number); p.Label != want {
			t.Errorf("page %d label = %q, want %q", p.Number, p.Label, want)
		}
		if strings.Contains(p.Text, strconv.Itoa(p.Number)+" The Markdown SRD5") {
			t.Errorf("page %d keeps its footer:\n%s", p.Number, p.Text)
		}
	}
	lines := func(n int) []string { return strings.Split(d.Pages[n-1].Text, "\n") }
	// The footer used to swallow the last line of page 278 above it.
	if l := lines(278); l[len(l)-1] != "common." {
		t.Errorf("page 278 ends %q, want %q", l[len(l)-1], "common.")
	}
	// The Minotaur's Hit Points line is the last of page 369.
	if l := lines(369); l[len(l)-1] != "Hit Points 76 (9d10 + 27)" {
		t.Errorf("page 369 ends %q, want the Minotaur's hit points", l[len(l)-1])
	}
	// The adventuring gear table's header row opens pages 262 and 264.
	for _, n := range []int{262, 264} {
		if l := lines(n); l[0] != "Item | Cost | Weight" {
			t.Errorf("page %d starts %q, want the table's header row", n, l[0])
		}
	}
	// A table row's number at the top of a page is no page number.
	if l := lines(275); !slices.Contains(l[:min(len(l), 4)], "2") {
		t.Errorf("page 275 lost the table row's number 2; it starts %q", l[:min(len(l), 4)])
	}
	// Stat block lines at the top of a page.
	for n, want := range map[int]string{349: "STR | DEX | CON | INT | WIS | CHA", 369: "Challenge 2 (450 XP)"} {
		if l := lines(n); l[0] != want {
			t.Errorf("page %d starts %q, want %q", n, l[0], want)
		}
	}
}
