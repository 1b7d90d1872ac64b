package pdf

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hearth-rpg/hearth/ingest"
	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
)

// Options configures an Extractor. The zero value is usable.
type Options struct {
	// CacheDir holds wazero's compiled PDFium so that starts after the
	// first are fast. Default: os.UserCacheDir()/hearth/wazero; when that
	// cannot be made, no cache is used.
	CacheDir string
	// PoolSize is how many PDFium instances run at once: one Extract
	// reads its pages on as many as are free. Default GOMAXPROCS, at most
	// maxDefaultPool.
	PoolSize int
	// MaxPages rejects documents with more pages (ErrTooLarge). Default 5000.
	MaxPages int
	// MaxPageChars caps the characters read from one page; the rest of
	// such a page is dropped. Default 100,000.
	MaxPageChars int
	// MaxImages caps the images kept per document. Default 500; a
	// negative value keeps none.
	MaxImages int
	// IgnoreOutline skips the PDF's bookmarks and uses the structure
	// detector instead.
	IgnoreOutline bool
	// PDFiumOnly reads every page's text with PDFium instead of the
	// native reader (package pdfread), which is otherwise tried first
	// and falls back to PDFium page by page.
	PDFiumOnly bool
	// pdfiumImages reads every picture with PDFium, as before the
	// native pictures (the tests compare both).
	pdfiumImages bool
}

// maxDefaultPool bounds the default pool: every instance holds its own
// copy of the document and PDFium's caches for it.
const maxDefaultPool = 8

func (o Options) withDefaults() Options {
	if o.PoolSize <= 0 {
		o.PoolSize = min(maxDefaultPool, runtime.GOMAXPROCS(0))
	}
	if o.MaxPages <= 0 {
		o.MaxPages = 5000
	}
	if o.MaxPageChars <= 0 {
		o.MaxPageChars = 100_000
	}
	if o.MaxImages == 0 {
		o.MaxImages = 500
	}
	if o.CacheDir == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			o.CacheDir = filepath.Join(dir, "hearth", "wazero")
		}
	}
	return o
}

// Extractor reads PDFs. It is safe for concurrent use; Close releases it.
type Extractor struct {
	opts  Options
	slots chan struct{} // one token per instance the pool may hand out

	// PDFium is started the first time a document needs it: most
	// documents are read natively, and compiling PDFium takes seconds
	// on the first run.
	startOnce sync.Once
	startErr  error
	pool      pdfium.Pool
	cache     wazero.CompilationCache

	closeOnce sync.Once
	// Pages whose text each path read, for tests and benchmarks.
	nativePages, pdfiumPages atomic.Int64
}

// Open prepares an extractor. PDFium is compiled (or loaded from the
// compilation cache) the first time a document needs it.
func Open(ctx context.Context, opts Options) (*Extractor, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	e := &Extractor{opts: opts, slots: make(chan struct{}, opts.PoolSize)}
	for range opts.PoolSize {
		e.slots <- struct{}{}
	}
	return e, nil
}

// startPDFium compiles PDFium and makes the instance pool, once.
func (e *Extractor) startPDFium() error {
	e.startOnce.Do(func() {
		// WithCloseOnContextDone is left off: it costs a goroutine per
		// call into PDFium, and Extract checks its context between pages.
		rc := wazero.NewRuntimeConfig()
		if e.opts.CacheDir != "" {
			if err := os.MkdirAll(e.opts.CacheDir, 0o755); err == nil {
				if c, err := wazero.NewCompilationCacheWithDir(e.opts.CacheDir); err == nil {
					e.cache = c
					rc = rc.WithCompilationCache(c)
				}
			}
		}
		pool, err := webassembly.Init(webassembly.Config{
			MinIdle:       0,
			MaxIdle:       e.opts.PoolSize,
			MaxTotal:      e.opts.PoolSize,
			ReuseWorkers:  true,
			RuntimeConfig: rc,
			// No file system: documents are passed as bytes.
			FSConfig: wazero.NewFSConfig(),
			Stdout:   io.Discard,
			Stderr:   io.Discard,
		})
		if err != nil {
			if e.cache != nil {
				e.cache.Close(context.Background())
				e.cache = nil
			}
			e.startErr = fmt.Errorf("pdf: start PDFium (cache %q): %w", e.opts.CacheDir, err)
			return
		}
		e.pool = pool
	})
	return e.startErr
}

