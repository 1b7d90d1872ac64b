package pdf

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/pdf/pdfread"
	"github.com/klippa-app/go-pdfium/requests"
)

// The native reader (package pdfread) reads the text of most PDFs at a
// fraction of PDFium's cost: PDFium's page loading was nine tenths of
// the time. Its characters go through the same word building and layout
// as PDFium's, so both paths give the same kind of lines. PDFium still
// reads what the native reader cannot (a page whose fonts it cannot map
// to Unicode, a file it cannot parse), the bookmarks, and the images of
// the pages that have any.

// openNative parses the file's structure natively; ok is false when
// PDFium should read the whole file.
func openNative(data []byte, maxPages int) (nf *pdfread.File, refs []pdfread.PageRef, ok bool) {
	defer func() {
		// Input the reader did not expect goes to PDFium whole.
		if recover() != nil {
			nf, refs, ok = nil, nil, false
		}
	}()
	nf, err := pdfread.Open(data)
	if err != nil {
		return nil, nil, false
	}
	refs, err = nf.Pages(maxPages + 1)
	if err != nil || len(refs) == 0 {
		return nil, nil, false
	}
	return nf, refs, true
}

// nativeText is one page's characters as pdfread placed them, answering
// what readGlyphs asks PDFium.
type nativeText struct{ chars []pdfread.Char }

func (t nativeText) looseBox(i int) (left, top, right, bottom float32, ok bool) {
	c := &t.chars[i]
	if c.NoBox {
		return 0, 0, 0, 0, false
	}
	return c.X0, c.Y1, c.X1, c.Y0, true
}

func (t nativeText) font(i int) (size float64, weight int, ok bool) {
	c := &t.chars[i]
	if c.NoBox && i > 0 {
		c = &t.chars[i-1] // an inserted space or a ligature's letter
	}
	return float64(c.Size), int(c.Weight), true
}

// nativeScratch is one native reading goroutine's buffers, reused from
// page to page: a page's characters, runes and glyphs are garbage once
// its lines are built, and growing them anew for every page was most of
// what reading text allocated.
type nativeScratch struct {
	chars  []pdfread.Char
	runes  []rune
	glyphs []glyph
}

// readNativePage reads page i natively, and its pictures too when
// budget is not nil; img says the page draws images PDFium must read.
// The page's lines do not share memory with s.
func (e *Extractor) readNativePage(nf *pdfread.File, ref pdfread.PageRef, i int, budget *imageBudget, s *nativeScratch) (*rawPage, bool, error) {
	pg, err := nf.ReadPageInto(ref, e.opts.MaxPageChars, s.chars)
	if err != nil {
		return nil, false, err
	}
	s.chars = pg.Chars
	rp := &rawPage{width: pg.Width, height: pg.Height}
	rp.fixSize()
	runes := slices.Grow(s.runes[:0], len(pg.Chars))
	for _, c := range pg.Chars {
		runes = append(runes, c.R)
	}
	s.runes = runes
	var glyphs []glyph
	if len(runes) > 0 {
		// Every character's box is at hand: measure them all.
		glyphs, _ = measureGlyphs(nativeText{pg.Chars}, runes, rp.width, rp.height, measureChars, s.glyphs)
		s.glyphs = glyphs
	}
	rp.setGlyphs(glyphs, true)
	if !pg.HasImages || !budget.open(i) {
		return rp, pg.HasImages, nil
	}
	if !e.opts.pdfiumImages {
		if ims, ok := nativeImages(nf, pg, i, rp.height, budget); ok {
			rp.images = ims
			return rp, false, nil
		}
	}
	return rp, true, nil
}

