package pdfread

import "fmt"

// Limits on the images reported for one page.
const (
	maxImagesPerPage = 4096
	maxPaletteBytes  = 256 * 4
)

// Image is an image XObject as a page's content draws it (Do), in
// drawing order, forms included.
type Image struct {
	Object int // the XObject's object number, 0 if direct
	// Width and Height are the dictionary's, in samples; BPC its
	// BitsPerComponent (0 when absent, as for JPX).
	Width, Height, BPC int
	// ColorSpace is DeviceGray, DeviceRGB, DeviceCMYK, Indexed or
	// another family name as written (CalRGB and ICCBased map to
	// their device family by N); "" when absent or unreadable.
	ColorSpace string
	// Components is the samples per pixel (for Indexed, 1).
	Components int
	// For Indexed: the base family (DeviceGray, DeviceRGB, …), its
	// components, HiVal and the lookup table (possibly short).
	Base           string
	BaseComponents int
	HiVal          int
	Palette        []byte
	// Filters and their DecodeParms, in order; Decode the Decode array.
	Filters   []Name
	Params    []Dict
	Decode    []float64
	SMask     bool // a soft mask is given
	Mask      bool // a stencil or colour-key mask is given
	ImageMask bool // the image is itself a stencil mask
	// CTM maps the unit square onto the page (PDF user space, y up).
	CTM [6]float64
	// FormDepth is how many Form XObjects the Do sits inside.
	FormDepth int
	stream    *Stream
}

// Box is the image's bounding box on the page, in PDF user space.
func (im *Image) Box() (x0, y0, x1, y1 float64) {
	m := matrix(im.CTM)
	x0, y0 = m.apply(0, 0)
	x1, y1 = x0, y0
	for _, p := range [][2]float64{{1, 0}, {0, 1}, {1, 1}} {
		x, y := m.apply(p[0], p[1])
		x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
	}
	return x0, y0, x1, y1
}

// Raw is the image stream's bytes as stored, still encoded.
func (im *Image) Raw() []byte {
	if im.stream == nil {
		return nil
	}
	return im.stream.Raw
}

// DecodeImage applies the image's general filters (Flate, LZW, ASCII,
// run length); image-only filters (DCT, JPX, CCITT, JBIG2) give an
// ErrUnsupported error.
func (f *File) DecodeImage(im *Image) ([]byte, error) {
	if im.stream == nil {
		return nil, malformed("image without a stream")
	}
	return f.decode(im.stream)
}

// image records the image XObject s drawn at the current CTM.
func (in *interp) image(s *Stream, res Dict) {
	if len(in.page.Images) >= maxImagesPerPage {
		in.page.ImagesCut = true
		return
	}
	f := in.f
	d := s.Dict
	im := Image{Object: s.ref.Num, CTM: in.gs.ctm, FormDepth: in.forms, stream: s}
	im.Width = intOf(f.R(d["Width"]))
	im.Height = intOf(f.R(d["Height"]))
	im.BPC = intOf(f.R(d["BitsPerComponent"]))
	if b, _ := f.R(d["ImageMask"]).(bool); b {
		im.ImageMask = true
	}
	im.SMask = f.R(d["SMask"]) != nil
	im.Mask = f.R(d["Mask"]) != nil
	im.Filters, im.Params = f.filterList(d)
	if a, ok := f.R(d["Decode"]).(Array); ok && len(a) <= 64 {
		for _, v := range a {
			x, _ := num(f.R(v))
			im.Decode = append(im.Decode, x)
		}
	}
	cs := f.R(d["ColorSpace"])
	if n, ok := cs.(Name); ok && !isDeviceSpace(n) {
		// A resource name: some writers use one here.
		if r := f.R(f.dict(res["ColorSpace"])[n]); r != nil {
			cs = r
		}
	}
	im.ColorSpace, im.Components = f.colorSpace(cs, 0)
	if im.ColorSpace == "Indexed" {
		a := cs.(Array)
		im.Base, im.BaseComponents = f.colorSpace(f.R(a[1]), 1)
		im.HiVal = intOf(f.R(a[2]))
		switch t := f.R(a[3]).(type) {
		case String:
			im.Palette = []byte(t)
		case *Stream:
			if b, err := f.decode(t); err == nil {
				im.Palette = b
			}
		}
		if len(im.Palette) > maxPaletteBytes {
			im.Palette = im.Palette[:maxPaletteBytes]
		}
	}
	in.page.Images = append(in.page.Images, im)
}

func isDeviceSpace(n Name) bool {
	switch n {
	case "DeviceGray", "DeviceRGB", "DeviceCMYK", "G", "RGB", "CMYK", "Pattern":
		return true
	}
	return false
}

// colorSpace names a colour space's family and its components per
// sample; depth bounds the Indexed base's recursion.
func (f *File) colorSpace(o Object, depth int) (string, int) {
	switch v := o.(type) {
	case Name:
		switch v {
		case "DeviceGray", "G", "CalGray":
			return "DeviceGray", 1
		case "DeviceRGB", "RGB", "CalRGB":
			return "DeviceRGB", 3
		case "DeviceCMYK", "CMYK":
			return "DeviceCMYK", 4
		}
		return string(v), 0
	case Array:
		if len(v) == 0 {
			return "", 0
		}
		fam, _ := f.R(v[0]).(Name)
		switch fam {
		case "ICCBased":
			if len(v) < 2 {
				return "", 0
			}
			s, ok := f.R(v[1]).(*Stream)
			if !ok {
				return "", 0
			}
			switch intOf(f.R(s.Dict["N"])) {
			case 1:
				return "DeviceGray", 1
			case 3:
				return "DeviceRGB", 3
			case 4:
				return "DeviceCMYK", 4
			}
			return "ICCBased", 0
		case "CalGray", "CalRGB", "DeviceGray", "DeviceRGB", "DeviceCMYK":
			return f.colorSpace(fam, depth)
		case "Indexed", "I":
			if depth > 0 || len(v) < 4 {
				return "", 0
			}
			return "Indexed", 1
		}
		return string(fam), 0
	}
	return "", 0
}

func intOf(o Object) int {
	switch v := o.(type) {
	case int64:
		if v < 0 || v > 1<<30 {
			return 0
		}
		return int(v)
	case float64:
		if v < 0 || v > 1<<30 {
			return 0
		}
		return int(v)
	}
	return 0
}

func (im *Image) String() string {
	return fmt.Sprintf("image %d: %dx%d %d-bit %s %v", im.Object, im.Width, im.Height, im.BPC, im.ColorSpace, im.Filters)
}
