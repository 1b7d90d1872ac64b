package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/ingest"
	xwebp "golang.org/x/image/webp"
)

// TestNativePicturesAgainstPDFium checks that the pictures taken without
// PDFium are PDFium's: the same count, pages, order, sizes, place
// (through the context text) and, decoded, the same pixels within JPEG
// decoders' differences, alpha included (PDFium leaves soft masks out).
// Halberds has 76 DCT images (4 with a soft mask) and 2 Flate ones (1
// with a soft mask); the other two files draw none.
func TestNativePicturesAgainstPDFium(t *testing.T) {
	for _, tt := range []struct {
		name       string
		jpegs, all int // pictures kept as JPEG, all pictures
	}{
		{"Halberds-and-Helmets-Ref-Guide.pdf", 76, 78},
		{"minimal-opend6-srd.pdf", 0, 0},
		{"mdsrd5.pdf", 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			native := realDoc(t, tt.name, Options{})
			pdfium := realDoc(t, tt.name, Options{pdfiumImages: true})
			if len(native.Images) != tt.all || len(pdfium.Images) != tt.all {
				t.Fatalf("%d pictures natively, %d with PDFium, want %d", len(native.Images), len(pdfium.Images), tt.all)
			}
			jpegs, worst := 0, 0.0
			var nativeBytes, pdfiumBytes int
			for i := range native.Images {
				n, p := native.Images[i], pdfium.Images[i]
				nativeBytes += len(n.Data)
				pdfiumBytes += len(p.Data)
				if n.Page != p.Page || n.Index != p.Index || n.Width != p.Width || n.Height != p.Height {
					t.Errorf("picture %d: page %d #%d %dx%d natively, page %d #%d %dx%d with PDFium", i, n.Page, n.Index, n.Width, n.Height, p.Page, p.Index, p.Width, p.Height)
					continue
				}
				if n.Context != p.Context {
					t.Errorf("picture %d (page %d): context\n native %q\n pdfium %q", i, n.Page, n.Context, p.Context)
				}
				if p.MediaType != "image/webp" {
					t.Errorf("picture %d: PDFium's is %q", i, p.MediaType)
				}
				if n.MediaType == "image/jpeg" {
					jpegs++
				}
				a, b := decodePicture(t, n), decodePicture(t, p)
				if a.Bounds().Size() != b.Bounds().Size() || a.Bounds().Dx() != n.Width || a.Bounds().Dy() != n.Height {
					t.Errorf("picture %d: decoded %v natively, %v with PDFium, %dx%d listed", i, a.Bounds(), b.Bounds(), n.Width, n.Height)
					continue
				}
				// Different JPEG decoders (Go's, PDFium's libjpeg-turbo)
				// round differently: a level or two per channel.
				d := meanAbsDiff(a, b)
				worst = max(worst, d)
				if d > 2.5 {
					t.Errorf("picture %d (page %d, %s): mean difference %.2f levels per channel", i, n.Page, n.MediaType, d)
				}
			}
			if jpegs != tt.jpegs {
				t.Errorf("%d pictures kept as JPEG, want %d", jpegs, tt.jpegs)
			}
			t.Logf("%d pictures, %d kept as JPEG: %d bytes natively, %d as PDFium's lossless WebP; largest mean difference %.2f levels", len(native.Images), jpegs, nativeBytes, pdfiumBytes, worst)
		})
	}
}

func decodePicture(t *testing.T, im ingest.Image) image.Image {
	t.Helper()
	var (
		img image.Image
		err error
	)
	switch im.MediaType {
	case "image/jpeg":
		img, err = jpeg.Decode(bytes.NewReader(im.Data))
	case "image/webp":
		img, err = xwebp.Decode(bytes.NewReader(im.Data))
	default:
		t.Fatalf("page %d picture %d: media type %q", im.Page, im.Index, im.MediaType)
	}
	if err != nil {
		t.Fatalf("page %d picture %d (%s): %v", im.Page, im.Index, im.MediaType, err)
	}
	return img
}

