package pdfread

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testdataPDF(t testing.TB, name string) []byte {
	t.Helper()
	dir := os.Getenv("HEARTH_SHARED_TESTDATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "..", "shared", "testdata")
	}
	b, err := os.ReadFile(filepath.Join(dir, "pdf", name))
	if err != nil {
		t.Skipf("test PDF missing: %v", err)
	}
	return b
}

// TestRealPDFs reads every page of the three test PDFs and reports how
// many pages need PDFium.
func TestRealPDFs(t *testing.T) {
	for _, tt := range []struct {
		name  string
		pages int
	}{{"mdsrd5.pdf", 531}, {"Halberds-and-Helmets-Ref-Guide.pdf", 60}, {"minimal-opend6-srd.pdf", 83}} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Open(testdataPDF(t, tt.name))
			if err != nil {
				t.Fatal(err)
			}
			pages, err := f.Pages(10000)
			if err != nil {
				t.Fatal(err)
			}
			if len(pages) != tt.pages {
				t.Fatalf("%d pages, want %d", len(pages), tt.pages)
			}
			fallback := map[string]int{}
			chars := 0
			for i, p := range pages {
				pg, err := f.ReadPage(p, 100000)
				if errors.Is(err, ErrUnsupported) {
					fallback[err.Error()]++
					continue
				}
				if err != nil {
					t.Fatalf("page %d: %v", i+1, err)
				}
				chars += len(pg.Chars)
				if i == 10 && testing.Verbose() {
					var b strings.Builder
					for _, c := range pg.Chars {
						b.WriteRune(c.R)
					}
					t.Logf("page 11: %.600s", b.String())
				}
			}
			t.Logf("%d chars; pages for PDFium: %v", chars, fallback)
		})
	}
}
