package pdf

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"

	"github.com/HugoSmits86/nativewebp"
	"github.com/hearth-rpg/hearth/ingest/pdf/pdfread"
)

// Pictures the native reader can give without PDFium: an 8-bit Gray or
// RGB JPEG is kept as it is (no decoding, no re-encoding, and smaller
// than a lossless WebP of its pixels; its soft mask, if any, is left out
// as PDFium's bitmaps leave it out); other simple 8-bit images are
// decoded here and encoded as lossless WebP, as PDFium's bitmaps are. A
// page with any other image (CMYK, JBIG2, JPX, CCITT, 1-bit, a Decode
// array, a stencil or colour-key mask, an inline image, a JPEG cut short
// or unlike its dictionary) has all its images read by PDFium, so a
// page's pictures always come one way, in one order.

const (
	mediaWebP = "image/webp"
	mediaJPEG = "image/jpeg"
)

// pictureKind is how one image XObject becomes a picture.
type pictureKind int

const (
	pictureUnsupported pictureKind = iota
	pictureJPEG                    // DCT data kept as it is
	pictureDecodeRaw               // general filters, then WebP
)

// classifyImage says how im becomes a picture natively.
func classifyImage(im *pdfread.Image) pictureKind {
	if im.ImageMask || im.Mask || im.BPC != 8 || !defaultDecode(im) {
		return pictureUnsupported
	}
	gray, rgb := im.ColorSpace == "DeviceGray", im.ColorSpace == "DeviceRGB"
	if len(im.Filters) == 1 && (im.Filters[0] == "DCTDecode" || im.Filters[0] == "DCT") {
		if !gray && !rgb {
			return pictureUnsupported
		}
		// A soft mask is left out, as PDFium's bitmap of the image
		// leaves it out: the JPEG alone is the picture stored before.
		return pictureJPEG
	}
	for _, f := range im.Filters {
		switch f {
		case "FlateDecode", "Fl", "LZWDecode", "LZW", "ASCIIHexDecode", "AHx", "ASCII85Decode", "A85", "RunLengthDecode", "RL":
		default:
			return pictureUnsupported
		}
	}
	switch {
	case gray, rgb:
		return pictureDecodeRaw
	case im.ColorSpace == "Indexed" && (im.Base == "DeviceGray" || im.Base == "DeviceRGB") && im.HiVal >= 0 && im.HiVal < 256:
		return pictureDecodeRaw
	}
	return pictureUnsupported
}

// defaultDecode reports whether the Decode array is absent or the
// default (0 1 per component; 0 2^bpc-1 for Indexed).
func defaultDecode(im *pdfread.Image) bool {
	if len(im.Decode) == 0 {
		return true
	}
	hi := 1.0
	if im.ColorSpace == "Indexed" {
		hi = 255
	}
	for i, v := range im.Decode {
		want := 0.0
		if i%2 == 1 {
			want = hi
		}
		if v != want {
			return false
		}
	}
	return true
}

// nativeImages gives page pageIndex's pictures as readImages would;
// ok is false when PDFium must read them. budget is the document's
// image budget, shared with PDFium's workers.
func nativeImages(nf *pdfread.File, pg *pdfread.Page, pageIndex int, height float64, budget *imageBudget) (out []rawImage, ok bool) {
	if pg.InlineImages > 0 || pg.ImagesCut {
		return nil, false
	}
	type job struct {
		im   *pdfread.Image
		kind pictureKind
	}
	var jobs []job
	for k := range pg.Images {
		im := &pg.Images[k]
		if im.FormDepth > maxFormDepth {
			continue // PDFium's walk does not reach it either
		}
		if im.Width < minImageSide || im.Height < minImageSide || im.Width*im.Height > maxImagePixels {
			continue
		}
		kind := classifyImage(im)
		if kind == pictureUnsupported {
			return nil, false
		}
		jobs = append(jobs, job{im, kind})
	}
	taken := 0
	defer func() {
		if !ok {
			budget.giveBack(pageIndex, taken) // PDFium takes them again
		}
	}()
	for _, j := range jobs {
		if !budget.take(pageIndex) {
			break
		}
		taken++
		r, err := nativePicture(nf, j.im, j.kind)
		if err != nil {
			return nil, false
		}
		_, y0, _, y1 := j.im.Box()
		r.top, r.bottom = height-y1, height-y0
		r.page, r.index = pageIndex+1, len(out)
		out = append(out, r)
	}
	return out, true
}

