package main

import (
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"one two three four", 9, "one two\nthree\nfour"},
		{"short", 80, "short"},
		{"a\n\nb c d", 3, "a\n\nb c\nd"},
		{"  1. ask Maren about the lantern", 16, "  1. ask Maren\n  about the\n  lantern"},
		{"supercalifragilistic word", 5, "supercalifragilistic\nword"},
		{"untouched  spacing", 0, "untouched  spacing"},
		{"Rook: «Ça va» — fin", 12, "Rook: «Ça\nva» — fin"},
	}
	for _, tt := range tests {
		if got := wrap(tt.in, tt.width); got != tt.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
		for _, l := range strings.Split(wrap(tt.in, tt.width), "\n") {
			if tt.width > 0 && len([]rune(l)) > tt.width && !strings.Contains(l, "supercali") {
				t.Errorf("line %q is wider than %d", l, tt.width)
			}
		}
	}
}
