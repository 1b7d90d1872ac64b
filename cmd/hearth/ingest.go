package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/epub"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/markdown"
	"github.com/hearth-rpg/hearth/ingest/pdf"
	"github.com/hearth-rpg/hearth/ingest/pipeline"
	rsqlite "github.com/hearth-rpg/hearth/retrieve/sqlite"
	"github.com/hearth-rpg/hearth/store/sqlite"
)

// pauseEnv is a test hook: with HEARTH_INGEST_PAUSE_AFTER=STAGE, hearth
// ingest stops after that stage's checkpoint is written and waits to be
// killed, so a test can interrupt it at a known point and resume.
const pauseEnv = "HEARTH_INGEST_PAUSE_AFTER"

type ingestFlags struct {
	title, access, pack, license string
	tags                         []string
	maxSizeMB                    int64
}

func newIngest(g *globals) *cobra.Command {
	f := &ingestFlags{}
	cmd := &cobra.Command{
		Use:   "ingest FILE...",
		Short: "Add books (PDF, EPUB, Markdown, text) to the searchable library",
		Long: `Read books into the library so 'hearth search' finds their passages with
page citations. Each file runs through the stages extract, structure,
segment, classify, enrich, assemble and validate; each stage's result is
kept in the data directory (ingest/<sha256>/), so an ingest that was
stopped resumes where it stopped, and ingesting the same file again
replaces its document.

--pack DIR also writes the book as a content pack: a pack.yml and one
Markdown file per section, which 'hearth pack validate DIR' accepts.
--tags tag the document's passages (give every volume of a multi-volume
work the same tag, then search with --tags). --access sets who may read
it: player, trusted, assistant or gm_only.`,
		Example: `  hearth ingest rules.pdf --tags core
  hearth ingest vol1.epub vol2.epub --tags saga --access gm_only
  hearth ingest notes.md --title "House rules" --pack ./house-rules`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runIngest(cmd.Context(), g, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.title, "title", "", "the document's title (default: the book's own, else the file name)")
	fl.StringSliceVar(&f.tags, "tags", nil, "tags for the document's passages (separate with commas)")
	fl.StringVar(&f.access, "access", "player", "who may read it: player, trusted, assistant or gm_only")
	fl.StringVar(&f.pack, "pack", "", "also write a content pack to this directory")
	fl.StringVar(&f.license, "license", "", `the pack's license (default "unknown")`)
	fl.Int64Var(&f.maxSizeMB, "max-size", 100, "refuse files larger than this many MB")
	return cmd
}

func runIngest(ctx context.Context, g *globals, f *ingestFlags, files []string) error {
	lv, err := access.Parse(f.access)
	if err != nil {
		return usageError{fmt.Errorf("--access: %w", err)}
	}
	if len(files) > 1 && (f.title != "" || f.pack != "") {
		return usageError{errors.New("--title and --pack name one book: give one file with them")}
	}
	if f.maxSizeMB <= 0 {
		return usageError{fmt.Errorf("--max-size %d: give a size in MB above 0", f.maxSizeMB)}
	}
	// Read every file first: a missing or oversized one stops the run
	// before anything is written.
	datas := make([][]byte, len(files))
	for i, name := range files {
		if datas[i], err = readUpload(name, f.maxSizeMB<<20); err != nil {
			return err
		}
	}
	dir, err := g.dataDir()
	if err != nil {
		return fmt.Errorf("find the data directory: %w (set --data or HEARTH_DATA)", err)
	}
	reg, closeReg := extractors()
	defer closeReg()
	return g.withIndex(ctx, "", func(ix *rsqlite.Index) error {
		lib, err := library.Open(ctx, filepath.Join(dir, sqlite.FileName), ix)
		if err != nil {
			return err
		}
		defer lib.Close()
		for i, name := range files {
			o := pipeline.Options{
				Name: name, Data: datas[i], Registry: reg, Store: lib, WorkDir: filepath.Join(dir, "ingest"),
				Title: f.title, Tags: f.tags, Access: lv, License: f.license, PackDir: f.pack,
			}
			if err := ingestOne(ctx, g, o); err != nil {
				return err
			}
		}
		return nil
	})
}

// readUpload reads a file to ingest, refusing what cannot be a book.
func readUpload(name string, limit int64) ([]byte, error) {
	fi, err := os.Stat(name)
	switch {
	case err != nil:
		return nil, fmt.Errorf("ingest %s: %w", name, err)
	case fi.IsDir():
		return nil, fmt.Errorf("ingest %s: it is a directory; name the files in it", name)
	case fi.Size() == 0:
		return nil, fmt.Errorf("ingest %s: %w (0 bytes): nothing to ingest", name, ingest.ErrEmpty)
	case fi.Size() > limit:
		return nil, fmt.Errorf("ingest %s: %w: %.1f MB, over the limit of %d MB; raise it with --max-size if you trust the file",
			name, ingest.ErrTooLarge, float64(fi.Size())/(1<<20), limit>>20)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("ingest %s: %w", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1)) // the file may grow after Stat
	if err != nil {
		return nil, fmt.Errorf("ingest %s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("ingest %s: %w: over the limit of %d MB", name, ingest.ErrTooLarge, limit>>20)
	}
	return b, nil
}

// extractors registers a reader per format. PDFium starts only when a PDF
// comes: it takes seconds the first time.
func extractors() (*ingest.Registry, func()) {
	var r ingest.Registry
	r.Register(ingest.EPUB, epub.New(epub.Limits{}))
	r.Register(ingest.Markdown, markdown.Markdown{})
	r.Register(ingest.Text, markdown.Text{})
	p := &lazyPDF{}
	r.Register(ingest.PDF, p)
	return &r, p.close
}

// lazyPDF opens the PDF extractor on first use and maps its errors to
// ingest's, so messages and tests treat every format alike.
type lazyPDF struct {
	once sync.Once
	e    *pdf.Extractor
	err  error
}

func (l *lazyPDF) Extract(ctx context.Context, data []byte, progress func(done, total int)) (*ingest.Document, error) {
	l.once.Do(func() { l.e, l.err = pdf.Open(ctx, pdf.Options{}) })
	if l.err != nil {
		return nil, fmt.Errorf("start the PDF reader: %w", l.err)
	}
	doc, err := l.e.Extract(ctx, data, progress)
	for _, m := range []struct{ from, to error }{
		{pdf.ErrEncrypted, ingest.ErrEncrypted}, {pdf.ErrCorrupt, ingest.ErrCorrupt},
		{pdf.ErrNoText, ingest.ErrNoText}, {pdf.ErrTooLarge, ingest.ErrTooLarge},
	} {
		if errors.Is(err, m.from) && !errors.Is(err, m.to) {
			return nil, fmt.Errorf("%w: %w", m.to, err)
		}
	}
	return doc, err
}

func (l *lazyPDF) close() {
	if l.e != nil {
		l.e.Close()
	}
}

func ingestOne(ctx context.Context, g *globals, o pipeline.Options) error {
	start := time.Now()
	pr := newIngestProgress(g.stderr, o.Name)
	o.Progress = pr.event
	if stage := os.Getenv(pauseEnv); stage != "" {
		o.AfterStage = func(ctx context.Context, s string) error {
			if s != stage {
				return nil
			}
			fmt.Fprintf(g.stderr, "ingest: paused after %s (%s); kill the process, then run again to resume\n", s, pauseEnv)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(10 * time.Minute):
				return fmt.Errorf("%s=%s: paused too long", pauseEnv, stage)
			}
		}
	}
	res, err := pipeline.Run(ctx, o)
	pr.done()
	if err != nil {
		return explainIngest(err)
	}
	resumed := ""
	if len(res.Resumed) > 0 {
		resumed = fmt.Sprintf(" (resumed: %s)", strings.Join(res.Resumed, ", "))
	}
	fmt.Fprintf(g.stdout, "ingested %q as document %s: %d pages, %d sections, %d chunks, %d images in %s%s\n",
		res.Title, res.DocumentID, res.Pages, res.Sections, res.Chunks, res.Images, time.Since(start).Round(time.Millisecond), resumed)
	if res.PackDir != "" {
		fmt.Fprintf(g.stdout, "wrote pack %s\n", res.PackDir)
	}
	fmt.Fprintf(g.stdout, "search it: hearth search QUERY --pack %s\n", library.PackOf(res.DocumentID))
	return nil
}

// explainIngest adds what to do to the errors a user can act on.
func explainIngest(err error) error {
	switch {
	case errors.Is(err, ingest.ErrEncrypted):
		return fmt.Errorf("%w\nRemove the password (for example with qpdf --decrypt) and ingest the copy; the library is unchanged", err)
	case errors.Is(err, ingest.ErrNoText):
		return fmt.Errorf("%w\nHearth cannot read scanned pages (OCR is not available): use a PDF with a text layer; the library is unchanged", err)
	case errors.Is(err, ingest.ErrCorrupt):
		return fmt.Errorf("%w\nThe file is damaged, truncated or unsafe: download it again or export it anew; the library is unchanged", err)
	case errors.Is(err, ingest.ErrUnsupported), errors.Is(err, ingest.ErrEmpty), errors.Is(err, ingest.ErrTooLarge):
		return fmt.Errorf("%w; the library is unchanged", err)
	}
	return err
}

// ingestProgress shows the stage and, while extracting, pages and an ETA:
// a live line on a terminal, else one line per stage.
type ingestProgress struct {
	w     io.Writer
	name  string
	live  bool
	start time.Time // of the current stage
	last  time.Time
}

func newIngestProgress(w io.Writer, name string) *ingestProgress {
	return &ingestProgress{w: w, name: filepath.Base(name), live: wrapWidth(w) > 0}
}

func (p *ingestProgress) event(e pipeline.Event) {
	n := len(pipeline.Stages)
	switch {
	case e.Resumed:
		p.line(fmt.Sprintf("%s: stage %d/%d %s: resumed from checkpoint", p.name, e.Index+1, n, e.Stage))
	case e.Finished:
		p.line(fmt.Sprintf("%s: stage %d/%d %s: ran in %s", p.name, e.Index+1, n, e.Stage, e.Elapsed.Round(time.Millisecond)))
	case e.Total == 0: // a stage starts
		p.start = time.Now()
		if p.live {
			fmt.Fprintf(p.w, "\r%s: stage %d/%d %s…\033[K", p.name, e.Index+1, n, e.Stage)
		}
	case p.live && (e.Done == e.Total || time.Since(p.last) > 100*time.Millisecond):
		p.last = time.Now()
		eta := ""
		if e.Done > 0 && e.Done < e.Total {
			left := time.Duration(float64(time.Since(p.start)) / float64(e.Done) * float64(e.Total-e.Done))
			eta = fmt.Sprintf(", ETA %s", left.Round(time.Second))
		}
		fmt.Fprintf(p.w, "\r%s: stage %d/%d %s: page %d/%d%s\033[K", p.name, e.Index+1, n, e.Stage, e.Done, e.Total, eta)
	}
}

func (p *ingestProgress) line(s string) {
	if p.live {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintln(p.w, s)
}

func (p *ingestProgress) done() {
	if p.live {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