// Close stops the PDFium instances. Extract must not be running.
func (e *Extractor) Close() error {
	var err error
	e.closeOnce.Do(func() {
		// A start after Close fails instead of leaking a pool.
		e.startOnce.Do(func() { e.startErr = errors.New("pdf: the extractor is closed") })
		if e.pool != nil {
			err = e.pool.Close()
		}
		if e.cache != nil {
			e.cache.Close(context.Background())
		}
	})
	return err
}

// Extract reads one PDF. progress, when not nil, is called after each
// page with the number of pages done and the page count; it may be
// called from several goroutines, but never concurrently.
func (e *Extractor) Extract(ctx context.Context, data []byte, progress func(page, pages int)) (doc *ingest.Document, err error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: the file is empty", ErrCorrupt)
	}
	defer func() {
		// PDFium runs in a sandbox, but the Go wrapper around it may
		// still panic on input it did not expect.
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%w: reader failed: %v", ErrCorrupt, r)
		}
	}()

	if !e.opts.PDFiumOnly {
		if nf, refs, ok := openNative(data, e.opts.MaxPages); ok {
			return e.extractNative(ctx, data, nf, refs, progress)
		}
	}
	return e.extractPDFium(ctx, data, progress)
}

// extractPDFium reads the whole document with PDFium.
func (e *Extractor) extractPDFium(ctx context.Context, data []byte, progress func(page, pages int)) (*ingest.Document, error) {
	// The first instance is waited for; more are taken only if free now.
	ws, err := e.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer e.release(ws)

	first := ws[0]
	if err := first.open(ctx, data); err != nil {
		return nil, err
	}
	pages, err := first.pageCount()
	if err != nil {
		return nil, err
	}
	if pages > e.opts.MaxPages {
		return nil, fmt.Errorf("%w: %d pages, the limit is %d", ErrTooLarge, pages, e.opts.MaxPages)
	}
	if pages == 0 {
		return nil, fmt.Errorf("%w: the document has no pages", ErrCorrupt)
	}
	for _, w := range ws[1:min(len(ws), pages)] {
		if err := w.open(ctx, data); err != nil {
			return nil, err
		}
	}
	if len(ws) > pages {
		ws = ws[:pages]
	}

	budget := newImageBudget(e.opts.MaxImages, pages)
	for _, w := range ws {
		w.imgBudget = budget
	}
	raw, err := e.readPages(ctx, ws, pages, progress)
	if err != nil {
		return nil, err
	}

	var outline func(int) []*ingest.Section
	if !e.opts.IgnoreOutline {
		outline = first.outline
	}
	return e.assemble(data, raw, first.meta(), outline)
}

// assemble makes the document from the pages read: headers and footers
// removed, words rejoined across lines, the outline (from the
// bookmarks, or detected) and the images with their context.
func (e *Extractor) assemble(data []byte, raw []*rawPage, meta map[string]string, outline func(pages int) []*ingest.Section) (*ingest.Document, error) {
	pages := len(raw)
	sum := sha256.Sum256(data)
	doc := &ingest.Document{
		Format: "pdf",
		Hash:   hex.EncodeToString(sum[:]),
		Meta:   meta,
	}
	doc.Title = doc.Meta["title"]

	lines := make([][]line, pages)
	letters := 0
	for i, p := range raw {
		lines[i] = p.lines
		letters = max(letters, p.letters)
	}
	if letters < minLettersPerPage {
		return nil, ErrNoText
	}
	labels := stripFurniture(lines, raw)
	for i := range lines {
		lines[i] = dehyphenate(lines[i])
	}
	doc.Pages = make([]ingest.Page, pages)
	for i := range raw {
		doc.Pages[i] = ingest.Page{Number: i + 1, Label: labels[i], Text: joinLines(lines[i])}
	}

	if outline != nil {
		doc.Outline = outline(pages)
	}
	if len(doc.Outline) == 0 {
		doc.Outline = detectOutline(lines, labels)
	}
	doc.Images = collectImages(raw, lines, e.opts.MaxImages)
	return doc, nil
}

