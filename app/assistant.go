package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/hearth-rpg/hearth"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/epub"
	"github.com/hearth-rpg/hearth/ingest/markdown"
	"github.com/hearth-rpg/hearth/ingest/pdf"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/rules/traveller"
)

// Toolbox is the GM assistant's tool set over the App's index, library
// and Traveller worlds.
func (a *App) Toolbox(ctx context.Context) (*assistant.Toolbox, error) {
	lib, err := a.Library(ctx)
	if err != nil {
		return nil, err
	}
	return &assistant.Toolbox{Search: a.index, Documents: lib, Images: lib, Traveller: a.traveller(), Bundled: a.bundledSystems(ctx)}, nil
}

// bundledSystems maps each bundled pack to its manifest's system, so a
// chat searches a bundled pack only when it is about that system or
// selects it.
func (a *App) bundledSystems(context.Context) map[string]string {
	out := map[string]string{}
	for _, id := range BundledPacks() {
		out[id] = "" // unknown system: searched only when selected
		for _, name := range pack.ManifestNames() {
			b, err := fs.ReadFile(hearth.Packs, path.Join("packs", id, name))
			if err != nil {
				continue
			}
			m, problems := pack.ParseManifest(name, b)
			if len(problems) > 0 {
				a.log.Warn("bundled pack manifest", "pack", id, "problems", len(problems))
			}
			out[id] = m.System
			break
		}
	}
	return out
}

// Assistant builds the GM assistant over tb with the assistant role's
// model; offline, the librarian answers by quoting the books. observe,
// when set, sees every model call (metrics).
func (a *App) Assistant(ctx context.Context, tb *assistant.Toolbox, observe func(llm.Call)) (*assistant.Assistant, error) {
	convs, err := a.Conversations(ctx)
	if err != nil {
		return nil, err
	}
	var provider llm.Provider = assistant.Librarian{}
	model := "librarian"
	if !a.Offline("assistant") {
		p, err := a.Provider(ctx, "assistant")
		if err != nil {
			return nil, fmt.Errorf("assistant model: %w", err)
		}
		if observe != nil {
			p = llm.WithObserver(p, observe)
		}
		provider, model = p, a.Role("assistant").Model
	}
	c := a.cfg.Assistant
	return assistant.New(assistant.Options{Provider: provider, Model: model, Toolbox: tb, Conversations: convs,
		System: c.System, Library: c.Library, Logger: a.log, Agent: agent.Config{PauseAfterCalls: c.ToolCallPauseThreshold,
			MaxConsecutiveInternal: c.MaxConsecutiveInternal, PauseAfter: c.TimePauseThreshold,
			HardTimeout: c.HardTimeout, ExternalToolTimeout: c.ExternalToolTimeout}})
}

// traveller loads the Traveller world lists in DATA/traveller/*.tsv
// (Traveller Map's tab-separated export), so jump routes can stop at them.
func (a *App) traveller() *assistant.Traveller {
	t := &assistant.Traveller{}
	files, _ := filepath.Glob(filepath.Join(a.dir, "traveller", "*.tsv"))
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			a.log.Warn("traveller worlds", "file", f, "err", err)
			continue
		}
		ws, err := traveller.ReadWorlds(r)
		r.Close()
		if err != nil {
			a.log.Warn("traveller worlds", "file", f, "err", err)
			continue
		}
		t.Worlds = append(t.Worlds, ws...)
	}
	if len(files) > 0 {
		a.log.Info("traveller worlds loaded", "worlds", len(t.Worlds), "files", len(files))
	}
	return t
}

// Extractors registers a reader per document format. PDFium starts only
// when a PDF comes (it takes seconds the first time) and stops when the
// App closes.
func (a *App) Extractors() *ingest.Registry {
	r, closeFn := NewExtractors()
	a.onClose(func() error { closeFn(); return nil })
	return r
}

// NewExtractors registers a reader per format; call the function it
// returns when done.
func NewExtractors() (*ingest.Registry, func()) {
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
