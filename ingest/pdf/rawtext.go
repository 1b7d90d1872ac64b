package pdf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"unicode/utf16"
	"unsafe"

	"github.com/klippa-app/go-pdfium"
	"github.com/tetratelabs/wazero/api"
)

// Reading page text straight from PDFium's exports. go-pdfium looks up
// the export anew on every call, which in wazero builds a call engine
// and clears a fresh stack, and it allocates and frees wasm memory for
// every out-parameter: two to three microseconds and several Go
// allocations per character box, most of a page's time outside PDFium
// itself. rawText calls the same C functions of the same instance with
// the exports looked up once and a reused stack and scratch memory. It
// opens the document a second time in the instance, for its own
// handle; outline, metadata and images still go through go-pdfium.
type rawText struct {
	mod   api.Module
	fn    [rawFnCount]api.Function
	stack []uint64
	doc   uint64 // FPDF_DOCUMENT
	data  uint64 // the file's bytes in wasm memory, kept while doc is open
	rect  uint64 // an FS_RECTF for GetLooseCharBox
	buf   uint64 // UTF-16 text buffer
	bufN  int    // its size in bytes
}

const (
	fnMalloc = iota
	fnFree
	fnLoadMemDocument64
	fnCloseDocument
	fnLoadPage
	fnClosePage
	fnPageWidth
	fnPageHeight
	fnCountObjects
	fnGetObject
	fnObjType
	fnTextLoadPage
	fnTextClosePage
	fnCountChars
	fnGetText
	fnGetUnicode
	fnLooseCharBox
	fnFontSize
	fnFontWeight
	rawFnCount
)

var rawFnNames = [rawFnCount]string{
	"malloc", "free", "FPDF_LoadMemDocument64", "FPDF_CloseDocument",
	"FPDF_LoadPage", "FPDF_ClosePage", "FPDF_GetPageWidthF", "FPDF_GetPageHeightF",
	"FPDFPage_CountObjects", "FPDFPage_GetObject", "FPDFPageObj_GetType",
	"FPDFText_LoadPage", "FPDFText_ClosePage", "FPDFText_CountChars", "FPDFText_GetText",
	"FPDFText_GetUnicode", "FPDFText_GetLooseCharBox", "FPDFText_GetFontSize", "FPDFText_GetFontWeight",
}

// moduleOf finds the wazero module behind a go-pdfium webassembly
// instance. go-pdfium does not expose it, so this reads its unexported
// worker field; when the shape is not the expected one (another
// go-pdfium version) it returns nil and the caller keeps go-pdfium's
// own calls.
func moduleOf(inst pdfium.Pdfium) (mod api.Module) {
	defer func() {
		if recover() != nil {
			mod = nil
		}
	}()
	v := reflect.ValueOf(inst)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	w := v.Elem().FieldByName("worker")
	if !w.IsValid() || w.Kind() != reflect.Pointer || w.IsNil() || w.Elem().Kind() != reflect.Struct {
		return nil
	}
	m := w.Elem().FieldByName("Module")
	if !m.IsValid() || m.Type() != reflect.TypeFor[api.Module]() {
		return nil
	}
	mod, _ = reflect.NewAt(m.Type(), unsafe.Pointer(m.UnsafeAddr())).Elem().Interface().(api.Module)
	return mod
}

// newRawText prepares direct calls into inst, or returns nil.
func newRawText(inst pdfium.Pdfium) *rawText {
	mod := moduleOf(inst)
	if mod == nil || mod.Memory() == nil {
		return nil
	}
	r := &rawText{mod: mod}
	size := 0
	for i, name := range rawFnNames {
		f := mod.ExportedFunction(name)
		if f == nil {
			return nil
		}
		d := f.Definition()
		size = max(size, len(d.ParamTypes()), len(d.ResultTypes()))
		r.fn[i] = f
	}
	r.stack = make([]uint64, size)
	return r
}

// call runs export fn with args and returns its first result.
func (r *rawText) call(ctx context.Context, fn int, args ...uint64) (uint64, error) {
	copy(r.stack, args)
	if err := r.fn[fn].CallWithStack(ctx, r.stack); err != nil {
		return 0, fmt.Errorf("%s: %w", rawFnNames[fn], err)
	}
	return r.stack[0], nil
}

// open loads the document from data and allocates the scratch memory.
func (r *rawText) open(ctx context.Context, data []byte) error {
	p, err := r.call(ctx, fnMalloc, uint64(len(data)))
	if err != nil || p == 0 {
		return errors.Join(errors.New("pdf: no wasm memory for the document"), err)
	}
	r.data = p
	if !r.mod.Memory().Write(uint32(p), data) {
		return errors.New("pdf: document outside wasm memory")
	}
	doc, err := r.call(ctx, fnLoadMemDocument64, p, uint64(len(data)), 0)
	if err != nil || uint32(doc) == 0 {
		return errors.Join(errors.New("pdf: PDFium did not open the document twice"), err)
	}
	r.doc = uint64(uint32(doc))
	if r.rect, err = r.call(ctx, fnMalloc, 16); err != nil || r.rect == 0 {
		return errors.Join(errors.New("pdf: no wasm memory"), err)
	}
	return nil
}

