package game

import (
	"fmt"
	"slices"
	"testing"
)

func TestKeyTerms(t *testing.T) {
	tests := []struct {
		text string
		n    int
		want []string
	}{
		{"The hall's tapestries show Tomas and the keep's founding war.", 3, []string{"tomas", "tapestries", "founding"}},
		// Opening sentences, "Tomas" is not told from any other word.
		{"Tomas keeps the ledgers. Tomas fears the baron.", 4, []string{"ledgers", "tomas", "keeps", "fears"}},
		{"It is what it is, and that is that.", 5, nil},
		{"Mira’s lantern, Mira's lens.", 5, []string{"mira", "lantern", "lens"}},
		{"", 3, nil},
	}
	for _, tt := range tests {
		if got := keyTerms(tt.text, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("keyTerms(%q, %d) = %q, want %q", tt.text, tt.n, got, tt.want)
		}
	}
}

// A session keeps each text's key terms, so a text offered again gets its
// own terms, never another text's, and the kept terms stay bounded.
func TestSessionKeyTermsKeptPerText(t *testing.T) {
	s := &Session{}
	texts := []string{
		"The hall's tapestries show Tomas and the keep's founding war.",
		"Mira’s lantern, Mira's lens.",
		"It is what it is, and that is that.",
	}
	for round := range 2 {
		for _, text := range texts {
			if got, want := s.keyTerms(text), keyTerms(text, 6); !slices.Equal(got, want) {
				t.Errorf("round %d: keyTerms(%q) = %q, want %q", round, text, got, want)
			}
		}
	}
	for i := range maxKeptTerms + 10 {
		s.keyTerms(fmt.Sprintf("Passage number %d about the lighthouse", i))
	}
	if len(s.terms) > maxKeptTerms {
		t.Errorf("the session keeps %d texts' terms; the bound is %d", len(s.terms), maxKeptTerms)
	}
}
