package pdf

import (
	"bytes"
	"image"
	"strings"

	"github.com/HugoSmits86/nativewebp"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

const (
	minImageSide   = 16         // smaller images are rules, bullets, specks
	maxImagePixels = 40_000_000 // larger ones are skipped, not decoded
	maxFormDepth   = 4          // nesting of form XObjects searched for images
	contextChars   = 300
)

// rawImage is an image found on a page, already encoded.
type rawImage struct {
	page, index   int // page is 1-based
	width, height int
	data          []byte
	mediaType     string  // image/webp or image/jpeg
	top, bottom   float64 // top-down page coordinates
}

// readImages finds the image objects of a page, also inside form
// XObjects, and encodes each as lossless WebP. PDFium's bitmap of an image leaves
// its soft mask and mask out.
func (w *worker) readImages(page requests.Page, pageIndex int, height float64) []rawImage {
	var out []rawImage
	var objs []references.FPDF_PAGEOBJECT
	cnt, err := w.inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil {
		return nil
	}
	for k := range cnt.Count {
		o, err := w.inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: k})
		if err == nil {
			objs = append(objs, o.PageObject)
		}
	}
	var visit func(objs []references.FPDF_PAGEOBJECT, depth int)
	visit = func(objs []references.FPDF_PAGEOBJECT, depth int) {
		for _, o := range objs {
			t, err := w.inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: o})
			if err != nil {
				continue
			}
			switch t.Type {
			case enums.FPDF_PAGEOBJ_IMAGE:
				if !w.imgBudget.take(pageIndex) {
					return
				}
				img, ok := w.readImage(o, height)
				if !ok {
					w.imgBudget.giveBack(pageIndex, 1)
					continue
				}
				img.page, img.index = pageIndex+1, len(out)
				out = append(out, img)
			case enums.FPDF_PAGEOBJ_FORM:
				if depth >= maxFormDepth {
					continue
				}
				n, err := w.inst.FPDFFormObj_CountObjects(&requests.FPDFFormObj_CountObjects{PageObject: o})
				if err != nil {
					continue
				}
				var kids []references.FPDF_PAGEOBJECT
				for k := range n.Count {
					c, err := w.inst.FPDFFormObj_GetObject(&requests.FPDFFormObj_GetObject{PageObject: o, Index: uint64(k)})
					if err == nil {
						kids = append(kids, c.PageObject)
					}
				}
				visit(kids, depth+1)
			}
		}
	}
	visit(objs, 0)
	return out
}

func (w *worker) readImage(o references.FPDF_PAGEOBJECT, height float64) (rawImage, bool) {
	size, err := w.inst.FPDFImageObj_GetImagePixelSize(&requests.FPDFImageObj_GetImagePixelSize{ImageObject: o})
	if err != nil || size.Width < minImageSide || size.Height < minImageSide || size.Width*size.Height > maxImagePixels {
		return rawImage{}, false
	}
	bm, err := w.inst.FPDFImageObj_GetBitmap(&requests.FPDFImageObj_GetBitmap{ImageObject: o})
	if err != nil || bm.Bitmap == "" {
		return rawImage{}, false
	}
	defer w.inst.FPDFBitmap_Destroy(&requests.FPDFBitmap_Destroy{Bitmap: bm.Bitmap})
	img := w.bitmapImage(bm.Bitmap)
	if img == nil {
		return rawImage{}, false
	}
	var buf bytes.Buffer
	if err := nativewebp.Encode(&buf, img, nil); err != nil {
		return rawImage{}, false
	}
	r := rawImage{width: img.Rect.Dx(), height: img.Rect.Dy(), data: buf.Bytes(), mediaType: mediaWebP}
	if b, err := w.inst.FPDFPageObj_GetBounds(&requests.FPDFPageObj_GetBounds{PageObject: o}); err == nil {
		r.top, r.bottom = height-float64(b.Top), height-float64(b.Bottom)
	}
	return r, true
}

