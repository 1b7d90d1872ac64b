package pdfread

import "fmt"

// PageRef is one page's dictionary with its inherited attributes.
type PageRef struct {
	Ref       Ref // the page object's number, zero for a direct one
	Dict      Dict
	Resources Dict
	MediaBox  [4]float64
	CropBox   [4]float64
	Rotate    int
}

// Pages walks the page tree and returns the pages in order, with
// Resources, MediaBox, CropBox and Rotate inherited. limit bounds the
// page count.
func (f *File) Pages(limit int) ([]PageRef, error) {
	cat := f.dict(f.trailer["Root"])
	if cat == nil {
		return nil, malformed("no document catalog")
	}
	root, ok := cat["Pages"]
	if !ok {
		return nil, malformed("the catalog has no /Pages")
	}
	var out []PageRef
	visited := map[Ref]bool{}
	nodes := 0
	var walk func(o Object, inh PageRef, depth int) error
	walk = func(o Object, inh PageRef, depth int) error {
		if r, ok := o.(Ref); ok {
			if visited[r] {
				return malformed("page tree loops at object %d", r.Num)
			}
			visited[r] = true
		}
		nodes++
		if nodes > maxPageTreeSize || depth > maxDepth {
			return malformed("page tree too large or too deep")
		}
		d := f.dict(o)
		if d == nil {
			return nil // a missing page node; PDFium skips it too
		}
		if res := f.dict(d["Resources"]); res != nil {
			inh.Resources = res
		}
		if b, ok := f.box(d["MediaBox"]); ok {
			inh.MediaBox = b
		}
		if b, ok := f.box(d["CropBox"]); ok {
			inh.CropBox = b
		}
		if r, ok := f.R(d["Rotate"]).(int64); ok {
			inh.Rotate = int(r)
		}
		kids, isNode := f.R(d["Kids"]).(Array)
		if t, _ := f.R(d["Type"]).(Name); t == "Page" || !isNode {
			inh.Dict = d
			inh.Ref, _ = o.(Ref)
			if len(out) >= limit {
				return fmt.Errorf("%w: more than %d pages", ErrTooManyPages, limit)
			}
			out = append(out, inh)
			return nil
		}
		for _, k := range kids {
			if err := walk(k, inh, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, PageRef{MediaBox: [4]float64{0, 0, 612, 792}}, 0); err != nil {
		return nil, err
	}
	for i := range out {
		p := &out[i]
		if p.CropBox == ([4]float64{}) {
			p.CropBox = p.MediaBox
		}
		p.Rotate = ((p.Rotate % 360) + 360) % 360
	}
	return out, nil
}

// ErrTooManyPages: the page tree has more pages than the caller allows.
var ErrTooManyPages = fmt.Errorf("%w: too many pages", ErrMalformed)

func (f *File) box(o Object) ([4]float64, bool) {
	a, ok := f.R(o).(Array)
	if !ok || len(a) != 4 {
		return [4]float64{}, false
	}
	var b [4]float64
	for i := range 4 {
		v, ok := num(f.R(a[i]))
		if !ok {
			return [4]float64{}, false
		}
		b[i] = v
	}
	if b[0] > b[2] {
		b[0], b[2] = b[2], b[0]
	}
	if b[1] > b[3] {
		b[1], b[3] = b[3], b[1]
	}
	return b, true
}

// HasOutline reports whether the catalog has bookmarks.
func (f *File) HasOutline() bool {
	cat := f.dict(f.trailer["Root"])
	o := f.dict(cat["Outlines"])
	return o != nil && o["First"] != nil
}