// close frees what open took. The instance itself is go-pdfium's.
func (r *rawText) close(ctx context.Context) {
	if r.doc != 0 {
		r.call(ctx, fnCloseDocument, r.doc)
	}
	for _, p := range []uint64{r.data, r.rect, r.buf} {
		if p != 0 {
			r.call(ctx, fnFree, p)
		}
	}
	*r = rawText{}
}

// rawTextPage is one page open through rawText.
type rawTextPage struct {
	r        *rawText
	ctx      context.Context
	page, tp uint64
}

func (r *rawText) loadPage(ctx context.Context, i int) (*rawTextPage, error) {
	pg, err := r.call(ctx, fnLoadPage, r.doc, uint64(i))
	if err != nil || uint32(pg) == 0 {
		return nil, errors.Join(errors.New("PDFium could not load the page"), err)
	}
	return &rawTextPage{r: r, ctx: ctx, page: uint64(uint32(pg))}, nil
}

func (p *rawTextPage) close() {
	if p.tp != 0 {
		p.r.call(p.ctx, fnTextClosePage, p.tp)
	}
	p.r.call(p.ctx, fnClosePage, p.page)
}

func (p *rawTextPage) size() (w, h float64) {
	if v, err := p.r.call(p.ctx, fnPageWidth, p.page); err == nil {
		w = float64(math.Float32frombits(uint32(v)))
	}
	if v, err := p.r.call(p.ctx, fnPageHeight, p.page); err == nil {
		h = float64(math.Float32frombits(uint32(v)))
	}
	return w, h
}

// mayHaveImages reports whether the page has image or form objects at
// its top level (forms may hold images), so that go-pdfium's walk for
// images is only paid on such pages.
func (p *rawTextPage) mayHaveImages() bool {
	n, err := p.r.call(p.ctx, fnCountObjects, p.page)
	if err != nil {
		return true
	}
	for k := range int32(n) {
		o, err := p.r.call(p.ctx, fnGetObject, p.page, uint64(k))
		if err != nil {
			return true
		}
		if t, err := p.r.call(p.ctx, fnObjType, o); err != nil || t == 3 || t == 5 { // FPDF_PAGEOBJ_IMAGE, FPDF_PAGEOBJ_FORM
			return true
		}
	}
	return false
}

// runes loads the text page and returns its first limit characters,
// one rune per character index.
func (p *rawTextPage) runes(limit int) ([]rune, error) {
	tp, err := p.r.call(p.ctx, fnTextLoadPage, p.page)
	if err != nil || uint32(tp) == 0 {
		return nil, errors.Join(errors.New("PDFium could not read the page's text"), err)
	}
	p.tp = uint64(uint32(tp))
	c, err := p.r.call(p.ctx, fnCountChars, p.tp)
	if err != nil {
		return nil, err
	}
	n := min(int(int32(c)), limit)
	if n <= 0 {
		return nil, nil
	}
	if need := (n + 1) * 2; p.r.bufN < need {
		if p.r.buf != 0 {
			p.r.call(p.ctx, fnFree, p.r.buf)
			p.r.buf, p.r.bufN = 0, 0
		}
		b, err := p.r.call(p.ctx, fnMalloc, uint64(need))
		if err != nil || b == 0 {
			return nil, errors.Join(errors.New("no wasm memory for the page text"), err)
		}
		p.r.buf, p.r.bufN = b, need
	}
	if w, err := p.r.call(p.ctx, fnGetText, p.tp, 0, uint64(n), p.r.buf); err == nil && int32(w) > 0 {
		if raw, ok := p.r.mod.Memory().Read(uint32(p.r.buf), uint32(int32(w))*2); ok {
			units := make([]uint16, 0, int32(w))
			for i := 0; i+1 < len(raw); i += 2 {
				units = append(units, uint16(raw[i])|uint16(raw[i+1])<<8)
			}
			rs := utf16.Decode(units)
			if len(rs) > 0 && rs[len(rs)-1] == 0 {
				rs = rs[:len(rs)-1]
			}
			if len(rs) == n {
				return rs, nil
			}
		}
	}
	rs := make([]rune, n)
	for i := range n {
		u, err := p.r.call(p.ctx, fnGetUnicode, p.tp, uint64(i))
		if err != nil {
			return nil, err
		}
		rs[i] = rune(uint32(u))
	}
	return rs, nil
}

func (p *rawTextPage) looseBox(i int) (left, top, right, bottom float32, ok bool) {
	v, err := p.r.call(p.ctx, fnLooseCharBox, p.tp, uint64(i), p.r.rect)
	if err != nil || uint32(v) == 0 {
		return 0, 0, 0, 0, false
	}
	m := p.r.mod.Memory()
	l, ok1 := m.ReadFloat32Le(uint32(p.r.rect))
	t, ok2 := m.ReadFloat32Le(uint32(p.r.rect) + 4)
	rt, ok3 := m.ReadFloat32Le(uint32(p.r.rect) + 8)
	b, ok4 := m.ReadFloat32Le(uint32(p.r.rect) + 12)
	return l, t, rt, b, ok1 && ok2 && ok3 && ok4
}

func (p *rawTextPage) font(i int) (size float64, weight int, ok bool) {
	s, err := p.r.call(p.ctx, fnFontSize, p.tp, uint64(i))
	if err != nil {
		return 0, 0, false
	}
	w, err := p.r.call(p.ctx, fnFontWeight, p.tp, uint64(i))
	if err != nil {
		return math.Float64frombits(s), -1, true
	}
	return math.Float64frombits(s), int(int32(w)), true
}