// minLettersPerPage is how many letters the richest page needs for the
// document to count as having a text layer.
const minLettersPerPage = 16

// acquire takes one instance, waiting for it, then any more that are free.
func (e *Extractor) acquire(ctx context.Context) ([]*worker, error) {
	if err := e.startPDFium(); err != nil {
		return nil, err
	}
	var ws []*worker
	take := func() error {
		inst, err := e.pool.GetInstanceWithContext(ctx)
		if err != nil {
			e.slots <- struct{}{}
			return fmt.Errorf("pdf: get a PDFium instance: %w", err)
		}
		ws = append(ws, &worker{inst: inst, opts: e.opts})
		return nil
	}
	select {
	case <-e.slots:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := take(); err != nil {
		return nil, err
	}
	for {
		select {
		case <-e.slots:
			if err := take(); err != nil {
				e.release(ws)
				return nil, err
			}
			continue
		default:
		}
		return ws, nil
	}
}

func (e *Extractor) release(ws []*worker) {
	for _, w := range ws {
		w.close()
		e.slots <- struct{}{}
	}
}

// probePages is how many pages, spread through the document, are read
// character by character first to decide how the rest are measured.
const probePages = 4

// readPages spreads the pages over the workers: first the probe pages,
// measured character by character, then the rest, measured by the ends
// of words if every word of the probes agreed.
func (e *Extractor) readPages(ctx context.Context, ws []*worker, pages int, progress func(int, int)) ([]*rawPage, error) {
	raw := make([]*rawPage, pages)
	probe := probeIndices(pages)
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
	if err := e.readSome(ctx, ws, probe, measureProbe, raw, step); err != nil {
		return nil, err
	}
	mode := measureEnds
	var rest []int
	for i, p := range raw {
		switch {
		case p == nil:
			rest = append(rest, i)
		case !p.endsOK:
			mode = measureChars
		}
	}
	if err := e.readSome(ctx, ws, rest, mode, raw, step); err != nil {
		return nil, err
	}
	for i, p := range raw {
		if p == nil {
			return nil, fmt.Errorf("%w: page %d was not read", ErrCorrupt, i+1)
		}
	}
	return raw, nil
}

// probeIndices picks the probe pages: the middle of each of probePages
// equal parts of the document, or every page of a short one.
func probeIndices(pages int) []int {
	var out []int
	for k := range probePages {
		i := (2*k + 1) * pages / (2 * probePages)
		if len(out) == 0 || out[len(out)-1] != i {
			out = append(out, i)
		}
	}
	return out
}

// readSome reads the pages listed over the workers into raw.
func (e *Extractor) readSome(ctx context.Context, ws []*worker, list []int, mode measure, raw []*rawPage, step func()) error {
	next := make(chan int)
	errs := make(chan error, len(ws))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					errs <- fmt.Errorf("%w: reader failed: %v", ErrCorrupt, r)
					cancel()
				}
			}()
			for i := range next {
				p, err := w.readPage(ctx, i, mode)
				if err != nil {
					errs <- err
					cancel()
					return
				}
				raw[i] = p
				step()
			}
		})
	}
	feed(ctx, next, list)
	wg.Wait()
	close(errs)
	if err, ok := <-errs; ok {
		return err
	}
	return ctx.Err()
}

// errorsIsAny reports whether err matches any of targets.
func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
