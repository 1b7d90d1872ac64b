package epub

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // decoders for the formats books carry
	_ "image/jpeg"
	_ "image/png"
	"path"
	"strings"

	"github.com/HugoSmits86/nativewebp"

	"github.com/hearth-rpg/hearth/ingest"
)

const (
	minImageSide   = 16         // smaller images are rules, bullets, specks (as for PDFs)
	maxImagePixels = 40_000_000 // larger ones are skipped, not decoded
	contextChars   = 300
)

// imageRef is an image an XHTML page shows: <img src> or an SVG <image
// href>, with its alt text and where in the page's text it stands.
type imageRef struct {
	src, alt string
	at       int // offset in the page's raw text
}

// converted is one archive image, converted once however often it is
// shown.
type converted struct {
	webp          []byte
	width, height int
	err           error
}

// imageReader turns the images of spine items into WebP, in spine order,
// within the book's image budget.
type imageReader struct {
	a      *archive
	budget int // images still allowed; negative: none are read
	done   map[string]converted
}

func newImageReader(a *archive) *imageReader {
	return &imageReader{a: a, budget: a.limits.MaxImages, done: map[string]converted{}}
}

// page converts the images of one spine item (page, from 1; base, its
// archive path), each once per page, with the text after it as context.
// What cannot be read becomes a warning, never an error: a book with a
// broken picture is still a book.
func (r *imageReader) page(ctx context.Context, page int, base string, refs []imageRef, raw string) ([]ingest.Image, []string) {
	var out []ingest.Image
	var warnings []string
	seen := map[string]bool{}
	for _, ref := range refs {
		if r.budget <= 0 {
			break
		}
		if ctx.Err() != nil {
			return out, warnings
		}
		p, err := imagePath(base, ref.src)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("page %d: image %q skipped: %v", page, ref.src, err))
			continue
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		c, ok := r.done[p]
		if !ok {
			c = r.convert(p)
			r.done[p] = c
		}
		switch {
		case errors.Is(c.err, errTooSmall):
			continue
		case c.err != nil:
			warnings = append(warnings, fmt.Sprintf("page %d: image %q skipped: %v", page, ref.src, c.err))
			continue
		}
		r.budget--
		out = append(out, ingest.Image{
			Page: page, Index: len(out), Width: c.width, Height: c.height,
			Data: c.webp, MediaType: "image/webp", Context: imageContext(ref, raw),
		})
	}
	return out, warnings
}

// imagePath resolves an image reference inside the archive. A reference
// that climbs out of the book, is absolute or points elsewhere is refused:
// nothing outside the archive is ever read.
func imagePath(base, src string) (string, error) {
	src = strings.TrimSpace(src)
	switch {
	case src == "":
		return "", errors.New("it has no address")
	case strings.HasPrefix(strings.ToLower(src), "data:"), strings.Contains(src, "://"):
		return "", errors.New("it is not a file inside the book (remote and inline images are not read)")
	}
	p, err := resolve(base, src)
	if err != nil {
		return "", fmt.Errorf("refused: its path leaves the book (%s); nothing outside the archive is read", strings.TrimPrefix(err.Error(), ingest.ErrCorrupt.Error()+": "))
	}
	return p, nil
}

var errTooSmall = errors.New("too small to keep")

// convert reads one archive image and encodes it as WebP (a WebP is kept
// as it is).
func (r *imageReader) convert(p string) converted {
	if strings.EqualFold(path.Ext(p), ".svg") {
		return converted{err: errors.New("SVG drawings are not converted (there is no rasterizer)")}
	}
	b, err := r.a.open(p)
	if err != nil {
		return converted{err: err}
	}
	if isWebP(b) {
		w, h, err := webpSize(b)
		if err != nil {
			return converted{err: err}
		}
		if err := checkSize(w, h); err != nil {
			return converted{err: err}
		}
		return converted{webp: b, width: w, height: h}
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return converted{err: fmt.Errorf("not a JPEG, PNG, GIF or WebP image this reader can decode (%v)", err)}
	}
	if err := checkSize(cfg.Width, cfg.Height); err != nil {
		return converted{err: err}
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return converted{err: fmt.Errorf("damaged image: %v", err)}
	}
	var buf bytes.Buffer
	if err := nativewebp.Encode(&buf, img, nil); err != nil {
		return converted{err: fmt.Errorf("encode as WebP: %v", err)}
	}
	bd := img.Bounds()
	return converted{webp: buf.Bytes(), width: bd.Dx(), height: bd.Dy()}
}

func checkSize(w, h int) error {
	switch {
	case w < minImageSide || h < minImageSide:
		return errTooSmall
	case w*h > maxImagePixels:
		return fmt.Errorf("%dx%d pixels is more than the %d allowed", w, h, maxImagePixels)
	}
	return nil
}

func isWebP(b []byte) bool {
	return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
}

// webpSize reads a WebP's canvas size from its first chunk: VP8X (the
// extended format), VP8L (lossless) or VP8 (lossy).
func webpSize(b []byte) (int, int, error) {
	bad := errors.New("damaged WebP image: its header is cut short or wrong")
	if !isWebP(b) || len(b) < 30 {
		return 0, 0, bad
	}
	switch string(b[12:16]) {
	case "VP8X":
		w := 1 + (int(b[24]) | int(b[25])<<8 | int(b[26])<<16)
		h := 1 + (int(b[27]) | int(b[28])<<8 | int(b[29])<<16)
		return w, h, nil
	case "VP8L":
		if b[20] != 0x2f {
			return 0, 0, bad
		}
		v := binary.LittleEndian.Uint32(b[21:25])
		return 1 + int(v&0x3fff), 1 + int(v>>14&0x3fff), nil
	case "VP8 ":
		if b[23] != 0x9d || b[24] != 0x01 || b[25] != 0x2a {
			return 0, 0, bad
		}
		w := int(binary.LittleEndian.Uint16(b[26:28]) & 0x3fff)
		h := int(binary.LittleEndian.Uint16(b[28:30]) & 0x3fff)
		if w == 0 || h == 0 {
			return 0, 0, bad
		}
		return w, h, nil
	}
	return 0, 0, bad
}

// imageContext is the alt text and the page text after the image (its
// caption, usually), up to contextChars characters.
func imageContext(ref imageRef, raw string) string {
	var parts []string
	if alt := strings.Join(strings.Fields(ref.alt), " "); alt != "" {
		parts = append(parts, alt)
	}
	if ref.at >= 0 && ref.at <= len(raw) {
		after := strings.Fields(raw[ref.at:min(len(raw), ref.at+4*contextChars)])
		parts = append(parts, strings.Join(after, " "))
	}
	s := strings.TrimSpace(strings.Join(parts, " — "))
	if len(s) > contextChars {
		cut := strings.LastIndexByte(s[:contextChars], ' ')
		if cut <= 0 {
			cut = contextChars
		}
		s = s[:cut]
	}
	return strings.ToValidUTF8(s, "")
}
