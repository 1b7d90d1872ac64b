package pdf

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/ingest"
)

// TestNativeAgainstPDFium compares, page by page, the words the native
// reader gives with the words PDFium gives for the same file, through
// the same layout, and checks that the native path read every page of
// the test PDFs and kept the bookmarks and images PDFium finds.
func TestNativeAgainstPDFium(t *testing.T) {
	for _, tt := range []struct {
		name string
		min  float64
	}{
		{"minimal-opend6-srd.pdf", 0.99},
		{"Halberds-and-Helmets-Ref-Guide.pdf", 0.99},
		{"mdsrd5.pdf", 0.99},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := readTestPDF(t, tt.name)
			nf, refs, ok := openNative(data, 5000)
			if !ok {
				t.Fatal("the native reader did not open the file")
			}
			for i, ref := range refs {
				if _, err := nf.ReadPage(ref, 100_000); err != nil {
					t.Errorf("page %d went to PDFium: %v", i+1, err)
				}
			}
			native := realDoc(t, tt.name, Options{})
			if len(native.Pages) != len(refs) {
				t.Fatalf("%d pages, the native reader found %d", len(native.Pages), len(refs))
			}
			pdfium := realDoc(t, tt.name, Options{PDFiumOnly: true})
			both, nNative, nPDFium := wordAgreement(pageTexts(native), pageTexts(pdfium))
			a := 2 * float64(both) / float64(nNative+nPDFium)
			t.Logf("native against PDFium: %.2f%% of words agree (%d native, %d PDFium, %d in both)", 100*a, nNative, nPDFium, both)
			if a < tt.min {
				t.Errorf("agreement %.4f below %.2f", a, tt.min)
			}
			if len(native.Images) != len(pdfium.Images) {
				t.Errorf("%d images natively, %d with PDFium", len(native.Images), len(pdfium.Images))
			}
			if !slices.Equal(titles(native, 0), titles(pdfium, 0)) {
				t.Errorf("outline differs:\n native %q\n pdfium %q", titles(native, 0), titles(pdfium, 0))
			}
			if a, b := outlinePages(native), outlinePages(pdfium); !slices.Equal(a, b) {
				t.Errorf("outline pages differ:\n native %v\n pdfium %v", a, b)
			}
		})
	}
}

// pageTexts gives the pages' text without table cell marks, which
// wordAgreement drops on its first side only.
func pageTexts(d *ingest.Document) []string {
	var out []string
	for _, p := range d.Pages {
		out = append(out, strings.ReplaceAll(p.Text, " | ", " "))
	}
	return out
}

// TestNativeFallsBack checks that a page the native reader cannot read
// (Helvetica without /Widths: PDFium has the standard fonts' metrics
// built in) is read by PDFium while the others are read natively, in
// page order, with progress reported for every page.
func TestNativeFallsBack(t *testing.T) {
	widths := "/FirstChar 32 /LastChar 126 /Widths [" + strings.Repeat("500 ", 95) + "]"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [5 0 R 7 0 R 9 0 R] /Count 3 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding " + widths + " >>",
	}
	for i, c := range []string{
		"BT /F2 12 Tf 72 720 Td (Native words on the first page.) Tj ET",
		"BT /F1 12 Tf 72 720 Td (Fallback words on the second page.) Tj ET",
		"BT /F2 12 Tf 72 720 Td (Native words again on the third page.) Tj ET",
	} {
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>", 6+2*i))
		objs = append(objs, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c), c))
	}
	data := writePDF(objs, "")
	e, err := Open(context.Background(), Options{CacheDir: extractor(t).opts.CacheDir, PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var progress []int
	d, err := e.Extract(context.Background(), data, func(page, total int) { progress = append(progress, page) })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Native words on the first page.", "Fallback words on the second page.", "Native words again on the third page."}
	for i, w := range want {
		if i >= len(d.Pages) || norm(d.Pages[i].Text) != w {
			t.Fatalf("pages = %+v, want %q", d.Pages, want)
		}
	}
	if n, p := e.nativePages.Load(), e.pdfiumPages.Load(); n != 2 || p != 1 {
		t.Errorf("%d pages read natively and %d by PDFium, want 2 and 1", n, p)
	}
	if !slices.Equal(progress, []int{1, 2, 3}) {
		t.Errorf("progress %v, want 1, 2, 3", progress)
	}
}

func outlinePages(d *ingest.Document) []int {
	var out []int
	d.Walk(func(s *ingest.Section) { out = append(out, s.Page) })
	return out
}

// TestNativeReusesBuffers reads pages that get shorter and shorter, so
// every reading goroutine takes each page's characters, runes and
// glyphs into arrays a longer page left behind: each page must have its
// own words only, all read natively.
func TestNativeReusesBuffers(t *testing.T) {
	widths := "/FirstChar 32 /LastChar 126 /Widths [" + strings.Repeat("500 ", 95) + "]"
	const pages = 10
	kids := ""
	for i := range pages {
		kids += fmt.Sprintf("%d 0 R ", 4+2*i)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, pages),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding " + widths + " >>",
	}
	words := []string{"amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "inlet", "juniper", "kestrel"}
	var want []string
	for i := range pages {
		var c, text strings.Builder
		c.WriteString("BT /F1 11 Tf 14 TL 72 600 Td")
		for k := range pages - i {
			line := fmt.Sprintf("%s %s page%d line%d", words[(i+k)%len(words)], words[(2*i+k+1)%len(words)], i+1, k+1)
			fmt.Fprintf(&c, " (%s) Tj T*", line)
			text.WriteString(line + " ")
		}
		c.WriteString(" ET")
		want = append(want, norm(text.String()))
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c.Len(), c.String()))
	}
	e, err := Open(context.Background(), Options{CacheDir: extractor(t).opts.CacheDir, PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	d, err := e.Extract(context.Background(), writePDF(objs, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Pages) != pages {
		t.Fatalf("%d pages, want %d", len(d.Pages), pages)
	}
	for i, p := range d.Pages {
		if got := norm(p.Text); got != want[i] {
			t.Errorf("page %d:\n got %q\nwant %q", i+1, got, want[i])
		}
	}
	if n, p := e.nativePages.Load(), e.pdfiumPages.Load(); n != pages || p != 0 {
		t.Errorf("%d pages read natively and %d by PDFium, want %d and 0", n, p, pages)
	}
}
