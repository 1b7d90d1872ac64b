package pdf

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// minAgreement is the word agreement with pdftotext each test PDF must
// keep. Hearth differs on purpose where it drops running headers and page
// numbers, expands ligatures ("fi" for "ﬁ") and reads margin notes apart,
// so 100% is not the aim; a drop below this is a regression.
const minAgreement = 0.98

// TestAgreementWithPdftotext compares the words of every page with
// poppler's pdftotext (reading order mode) and logs the agreement per
// file: twice the words both have, page by page as multisets, over the
// words of both. scripts/bench-pdf.sh prints these lines.
func TestAgreementWithPdftotext(t *testing.T) {
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext is not installed (poppler-utils)")
	}
	for _, name := range []string{"minimal-opend6-srd.pdf", "Halberds-and-Helmets-Ref-Guide.pdf", "mdsrd5.pdf"} {
		t.Run(name, func(t *testing.T) {
			d := realDoc(t, name, Options{})
			var out, stderr bytes.Buffer
			cmd := exec.CommandContext(context.Background(), bin, "-enc", "UTF-8", filepath.Join(testdataDir(), name), "-")
			cmd.Stdout, cmd.Stderr = &out, &stderr
			if err := cmd.Run(); err != nil {
				var exit *exec.ExitError
				if errors.As(err, &exit) {
					t.Fatalf("pdftotext: %v: %s", err, stderr.String())
				}
				t.Fatal(err)
			}
			theirs := strings.Split(out.String(), "\f")
			var ours []string
			for _, p := range d.Pages {
				ours = append(ours, p.Text)
			}
			both, nOurs, nTheirs := wordAgreement(ours, theirs)
			a := 2 * float64(both) / float64(nOurs+nTheirs)
			t.Logf("word agreement with pdftotext: %.2f%% (%d words here, %d in pdftotext, %d in both)", 100*a, nOurs, nTheirs, both)
			if a < minAgreement {
				t.Errorf("agreement %.4f below %.2f", a, minAgreement)
			}
		})
	}
}

// wordAgreement counts, page by page, the words two extractions share
// (as multisets) and the words of each. Hearth's table cell marks "|"
// are not words.
func wordAgreement(ours, theirs []string) (both, nOurs, nTheirs int) {
	for i := range max(len(ours), len(theirs)) {
		count := map[string]int{}
		if i < len(ours) {
			for _, w := range strings.Fields(ours[i]) {
				if w != "|" {
					count[w]++
					nOurs++
				}
			}
		}
		if i < len(theirs) {
			for _, w := range strings.Fields(theirs[i]) {
				nTheirs++
				if count[w] > 0 {
					count[w]--
					both++
				}
			}
		}
	}
	return both, nOurs, nTheirs
}

func TestWordAgreement(t *testing.T) {
	tests := []struct {
		name                 string
		ours, theirs         []string
		both, nOurs, nTheirs int
	}{
		{"same", []string{"a b c", "d"}, []string{"a  b\nc", "d"}, 4, 4, 4},
		{"per page, not across", []string{"a", "b"}, []string{"b", "a"}, 0, 2, 2},
		{"multiset", []string{"a a b"}, []string{"a b b"}, 2, 3, 3},
		{"cell marks are not words", []string{"x | y"}, []string{"x y"}, 2, 2, 2},
		{"a page more on one side", []string{"a"}, []string{"a", "b c"}, 1, 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			both, o, th := wordAgreement(tt.ours, tt.theirs)
			if both != tt.both || o != tt.nOurs || th != tt.nTheirs {
				t.Errorf("= %d, %d, %d; want %d, %d, %d", both, o, th, tt.both, tt.nOurs, tt.nTheirs)
			}
		})
	}
}