// extractNative reads the pages natively on GOMAXPROCS goroutines, then
// uses PDFium for the pages that failed, the bookmarks and the images.
func (e *Extractor) extractNative(ctx context.Context, data []byte, nf *pdfread.File, refs []pdfread.PageRef, progress func(int, int)) (*ingest.Document, error) {
	pages := len(refs)
	if pages > e.opts.MaxPages {
		return nil, fmt.Errorf("%w: %d pages, the limit is %d", ErrTooLarge, pages, e.opts.MaxPages)
	}
	raw := make([]*rawPage, pages)
	hasImages := make([]bool, pages)
	failed := make([]bool, pages)
	var mu sync.Mutex
	done := 0
	step := func() {
		if progress != nil {
			mu.Lock()
			done++
			progress(done, pages)
			mu.Unlock()
		}
	}
	// The document's image budget, shared by the native pictures and
	// PDFium's workers.
	var budget *imageBudget
	if e.opts.MaxImages > 0 {
		budget = newImageBudget(e.opts.MaxImages, pages)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), pages) {
		wg.Go(func() {
			var s nativeScratch
			for i := range next {
				rp, img, err := e.safeNativePage(nf, refs[i], i, budget, &s)
				if err != nil {
					failed[i] = true
					continue
				}
				raw[i], hasImages[i] = rp, img
				step()
			}
		})
	}
	feed(ctx, next, pageNumbers(pages))
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	var rest, imgPages []int
	for i := range pages {
		if failed[i] {
			rest = append(rest, i)
		}
		if hasImages[i] && !failed[i] {
			imgPages = append(imgPages, i)
		}
	}
	var outline func(int) []*ingest.Section
	if !e.opts.IgnoreOutline {
		bms := safeOutline(nf, refs)
		outline = func(int) []*ingest.Section { return sections(bms, 1) }
	}
	wantImages := e.opts.MaxImages > 0 && len(imgPages) > 0
	meta := nativeMeta(nf)
	if len(rest) == pages {
		// Nothing read natively: PDFium's own way, which measures most
		// words by their ends after probing a few pages.
		return e.extractPDFium(ctx, data, progress)
	}
	e.nativePages.Add(int64(pages - len(rest)))
	e.pdfiumPages.Add(int64(len(rest)))
	if len(rest) == 0 && !wantImages {
		return e.assemble(data, raw, meta, outline)
	}

	// PDFium for the rest, on as many instances as are free and have
	// pages to read: the pages whose text it reads, the pages with images.
	ws, err := e.acquire(ctx)
	if err != nil {
		return nil, err
	}
	need := len(rest)
	if wantImages {
		need = max(need, len(imgPages))
	}
	if keep := max(1, min(len(ws), need)); keep < len(ws) {
		e.release(ws[keep:])
		ws = ws[:keep]
	}
	defer e.release(ws)
	first := ws[0]
	for _, w := range ws {
		if len(rest) == 0 {
			err = w.openLite(data)
		} else {
			err = w.open(ctx, data)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, w := range ws {
		w.imgBudget = budget
	}
	if len(rest) > 0 {
		if err := e.readSome(ctx, ws, rest, measureChars, raw, step); err != nil {
			return nil, err
		}
	}
	if wantImages {
		e.readImagesOf(ctx, ws, imgPages, raw)
	}
	if len(meta) == 0 {
		meta = first.meta()
	}
	return e.assemble(data, raw, meta, outline)
}

// safeNativePage reads a page natively; a panic on input the reader did
// not expect sends the page to PDFium.
func (e *Extractor) safeNativePage(nf *pdfread.File, ref pdfread.PageRef, i int, budget *imageBudget, s *nativeScratch) (rp *rawPage, img bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			rp, img, err = nil, false, fmt.Errorf("native reader failed: %v", r)
		}
	}()
	return e.readNativePage(nf, ref, i, budget, s)
}

// nativeMeta reads the information dictionary as worker.meta does.
func nativeMeta(nf *pdfread.File) map[string]string {
	info := nf.Info()
	m := map[string]string{}
	for _, tag := range []string{"Title", "Author", "Subject", "Keywords", "Creator", "Producer"} {
		if v := strings.TrimSpace(info[tag]); v != "" {
			m[strings.ToLower(tag)] = v
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// openLite opens the document in PDFium for bookmarks and images only,
// without the second handle for direct text calls.
func (w *worker) openLite(data []byte) error {
	res, err := w.inst.FPDF_LoadMemDocument(&requests.FPDF_LoadMemDocument{Data: &data})
	if err != nil {
		return classifyOpenError(err)
	}
	w.doc, w.opened = res.Document, true
	w.hasImages = true
	return nil
}

// imagesOf loads page i in PDFium and reads its images.
func (w *worker) imagesOf(i int, height float64) []rawImage {
	pg, err := w.inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: w.doc, Index: i})
	if err != nil {
		return nil
	}
	defer w.inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: pg.Page})
	return w.readImages(requests.Page{ByReference: &pg.Page}, i, height)
}

// sections turns the native bookmarks into the document's outline.
func sections(bms []pdfread.Bookmark, level int) []*ingest.Section {
	var out []*ingest.Section
	for _, b := range bms {
		out = append(out, &ingest.Section{Level: level, Title: b.Title, Page: b.Page + 1, Children: sections(b.Children, level+1)})
	}
	return out
}

// safeOutline reads the bookmarks natively; a panic on input the reader
// did not expect leaves the document without them (the structure
// detector then finds its sections).
func safeOutline(nf *pdfread.File, refs []pdfread.PageRef) (bms []pdfread.Bookmark) {
	defer func() {
		if recover() != nil {
			bms = nil
		}
	}()
	return nf.Outline(refs)
}

// readImagesOf reads the images of the pages listed, spread over the
// instances.
func (e *Extractor) readImagesOf(ctx context.Context, ws []*worker, list []int, raw []*rawPage) {
	next := make(chan int)
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					w.failed = true // the page keeps no images; the instance is not reused
				}
			}()
			for i := range next {
				if w.wantImages(i) && !w.failed {
					raw[i].images = w.imagesOf(i, raw[i].height)
				}
			}
		})
	}
	feed(ctx, next, list)
	wg.Wait()
}
