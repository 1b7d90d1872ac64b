package game

import (
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