// nativePicture makes one picture.
func nativePicture(nf *pdfread.File, im *pdfread.Image, kind pictureKind) (rawImage, error) {
	r := rawImage{width: im.Width, height: im.Height}
	switch kind {
	case pictureJPEG:
		raw := im.Raw()
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(raw))
		if err != nil {
			return r, fmt.Errorf("%v: %v", im, err)
		}
		comps := 3
		if cfg.ColorModel == color.GrayModel {
			comps = 1
		} else if cfg.ColorModel == color.CMYKModel {
			comps = 4
		}
		if cfg.Width != im.Width || cfg.Height != im.Height || comps != im.Components {
			// The dictionary and the JPEG disagree: PDFium's way.
			return r, fmt.Errorf("%v: the JPEG is %dx%d with %d components", im, cfg.Width, cfg.Height, comps)
		}
		// A JPEG cut short would be stored cut short; PDFium decodes
		// what there is of it.
		end := bytes.TrimRight(raw, "\x00\t\n\r ")
		if !bytes.HasSuffix(end, []byte{0xff, 0xd9}) {
			return r, fmt.Errorf("%v: the JPEG does not end with its end marker", im)
		}
		r.data, r.mediaType = end, mediaJPEG
		return r, nil
	case pictureDecodeRaw:
		data, err := nf.DecodeImage(im)
		if err != nil {
			return r, err
		}
		img, err := rawToNRGBA(im, data)
		if err != nil {
			return r, err
		}
		return encodeWebP(r, img)
	}
	return r, fmt.Errorf("%v: not read natively", im)
}

func encodeWebP(r rawImage, img *image.NRGBA) (rawImage, error) {
	var buf bytes.Buffer
	if err := nativewebp.Encode(&buf, img, nil); err != nil {
		return r, err
	}
	r.data, r.mediaType = buf.Bytes(), mediaWebP
	return r, nil
}

// rawToNRGBA turns 8-bit Gray, RGB or Indexed samples into an image.
func rawToNRGBA(im *pdfread.Image, data []byte) (*image.NRGBA, error) {
	w, h := im.Width, im.Height
	comps := im.Components
	if comps != 1 && comps != 3 {
		return nil, fmt.Errorf("%v: %d components", im, comps)
	}
	if len(data) < w*h*comps {
		return nil, fmt.Errorf("%v: %d bytes of samples, %d needed", im, len(data), w*h*comps)
	}
	var pal []byte
	if im.ColorSpace == "Indexed" {
		bc := im.BaseComponents
		pal = make([]byte, 256*3) // short tables read as black, as in PDFium
		for i := 0; i <= im.HiVal && (i+1)*bc <= len(im.Palette); i++ {
			for c := range 3 {
				pal[3*i+c] = im.Palette[i*bc+min(c, bc-1)]
			}
		}
	}
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		src := data[y*w*comps:]
		d := dst.Pix[y*dst.Stride:]
		for x := range w {
			var r, g, b byte
			switch {
			case pal != nil:
				i := int(src[x])
				if i > im.HiVal {
					i = im.HiVal
				}
				r, g, b = pal[3*i], pal[3*i+1], pal[3*i+2]
			case comps == 1:
				r = src[x]
				g, b = r, r
			default:
				r, g, b = src[3*x], src[3*x+1], src[3*x+2]
			}
			d[4*x], d[4*x+1], d[4*x+2], d[4*x+3] = r, g, b, 255
		}
	}
	return dst, nil
}
