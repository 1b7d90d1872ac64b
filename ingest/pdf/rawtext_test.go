package pdf

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRawTextMatchesGoPDFium reads every page once through the direct
// calls and once through go-pdfium's, and wants the same lines. It
// also fails when the direct calls are not set up, so that a go-pdfium
// upgrade that changes what moduleOf reads is noticed.
func TestRawTextMatchesGoPDFium(t *testing.T) {
	docs := map[string][]byte{
		"spaced":   streamPDF("BT /F1 16 Tf 3.2 Tc 72 700 Td (ALEX SCHROEDER) Tj ET\nBT /F1 10 Tf 72 600 Td (Body text \\(3) Tj /F1 7 Tf 3.5 Ts (rd) Tj /F1 10 Tf 0 Ts ( line\\).) Tj ET"),
		"twopages": tinyPDF("One page of text here.", "Two pages of text here."),
	}
	if data, err := os.ReadFile(filepath.Join(testdataDir(), "minimal-opend6-srd.pdf")); err == nil {
		docs["opend6"] = data
	}
	ctx := context.Background()
	e := extractor(t)
	for name, data := range docs {
		t.Run(name, func(t *testing.T) {
			ws, err := e.acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer e.release(ws)
			w := ws[0]
			if err := w.open(ctx, data); err != nil {
				t.Fatal(err)
			}
			if w.raw == nil {
				t.Fatal("no direct calls into PDFium: moduleOf found no module in this go-pdfium instance")
			}
			n, err := w.pageCount()
			if err != nil {
				t.Fatal(err)
			}
			raw := w.raw
			for i := range n {
				for _, mode := range []measure{measureChars, measureEnds} {
					w.raw = raw
					fast, err := w.readPage(ctx, i, mode)
					if err != nil {
						t.Fatal(err)
					}
					w.raw = nil
					slow, err := w.readPage(ctx, i, mode)
					if err != nil {
						t.Fatal(err)
					}
					if fast.width != slow.width || fast.height != slow.height || fast.letters != slow.letters ||
						!slices.Equal(fast.lines, slow.lines) {
						t.Errorf("page %d mode %d: direct %v×%v %d letters %+v, go-pdfium %v×%v %d letters %+v", i+1, mode,
							fast.width, fast.height, fast.letters, fast.lines, slow.width, slow.height, slow.letters, slow.lines)
					}
				}
			}
			w.raw = raw
		})
	}
}
