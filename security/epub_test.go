package security

import (
	"archive/zip"
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"testing"
)

// writeAtlas writes a one-page EPUB whose page shows a picture, so the
// GM-only library holds an image: its alt text and context name the book's
// secret, its bytes are the GM's.
func writeAtlas(t *testing.T, path string) {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	add := func(name, text string, method uint16) {
		w, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(text))
	}
	add("mimetype", "application/epub+zip", zip.Store) // first and stored, as EPUB requires
	add("META-INF/container.xml", `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`, zip.Deflate)
	add("OEBPS/content.opf", `<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">atlas-zorblatt</dc:identifier>
    <dc:title>Atlas Zorblatt</dc:title>
    <dc:language>en</dc:language>
  </metadata>
  <manifest>
    <item id="p1" href="p1.xhtml" media-type="application/xhtml+xml"/>
    <item id="map" href="map.png" media-type="image/png"/>
  </manifest>
  <spine><itemref idref="p1"/></spine>
</package>`, zip.Deflate)
	add("OEBPS/p1.xhtml", `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>The Sunken Archive</title></head>
<body><h1>The Sunken Archive</h1>
<p>The way into the harbourmaster's sunken archive, shown below, opens to the password.</p>
<img src="map.png" alt="Map of the VARNQUILL vault under the tide mill"/>
<p>The cultist's map marks the VARNQUILL door with a drowned star.</p>
</body></html>`, zip.Deflate)
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for x := range 64 {
		for y := range 64 {
			img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 4), 90, 255})
		}
	}
	var p bytes.Buffer
	if err := png.Encode(&p, img); err != nil {
		t.Fatal(err)
	}
	add("OEBPS/map.png", p.String(), zip.Store)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