// meanAbsDiff is the mean absolute difference of a and b per colour
// channel (alpha included: PDFium's bitmaps leave soft masks out, and
// so must the native pictures), in 8-bit levels.
func meanAbsDiff(a, b image.Image) float64 {
	ab, bb := a.Bounds(), b.Bounds()
	var sum float64
	n := 0
	for y := range ab.Dy() {
		for x := range ab.Dx() {
			r1, g1, b1, a1 := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, a2 := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			sum += math.Abs(float64(r1>>8)-float64(r2>>8)) + math.Abs(float64(g1>>8)-float64(g2>>8)) +
				math.Abs(float64(b1>>8)-float64(b2>>8)) + math.Abs(float64(a1>>8)-float64(a2>>8))
			n += 4
		}
	}
	return sum / float64(n)
}

// TestNativePicturesKinds builds a PDF with one image of each kind the
// native path reads (RGB and Gray Flate with a predictor, Indexed, plain
// RGB and Gray JPEGs, a JPEG with a soft mask, one drawn inside a form)
// on page 1; a 1-bit image on page 2, a JPEG its dictionary misdescribes
// on page 3 and a JPEG cut short on page 4, whose pictures PDFium must
// read.
// Pixels are compared with PDFium's, colour by colour.
func TestNativePicturesKinds(t *testing.T) {
	const w, h = picturesW, picturesH
	data := picturesPDF(t)
	extract := func(pdfiumImages bool) *ingest.Document {
		e, err := Open(context.Background(), Options{CacheDir: extractor(t).opts.CacheDir, PoolSize: 1, pdfiumImages: pdfiumImages})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		d, err := e.Extract(context.Background(), data, nil)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	native, pdfium := extract(false), extract(true)
	// The image budget holds natively too: the first three, in order,
	// however the pages' goroutines are scheduled (a later page reaching
	// its picture first once took one of page 1's).
	e, err := Open(context.Background(), Options{CacheDir: extractor(t).opts.CacheDir, PoolSize: 1, MaxImages: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for range 10 {
		d, err := e.Extract(context.Background(), data, nil)
		if err != nil || len(d.Images) != 3 || d.Images[2].Page != 1 || d.Images[2].Index != 2 {
			for _, im := range d.Images {
				t.Logf("kept page %d #%d", im.Page, im.Index)
			}
			t.Fatalf("with MaxImages 3: %d pictures (%v), want page 1's first three", len(d.Images), err)
		}
	}
	wantTypes := []string{"image/webp", "image/webp", "image/webp", "image/jpeg", "image/jpeg", "image/jpeg", "image/webp", "image/webp", "image/webp", "image/webp"}
	if len(native.Images) != len(wantTypes) || len(pdfium.Images) != len(wantTypes) {
		for _, im := range native.Images {
			t.Logf("native %d #%d %dx%d %s", im.Page, im.Index, im.Width, im.Height, im.MediaType)
		}
		for _, im := range pdfium.Images {
			t.Logf("pdfium %d #%d %dx%d %s", im.Page, im.Index, im.Width, im.Height, im.MediaType)
		}
		t.Fatalf("%d pictures natively, %d with PDFium, want %d", len(native.Images), len(pdfium.Images), len(wantTypes))
	}
	for i, n := range native.Images {
		p := pdfium.Images[i]
		if n.Page != p.Page || n.Index != p.Index || n.Width != w || n.Height != h || p.Width != w || n.MediaType != wantTypes[i] {
			t.Errorf("picture %d: page %d #%d %dx%d %s natively, page %d #%d %dx%d with PDFium, want %s", i, n.Page, n.Index, n.Width, n.Height, n.MediaType, p.Page, p.Index, p.Width, p.Height, wantTypes[i])
			continue
		}
		if d := meanAbsDiff(decodePicture(t, n), decodePicture(t, p)); d > 2.5 {
			t.Errorf("picture %d (page %d, %s): mean difference %.2f levels per channel", i, n.Page, n.MediaType, d)
		}
	}
	if n := native.Images[len(native.Images)-3]; n.Page != 2 {
		t.Errorf("the one-bit picture is on page %d", n.Page)
	}
}

// The size of picturesPDF's pictures.
const picturesW, picturesH = 24, 20

// picturesPDF builds TestNativePicturesKinds's PDF (also a FuzzExtract
// seed).
func picturesPDF(t testing.TB) []byte {
	const w, h = picturesW, picturesH
	rgb := make([]byte, 0, w*h*3)
	gray := make([]byte, 0, w*h)
	idx := make([]byte, 0, w*h)
	colour := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			r, g, b := byte(10*x), byte(12*y), byte(200-5*x)
			rgb = append(rgb, r, g, b)
			gray = append(gray, byte(9*x+3*y))
			idx = append(idx, byte((x+y)%4))
			colour.Set(x, y, color.RGBA{r, g, b, 255})
		}
	}
	var jrgb, jgray bytes.Buffer
	if err := jpeg.Encode(&jrgb, colour, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	gimg := image.NewGray(colour.Rect)
	draw.Draw(gimg, gimg.Rect, colour, image.Point{}, draw.Src)
	if err := jpeg.Encode(&jgray, gimg, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	flate := func(b []byte, bpp int) string {
		// PNG Up predictor rows, as PDF writers use.
		var rows []byte
		for y := range h {
			rows = append(rows, 2)
			for x := range w * bpp {
				v := b[y*w*bpp+x]
				if y > 0 {
					v -= b[(y-1)*w*bpp+x]
				}
				rows = append(rows, v)
			}
		}
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(rows)
		zw.Close()
		return z.String()
	}
	img := func(dict, data string) string {
		return fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d %s /Length %d >>\nstream\n%s\nendstream", w, h, dict, len(data), data)
	}
	widths := "/FirstChar 32 /LastChar 126 /Widths [" + strings.Repeat("600 ", 95) + "]"
	var c1 strings.Builder
	c1.WriteString("BT /F1 12 Tf 72 760 Td (Seven pictures of every kind.) Tj ET\n")
	for k, name := range []string{"RGB", "Gray", "Idx", "JRGB", "JGray", "JMask"} {
		fmt.Fprintf(&c1, "q 60 0 0 50 %d %d cm /%s Do Q\n", 40+80*(k%3), 600-100*(k/3), name)
	}
	c1.WriteString("q 1 0 0 1 300 100 cm /Frm Do Q\n")
	c2 := "BT /F1 12 Tf 72 760 Td (A one-bit picture.) Tj ET\nq 60 0 0 50 100 500 cm /Bits Do Q\n"
	c3 := "BT /F1 12 Tf 72 760 Td (A JPEG misdescribed.) Tj ET\nq 60 0 0 50 300 500 cm /JLie Do Q\n"
	c4 := "BT /F1 12 Tf 72 760 Td (A JPEG cut short.) Tj ET\nq 60 0 0 50 300 500 cm /JCut Do Q\n"
	xobjs := "/XObject << /RGB 7 0 R /Gray 8 0 R /Idx 9 0 R /JRGB 10 0 R /JGray 11 0 R /JMask 12 0 R /Frm 14 0 R /Bits 15 0 R /JLie 17 0 R /JCut 22 0 R >>"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R 5 0 R 18 0 R 20 0 R] /Count 4 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding " + widths + " >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> " + xobjs + " >> /Contents 6 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> " + xobjs + " >> /Contents 16 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c1.Len(), c1.String()),
		img(fmt.Sprintf("/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 12 /Colors 3 /Columns %d >>", w), flate(rgb, 3)),
		img(fmt.Sprintf("/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns %d >>", w), flate(gray, 1)),
		img("/ColorSpace [/Indexed /DeviceRGB 3 <ff0000 00ff00 0000ff ffff00>] /BitsPerComponent 8", string(idx)),
		img("/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", jrgb.String()),
		img("/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode", jgray.String()),
		img("/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /SMask 13 0 R", jrgb.String()),
		img("/ColorSpace /DeviceGray /BitsPerComponent 8", strings.Repeat("\x80", w*h)),
		"<< /Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources << /XObject << /In 7 0 R >> >> /Length 27 >>\nstream\nq 50 0 0 40 0 0 cm /In Do Q\nendstream",
		img("/ColorSpace /DeviceGray /BitsPerComponent 1", strings.Repeat("\xf0\x0f\x55", h)),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c2), c2),
		// The dictionary says Gray, the JPEG has three components: PDFium's.
		img("/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode", jrgb.String()),
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> " + xobjs + " >> /Contents 19 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c3), c3),
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> " + xobjs + " >> /Contents 21 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c4), c4),
		// Cut short: PDFium's, whatever it makes of it.
		img("/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", jrgb.String()[:jrgb.Len()-40]),
	}
	return writePDF(objs, "")
}
