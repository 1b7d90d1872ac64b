package epub

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/HugoSmits86/nativewebp"
)

func picture(w, h int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x * 7), uint8(y * 5), 90, 255})
		}
	}
	return img
}

func encoded(t testing.TB, format string, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&buf, picture(w, h))
	case "jpeg":
		err = jpeg.Encode(&buf, picture(w, h), nil)
	case "gif":
		err = gif.Encode(&buf, picture(w, h), nil)
	case "webp":
		err = nativewebp.Encode(&buf, picture(w, h), nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// illustratedEPUB has good images, bad ones, and one whose path climbs out
// of the book towards an entry a careless reader would clamp it to.
func illustratedEPUB(t testing.TB) []byte {
	return illustrated(t, [4][2]int{{120, 80}, {64, 96}, {40, 30}, {50, 50}})
}

// illustrated is illustratedEPUB with the given sizes of the map, the
// portrait, the wyvern and the secret: the fuzz seed uses the smallest
// kept, as converting images costs most of an iteration.
func illustrated(t testing.TB, size [4][2]int) []byte {
	return book(t,
		[2]string{"mimetype", "application/epub+zip"},
		[2]string{"META-INF/container.xml", containerXML},
		[2]string{"OEBPS/content.opf", opfXML(
			`<item id="c1" href="text/c1.xhtml" media-type="application/xhtml+xml"/>
			 <item id="c2" href="text/c2.xhtml" media-type="application/xhtml+xml"/>
			 <item id="c3" href="text/c3.xhtml" media-type="application/xhtml+xml"/>`,
			`<itemref idref="c1"/><itemref idref="c2"/><itemref idref="c3"/>`)},
		[2]string{"OEBPS/text/c1.xhtml", `<html><body><h1>Maps</h1>
			<figure><img src="../images/vale%20map.png" alt="Map of the vale"/><figcaption>The vale of Ost, north at the top.</figcaption></figure>
			<p><img src="../images/bullet.png" alt=""/> A tiny bullet is not a picture.</p>
			<p><img src="../images/portrait.jpg"/></p><p>Lady Ysolde.</p>
			<img src="../images/vale%20map.png" alt="the same map again"/></body></html>`},
		[2]string{"OEBPS/text/c2.xhtml", `<html><body><h1>Beasts</h1>
			<p>Before.</p>
			<img src="../../../secret.png" alt="climbing"/>
			<img src="http://example.com/remote.png"/>
			<img src="../images/missing.png"/>
			<img src="../images/broken.png"/>
			<img src="../images/drawing.svg"/>
			<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="../images/wyvern.gif"/></svg>
			<p>The wyvern.</p>
			<img src="../images/already.webp"/></body></html>`},
		[2]string{"OEBPS/text/c3.xhtml", `<html><body><p>No pictures here.</p><img src="../images/portrait.jpg"/></body></html>`},
		[2]string{"OEBPS/images/vale map.png", encoded(t, "png", size[0][0], size[0][1])},
		[2]string{"OEBPS/images/bullet.png", encoded(t, "png", 4, 4)},
		[2]string{"OEBPS/images/portrait.jpg", encoded(t, "jpeg", size[1][0], size[1][1])},
		[2]string{"OEBPS/images/broken.png", "\x89PNG\r\n\x1a\nnot really"},
		[2]string{"OEBPS/images/drawing.svg", `<svg xmlns="http://www.w3.org/2000/svg"/>`},
		[2]string{"OEBPS/images/wyvern.gif", encoded(t, "gif", size[2][0], size[2][1])},
		[2]string{"OEBPS/images/already.webp", encoded(t, "webp", 33, 17)},
		[2]string{"secret.png", encoded(t, "png", size[3][0], size[3][1])},
	)
}

func TestImages(t *testing.T) {
	doc, err := New(Limits{}).Extract(context.Background(), illustratedEPUB(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	type got struct{ page, index, w, h int }
	want := []got{{1, 0, 120, 80}, {1, 1, 64, 96}, {2, 0, 40, 30}, {2, 1, 33, 17}, {3, 0, 64, 96}}
	if len(doc.Images) != len(want) {
		for _, im := range doc.Images {
			t.Logf("page %d #%d %dx%d %q", im.Page, im.Index, im.Width, im.Height, im.Context)
		}
		t.Fatalf("%d images, want %d; warnings:\n%s", len(doc.Images), len(want), strings.Join(doc.Warnings, "\n"))
	}
	for i, im := range doc.Images {
		if g := (got{im.Page, im.Index, im.Width, im.Height}); g != want[i] {
			t.Errorf("image %d: %+v, want %+v", i, g, want[i])
		}
		if w, h, err := webpSize(im.Data); err != nil || w != im.Width || h != im.Height {
			t.Errorf("image %d is not a %dx%d WebP: %dx%d %v", i, im.Width, im.Height, w, h, err)
		}
	}
	if c := doc.Images[0].Context; !strings.Contains(c, "Map of the vale") || !strings.Contains(c, "north at the top") {
		t.Errorf("context of the map = %q", c)
	}
	if c := doc.Images[2].Context; !strings.HasPrefix(c, "The wyvern.") {
		t.Errorf("context of the wyvern = %q", c)
	}
	warnings := strings.Join(doc.Warnings, "\n")
	for _, w := range []string{
		`page 2: image "../../../secret.png" skipped: refused: its path leaves the book`,
		`image "http://example.com/remote.png" skipped: it is not a file inside the book`,
		`image "../images/missing.png" skipped: `,
		`image "../images/broken.png" skipped: `,
		`image "../images/drawing.svg" skipped: SVG`,
	} {
		if !strings.Contains(warnings, w) {
			t.Errorf("warnings lack %q:\n%s", w, warnings)
		}
	}
	if len(doc.Warnings) != 5 {
		t.Errorf("%d warnings, want 5:\n%s", len(doc.Warnings), warnings)
	}
	for _, im := range doc.Images {
		if im.Width == 50 && im.Height == 50 {
			t.Errorf("the image outside the book's folder was read through ../: %+v", im)
		}
	}
}

func TestImageLimits(t *testing.T) {
	for _, tt := range []struct{ max, want int }{{1, 1}, {-1, 0}, {0, 5}} {
		doc, err := New(Limits{MaxImages: tt.max}).Extract(context.Background(), illustratedEPUB(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Images) != tt.want {
			t.Errorf("MaxImages %d: %d images, want %d", tt.max, len(doc.Images), tt.want)
		}
	}
}

// The SRD EPUB shows no pictures: none are found and none are missed.
func TestSRDImages(t *testing.T) {
	doc, err := New(Limits{}).Extract(context.Background(), readSRD(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Images) != 0 || len(doc.Warnings) != 0 {
		t.Errorf("%d images, warnings %q; the book has none", len(doc.Images), doc.Warnings)
	}
}

func TestWebPSize(t *testing.T) {
	vp8x := []byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x10\x00\x00\x00\x2b\x01\x00\xc7\x00\x00")
	vp8 := []byte("RIFF\x00\x00\x00\x00WEBPVP8 \x00\x00\x00\x00\x00\x00\x00\x9d\x01\x2a\x40\x01\xf0\x00")
	tests := []struct {
		name string
		b    []byte
		w, h int
		ok   bool
	}{
		{"lossless", []byte(encoded(t, "webp", 300, 21)), 300, 21, true},
		{"extended", vp8x, 300, 200, true},
		{"lossy", vp8, 320, 240, true},
		{"cut short", vp8[:26], 0, 0, false},
		{"not webp", []byte(encoded(t, "png", 20, 20)), 0, 0, false},
		{"bad lossy start code", append(append([]byte{}, vp8[:23]...), 0, 0, 0, 0, 0, 0, 0), 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h, err := webpSize(tt.b)
			if (err == nil) != tt.ok || w != tt.w || h != tt.h {
				t.Errorf("%dx%d %v, want %dx%d ok=%v", w, h, err, tt.w, tt.h, tt.ok)
			}
		})
	}
}

// FuzzWebPSize reads arbitrary headers: a size or an error, never a panic.
func FuzzWebPSize(f *testing.F) {
	f.Add([]byte(encoded(f, "webp", 20, 20)))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, h, err := webpSize(b)
		if err == nil && (w <= 0 || h <= 0) {
			t.Fatalf("size %dx%d without an error", w, h)
		}
	})
}
