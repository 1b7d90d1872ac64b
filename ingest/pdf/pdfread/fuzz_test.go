package pdfread

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead feeds arbitrary bytes through the whole reader: structure,
// page tree, every page's text, the information dictionary. It must
// return errors, never panic or run away. Seeds: the first KB of the
// three test PDFs (when ../shared/testdata is present) and the small
// files the other tests build. Every page's images are placed and
// decoded as well.
func FuzzRead(f *testing.F) {
	dir := os.Getenv("HEARTH_SHARED_TESTDATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "..", "shared", "testdata")
	}
	for _, name := range []string{"mdsrd5.pdf", "Halberds-and-Helmets-Ref-Guide.pdf", "minimal-opend6-srd.pdf"} {
		if b, err := os.ReadFile(filepath.Join(dir, "pdf", name)); err == nil {
			f.Add(b[:min(len(b), 1024)])
		}
	}
	f.Add(build(onePage("BT /F1 10 Tf 12 TL 72 700 Td [(Hel)-300(lo)] TJ T* (x) ' ET", ""), ""))
	f.Add(xrefStreamPDF(false))
	f.Add(xrefStreamPDF(true))
	form := onePage("q 1 0 0 1 5 5 cm /X1 Do Q BI /W 1 /H 1 ID x EI", "/XObject << /X1 6 0 R >>")
	form = append(form, stream("/Type /XObject /Subtype /Form /Resources << /XObject << /X1 6 0 R >> >>", "/X1 Do"))
	f.Add(build(form, ""))
	pics := onePage("q 20 0 0 10 5 5 cm /I1 Do /I2 Do /I3 Do Q", "/XObject << /I1 6 0 R /I2 7 0 R /I3 8 0 R >> /ColorSpace << /CS 9 0 R >>")
	pics = append(pics,
		stream("/Type /XObject /Subtype /Image /Width 2 /Height 2 /BitsPerComponent 8 /ColorSpace [/Indexed /DeviceRGB 1 <ff000000ff00>] /Decode [0 255]", "\x00\x01\x01\x00"),
		stream("/Type /XObject /Subtype /Image /Width 2 /Height 1 /BitsPerComponent 8 /ColorSpace /CS /Filter /ASCIIHexDecode /SMask 7 0 R", "0a0b>"),
		stream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /BitsPerComponent 8 /ColorSpace [/ICCBased 9 0 R] /Filter [/FlateDecode /DCTDecode]", "x"),
		stream("/N 3", ""))
	f.Add(build(pics, ""))
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := Open(data)
		if err != nil {
			return
		}
		pf.Info()
		pf.HasOutline()
		pages, err := pf.Pages(50)
		if err != nil {
			return
		}
		for _, p := range pages[:min(len(pages), 10)] {
			pg, err := pf.ReadPage(p, 10_000)
			if err == nil && len(pg.Chars) > 10_000+len(pg.Chars)/2 {
				t.Fatalf("%d characters, the limit is 10,000 (plus inserted ones)", len(pg.Chars))
			}
			if err != nil {
				continue
			}
			if len(pg.Images) > maxImagesPerPage {
				t.Fatalf("%d images, the limit is %d", len(pg.Images), maxImagesPerPage)
			}
			for k := range pg.Images[:min(len(pg.Images), 8)] {
				im := &pg.Images[k]
				im.Box()
				if len(im.Palette) > maxPaletteBytes {
					t.Fatalf("a palette of %d bytes", len(im.Palette))
				}
				if b, err := pf.DecodeImage(im); err == nil && len(b) > maxDecoded {
					t.Fatalf("an image decoded to %d bytes", len(b))
				}
			}
		}
	})
}
