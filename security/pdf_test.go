package security

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"testing"
)

// writeChart writes a GM-only PDF, "Chart Zorblatt", whose one page
// draws a plain RGB JPEG: Hearth keeps it as the JPEG it is, so the
// picture routes serve an image/jpeg picture too.
func writeChart(t *testing.T, path string) {
	t.Helper()
	pic := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			pic.Set(x, y, color.RGBA{uint8(4 * x), uint8(5 * y), 160, 255})
		}
	}
	var j bytes.Buffer
	if err := jpeg.Encode(&j, pic, nil); err != nil {
		t.Fatal(err)
	}
	text := "BT /F1 12 Tf 72 720 Td (The reef passage of Zorblatt lies under the tide mill.) Tj ET\nq 128 0 0 96 72 500 cm /Im Do Q\n"
	widths := "/FirstChar 32 /LastChar 126 /Widths ["
	for range 95 {
		widths += "600 "
	}
	widths += "]"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /Im 6 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding " + widths + " >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(text), text),
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width 64 /Height 48 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream", j.Len(), j.String()),
		"<< /Title (Chart Zorblatt) >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, len(objs), xref)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
