package pdf

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// worker is one PDFium instance with the document open in it.
type worker struct {
	inst      pdfium.Pdfium
	opts      Options
	doc       references.FPDF_DOCUMENT
	opened    bool
	failed    bool         // the instance erred; it is killed, not reused
	imgBudget *imageBudget // the images this document may still keep
	hasImages bool         // the file has image XObjects at all
	raw       *rawText     // direct calls for page text; nil: go-pdfium's
}

// rawPage is what a worker read from one page, before the
// document-wide passes (headers, outline detection, image context).
type rawPage struct {
	width, height float64
	lines         []line
	letters       int
	images        []rawImage
	endsOK        bool // measuring words by their ends agreed (measureProbe)
}

func (w *worker) open(ctx context.Context, data []byte) error {
	res, err := w.inst.FPDF_LoadMemDocument(&requests.FPDF_LoadMemDocument{Data: &data})
	if err != nil {
		return classifyOpenError(err)
	}
	w.doc, w.opened = res.Document, true
	w.hasImages = imageXObjectRe.Match(data)
	if r := newRawText(w.inst); r != nil {
		if err := r.open(ctx, data); err != nil {
			r.close(ctx)
		} else {
			w.raw = r
		}
	}
	return nil
}

// imageXObjectRe finds an image XObject's dictionary. Stream
// dictionaries are never compressed (streams cannot sit in object
// streams), so a file without a match has no image XObjects and the
// costly walk over every page object is skipped. Inline images are
// missed by this test.
var imageXObjectRe = regexp.MustCompile(`/Subtype\s*/Image\b`)

// classifyOpenError maps PDFium's load errors onto this package's.
func classifyOpenError(err error) error {
	switch {
	case errorsIsAny(err, pdfiumerrors.ErrPassword, pdfiumerrors.ErrSecurity):
		return fmt.Errorf("%w (%v)", ErrEncrypted, err)
	case errorsIsAny(err, pdfiumerrors.ErrFormat, pdfiumerrors.ErrFile, pdfiumerrors.ErrUnknown, pdfiumerrors.ErrPage):
		return fmt.Errorf("%w (%v)", ErrCorrupt, err)
	}
	// Anything else (a trap inside the sandbox, say) is still a file
	// PDFium could not read.
	return fmt.Errorf("%w: open: %v", ErrCorrupt, err)
}

func (w *worker) pageCount() (int, error) {
	res, err := w.inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: w.doc})
	if err != nil {
		w.failed = true
		return 0, fmt.Errorf("%w: count pages: %v", ErrCorrupt, err)
	}
	return res.PageCount, nil
}

// meta reads the document information dictionary.
func (w *worker) meta() map[string]string {
	m := map[string]string{}
	for _, tag := range []string{"Title", "Author", "Subject", "Keywords", "Creator", "Producer"} {
		res, err := w.inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: w.doc, Tag: tag})
		if err != nil {
			continue
		}
		if v := strings.TrimSpace(res.Value); v != "" {
			m[strings.ToLower(tag)] = v
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// readPage reads page index i (0-based): its lines in reading order and
// its images. mode says how words are measured.
func (w *worker) readPage(ctx context.Context, i int, mode measure) (*rawPage, error) {
	if w.raw != nil {
		return w.readPageRaw(ctx, i, mode)
	}
	pg, err := w.inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: w.doc, Index: i})
	if err != nil {
		w.failed = true
		return nil, fmt.Errorf("%w: page %d: %v", ErrCorrupt, i+1, err)
	}
	defer w.inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: pg.Page})
	page := requests.Page{ByReference: &pg.Page}

	rp := &rawPage{}
	if r, err := w.inst.FPDF_GetPageWidthF(&requests.FPDF_GetPageWidthF{Page: page}); err == nil {
		rp.width = float64(r.PageWidth)
	}
	if r, err := w.inst.FPDF_GetPageHeightF(&requests.FPDF_GetPageHeightF{Page: page}); err == nil {
		rp.height = float64(r.PageHeight)
	}
	rp.fixSize()
	glyphs, endsOK, err := w.readGlyphs(page, rp.width, rp.height, mode)
	if err != nil {
		w.failed = true
		return nil, fmt.Errorf("%w: page %d text: %v", ErrCorrupt, i+1, err)
	}
	rp.setGlyphs(glyphs, endsOK)
	if w.wantImages(i) {
		rp.images = w.readImages(page, i, rp.height)
	}
	return rp, nil
}

// readPageRaw is readPage through direct calls; go-pdfium loads the
// page as well only when it may have images to read.
func (w *worker) readPageRaw(ctx context.Context, i int, mode measure) (*rawPage, error) {
	pg, err := w.raw.loadPage(ctx, i)
	if err != nil {
		w.failed = true
		return nil, fmt.Errorf("%w: page %d: %v", ErrCorrupt, i+1, err)
	}
	defer pg.close()
	rp := &rawPage{}
	rp.width, rp.height = pg.size()
	rp.fixSize()
	runes, err := pg.runes(w.opts.MaxPageChars)
	if err != nil {
		w.failed = true
		return nil, fmt.Errorf("%w: page %d text: %v", ErrCorrupt, i+1, err)
	}
	glyphs, endsOK := measureGlyphs(pg, runes, rp.width, rp.height, mode, nil)
	if len(runes) == 0 {
		endsOK = true
	}
	rp.setGlyphs(glyphs, endsOK)
	if w.wantImages(i) && pg.mayHaveImages() {
		gp, err := w.inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: w.doc, Index: i})
		if err == nil {
			rp.images = w.readImages(requests.Page{ByReference: &gp.Page}, i, rp.height)
			w.inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: gp.Page})
		}
	}
	return rp, nil
}

// fixSize gives a page without a usable size A4: it still has text.
func (rp *rawPage) fixSize() {
	if rp.width <= 0 || rp.height <= 0 {
		rp.width, rp.height = 595, 842
	}
}

// setGlyphs counts the letters and orders the lines of a page.
func (rp *rawPage) setGlyphs(glyphs []glyph, endsOK bool) {
	rp.endsOK = endsOK
	for _, g := range glyphs {
		for _, r := range g.text {
			if unicode.IsLetter(r) {
				rp.letters++
			}
		}
	}
	rp.lines = orderLines(buildSegments(glyphs), rp.width, rp.height)
}

// wantImages says whether page i's images are to be read.
func (w *worker) wantImages(i int) bool {
	return w.opts.MaxImages > 0 && w.hasImages && w.imgBudget.open(i)
}

func (w *worker) close() {
	if w.inst == nil {
		return
	}
	if w.raw != nil && !w.failed {
		w.raw.close(context.Background())
	}
	w.raw = nil
	if w.opened && !w.failed {
		w.inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: w.doc})
	}
	if w.failed {
		w.inst.Kill()
	} else {
		w.inst.Close()
	}
	w.inst = nil
}

// feed sends each of list to next until ctx ends, then closes next: the
// page queue of a pool of workers.
func feed(ctx context.Context, next chan<- int, list []int) {
	defer close(next)
	for _, i := range list {
		select {
		case next <- i:
		case <-ctx.Done():
			return
		}
	}
}

// pageNumbers is 0 to n-1.
func pageNumbers(n int) []int {
	list := make([]int, n)
	for i := range list {
		list[i] = i
	}
	return list
}