// bitmapImage copies a PDFium bitmap into an image.NRGBA.
func (w *worker) bitmapImage(bm references.FPDF_BITMAP) *image.NRGBA {
	f, err := w.inst.FPDFBitmap_GetFormat(&requests.FPDFBitmap_GetFormat{Bitmap: bm})
	if err != nil {
		return nil
	}
	wd, err1 := w.inst.FPDFBitmap_GetWidth(&requests.FPDFBitmap_GetWidth{Bitmap: bm})
	ht, err2 := w.inst.FPDFBitmap_GetHeight(&requests.FPDFBitmap_GetHeight{Bitmap: bm})
	st, err3 := w.inst.FPDFBitmap_GetStride(&requests.FPDFBitmap_GetStride{Bitmap: bm})
	buf, err4 := w.inst.FPDFBitmap_GetBuffer(&requests.FPDFBitmap_GetBuffer{Bitmap: bm})
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return nil
	}
	width, height, stride, data := wd.Width, ht.Height, st.Stride, buf.Buffer
	var bpp int
	switch f.Format {
	case enums.FPDF_BITMAP_FORMAT_GRAY:
		bpp = 1
	case enums.FPDF_BITMAP_FORMAT_BGR:
		bpp = 3
	case enums.FPDF_BITMAP_FORMAT_BGRX, enums.FPDF_BITMAP_FORMAT_BGRA:
		bpp = 4
	default:
		return nil
	}
	if width <= 0 || height <= 0 || stride < width*bpp || len(data) < stride*(height-1)+width*bpp {
		return nil
	}
	img := image.NewNRGBA(image.Rect(0, 0, width, height))
	for y := range height {
		row := data[y*stride:]
		dst := img.Pix[y*img.Stride:]
		for x := range width {
			p := row[x*bpp:]
			d := dst[x*4 : x*4+4]
			switch bpp {
			case 1:
				d[0], d[1], d[2], d[3] = p[0], p[0], p[0], 255
			case 3:
				d[0], d[1], d[2], d[3] = p[2], p[1], p[0], 255
			default:
				a := byte(255)
				if f.Format == enums.FPDF_BITMAP_FORMAT_BGRA {
					a = p[3]
				}
				d[0], d[1], d[2], d[3] = p[2], p[1], p[0], a
			}
		}
	}
	return img
}

// collectImages numbers the images and gives each the text nearest to
// it on its page, the caption usually, as context.
func collectImages(raw []*rawPage, pages [][]line, limit int) []ingest.Image {
	var out []ingest.Image
	for p, rp := range raw {
		for _, im := range rp.images {
			if limit >= 0 && len(out) >= limit {
				return out
			}
			out = append(out, ingest.Image{
				Page: im.page, Index: im.index, Width: im.width, Height: im.height,
				Data: im.data, MediaType: im.mediaType, Context: imageContext(pages[p], im),
			})
		}
	}
	return out
}

// imageContext takes the lines closest to the image, below it first,
// up to contextChars characters.
func imageContext(ls []line, im rawImage) string {
	if len(ls) == 0 {
		return ""
	}
	start := 0
	best := -1.0
	for i, l := range ls {
		var d float64
		switch {
		case l.top >= im.bottom:
			d = l.top - im.bottom
		case l.bottom <= im.top:
			d = (im.top - l.bottom) * 1.5 // text above is less often the caption
		default:
			d = 0
		}
		if best < 0 || d < best {
			best, start = d, i
		}
	}
	var b strings.Builder
	for _, l := range ls[start:] {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(l.text)
		if b.Len() >= contextChars {
			break
		}
	}
	s := b.String()
	if len(s) > contextChars {
		cut := strings.LastIndexByte(s[:contextChars], ' ')
		if cut <= 0 {
			cut = contextChars
		}
		s = strings.ToValidUTF8(s[:cut], "")
	}
	return s
}
