package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/llmassist"
	"github.com/hearth-rpg/hearth/ingest/pipeline"
	"github.com/hearth-rpg/hearth/llm"
)

// pauseEnv is a test hook: with HEARTH_INGEST_PAUSE_AFTER=STAGE, hearth
// ingest stops after that stage's checkpoint is written and waits to be
// killed, so a test can interrupt it at a known point and resume.
const pauseEnv = "HEARTH_INGEST_PAUSE_AFTER"

type ingestFlags struct {
	title, access, pack, license string
	tags                         []string
	maxSizeMB                    int64
	models                       modelFlags // the model that checks classes: the narrator role
	vision                       roleFlags  // flags over the config's vision role
	rulesOnly                    bool
	// statReader is the narrator model reading unsure stat blocks; set
	// with the Checker.
	statReader pipeline.StatReader
}

func newIngest(g *globals) *cobra.Command {
	f := &ingestFlags{}
	cmd := &cobra.Command{
		Use:   "ingest FILE...",
		Short: g.t("cli.short.ingest", nil),
		Long: `Read books into the library so 'hearth search' finds their passages with
page citations. Each file runs through the stages extract, structure,
segment, classify, enrich, assemble and validate; each stage's result is
kept in the data directory (ingest/<sha256>/) until the ingest succeeds,
so an ingest that was stopped resumes where it stopped. Ingesting the
same file again replaces its document.

--pack DIR also writes the book as a content pack: a pack.yml and one
Markdown file per section, which 'hearth pack validate DIR' accepts.
--tags tag the document's passages (give every volume of a multi-volume
work the same tag, then search with --tags). --access sets who may read
it: player, trusted, assistant or gm_only.

With a model configured (--provider and --model, or the narrator role of
the config file), the model checks each section's lore/systems class;
--rules-only skips that. The same model reads again the monster stat
blocks the rule-based extractor is unsure of. With a vision model (--vision-provider and
--vision-model, or the config's vision role), every image is described
for search ('hearth library images --search'). Answers are kept as they
come, so a stopped ingest does not ask again; a model that cannot be
reached or keeps failing is skipped with a warning.`,
		Example: `  hearth ingest rules.pdf --tags core
  hearth ingest vol1.epub vol2.epub --tags saga --access gm_only
  hearth ingest notes.md --title "House rules" --pack ./house-rules
  hearth ingest atlas.pdf --vision-provider ollama --vision-model llava`,
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
	m := &f.models
	fl.StringVar(&m.role.Provider, "provider", "", "provider of the model that checks each section's class: ollama, openai, anthropic, gemini (default: the config's narrator; none: rules only)")
	fl.StringVar(&m.role.Model, "model", "", "that model's name")
	fl.StringVar(&m.role.BaseURL, "base-url", "", "that provider's URL (default: the provider's own)")
	fl.StringVar(&m.role.APIKeyEnv, "api-key-env", "", "environment variable holding its API key")
	fl.StringVar(&m.role.APIKeyFile, "api-key-file", "", "file holding its API key")
	fl.BoolVar(&f.rulesOnly, "rules-only", false, "classify sections by rules alone, even with a model configured")
	fl.StringVar(&f.vision.Provider, "vision-provider", "", "provider of the vision model that describes images (default: the config's vision role; none: no descriptions)")
	fl.StringVar(&f.vision.Model, "vision-model", "", "the vision model, e.g. llava, qwen2.5vl, gpt-4o-mini")
	fl.StringVar(&f.vision.BaseURL, "vision-base-url", "", "the vision provider's URL")
	fl.StringVar(&f.vision.APIKeyEnv, "vision-api-key-env", "", "environment variable holding the vision provider's API key")
	return cmd
}

// modelHelpers builds the model that checks classes and the vision model
// that describes images, each only when configured and reachable: an
// ingest never waits on a model that is not there.
func (f *ingestFlags) modelHelpers(ctx context.Context, g *globals) (pipeline.Checker, pipeline.Captioner, error) {
	cfg, err := f.models.load(g)
	if err != nil {
		return nil, nil, err
	}
	var checker pipeline.Checker
	if n, _ := cfg.Models.Role("narrator"); !f.rulesOnly && n.Provider != "offline" {
		if n.Model == "" {
			return nil, nil, usageError{errors.New(g.t("cli.ingest.no_model", map[string]any{"Provider": n.Provider}))}
		}
		if p := reachable(ctx, g, n, cfg.Models.Timeout, g.t("cli.ingest.rules_alone", nil)); p != nil {
			if checker, err = llmassist.NewChecker(p, n.Model); err != nil {
				return nil, nil, err
			}
			if f.statReader, err = llmassist.NewStatReader(p, n.Model); err != nil {
				return nil, nil, err
			}
		}
	}
	v, _ := cfg.Models.Role("vision")
	f.vision.over(&v, g.src, "models.vision", "vision-")
	var captioner pipeline.Captioner
	switch {
	case v.Provider == "" || v.Provider == "offline":
		if v.Model != "" {
			return nil, nil, usageError{errors.New(g.t("cli.ingest.no_vision_provider", nil))}
		}
	case v.Model == "":
		return nil, nil, usageError{errors.New(g.t("cli.ingest.no_vision_model", map[string]any{"Provider": v.Provider}))}
	default:
		if p := reachable(ctx, g, v, cfg.Models.Timeout, g.t("cli.ingest.no_descriptions", nil)); p != nil {
			captioner = &llmassist.Captioner{Provider: p, Model: v.Model}
		}
	}
	return checker, captioner, nil
}

// reachable builds a role's provider and asks it for its models: nil,
// after saying so and what happens instead, when it does not answer.
func reachable(ctx context.Context, g *globals, r config.Role, timeout time.Duration, instead string) llm.Provider {
	p, err := app.NewProvider(ctx, r, timeout)
	if err == nil {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = p.Models(cctx)
		cancel()
	}
	if err != nil {
		fmt.Fprintln(g.stderr, g.t("cli.ingest.unreachable", map[string]any{"Provider": r.Provider, "URL": app.Endpoint(r), "Err": app.ShortError(err), "Instead": instead}))
		return nil
	}
	return p
}

func runIngest(ctx context.Context, g *globals, f *ingestFlags, files []string) error {
	lv, err := access.Parse(f.access)
	if err != nil {
		return usageError{g.fail("cli.ingest.bad_access", nil, err)}
	}
	if len(files) > 1 && (f.title != "" || f.pack != "") {
		return usageError{errors.New(g.t("cli.ingest.one_book", nil))}
	}
	if f.maxSizeMB <= 0 {
		return usageError{errors.New(g.t("cli.ingest.bad_max_size", map[string]any{"Size": f.maxSizeMB}))}
	}
	// Read every file first: a missing or oversized one stops the run
	// before anything is written.
	datas := make([][]byte, len(files))
	for i, name := range files {
		if datas[i], err = g.readUpload(name, f.maxSizeMB<<20); err != nil {
			return err
		}
	}
	dir, err := g.dataDir()
	if err != nil {
		return g.fail("cli.no_data_dir", nil, err)
	}
	checker, captioner, err := f.modelHelpers(ctx, g)
	if err != nil {
		return err
	}
	reg, closeReg := app.NewExtractors()
	defer closeReg()
	return g.withDatabase(ctx, func(db *database.DB) error {
		lib := db.Library
		for i, name := range files {
			o := pipeline.Options{
				Name: name, Data: datas[i], Registry: reg, Store: lib, WorkDir: filepath.Join(dir, "ingest"),
				Title: f.title, Tags: f.tags, Access: lv, License: f.license, PackDir: f.pack,
				Checker: checker, Captioner: captioner, StatReader: f.statReader,
				Log: slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
			}
			if err := ingestOne(ctx, g, o); err != nil {
				return err
			}
		}
		return nil
	})
}

// readUpload reads a file to ingest, refusing what cannot be a book.
func (g *globals) readUpload(name string, limit int64) ([]byte, error) {
	fi, err := os.Stat(name)
	switch {
	case err != nil:
		return nil, g.fail("cli.ingest.read_failed", map[string]any{"File": name}, err)
	case fi.IsDir():
		return nil, errors.New(g.t("cli.ingest.directory", map[string]any{"File": name}))
	case fi.Size() == 0:
		return nil, g.fail("cli.ingest.empty", map[string]any{"File": name}, ingest.ErrEmpty)
	case fi.Size() > limit:
		return nil, g.fail("cli.ingest.too_large", map[string]any{"File": name,
			"Size": strconv.FormatFloat(float64(fi.Size())/(1<<20), 'f', 1, 64), "Limit": limit >> 20}, ingest.ErrTooLarge)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, g.fail("cli.ingest.read_failed", map[string]any{"File": name}, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1)) // the file may grow after Stat
	if err != nil {
		return nil, g.fail("cli.ingest.read_failed", map[string]any{"File": name}, err)
	}
	if int64(len(b)) > limit {
		return nil, g.fail("cli.ingest.grew_too_large", map[string]any{"File": name, "Limit": limit >> 20}, ingest.ErrTooLarge)
	}
	return b, nil
}

func ingestOne(ctx context.Context, g *globals, o pipeline.Options) error {
	start := time.Now()
	pr := newIngestProgress(g, o.Name)
	o.Progress = pr.event
	if stage := os.Getenv(pauseEnv); stage != "" {
		o.AfterStage = func(ctx context.Context, s string) error {
			if s != stage {
				return nil
			}
			fmt.Fprintln(g.stderr, g.t("cli.ingest.paused", map[string]any{"Stage": s, "Env": pauseEnv}))
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
	for _, w := range res.Warnings {
		fmt.Fprintln(g.stderr, g.t("cli.warning", map[string]any{"Warning": filepath.Base(o.Name) + ": " + fmt.Sprint(w)}))
	}
	if err != nil {
		if fi, serr := os.Stat(res.WorkDir); serr == nil && fi.IsDir() && len(res.Ran)+len(res.Resumed) > 0 {
			fmt.Fprintln(g.stderr, g.t("cli.ingest.kept", map[string]any{"Dir": res.WorkDir}))
		}
		return g.explainIngest(err)
	}
	resumed := ""
	if len(res.Resumed) > 0 {
		resumed = " " + g.t("cli.ingest.resumed", map[string]any{"Stages": strings.Join(res.Resumed, ", ")})
	}
	images := g.t("cli.ingest.images", map[string]any{"Images": res.Images})
	if o.Captioner != nil {
		images += " " + g.t("cli.ingest.described", map[string]any{"Described": res.Described})
	}
	checked := ""
	if o.Checker != nil {
		checked = " " + g.t("cli.ingest.checked", map[string]any{"Checked": res.Checked})
	}
	fmt.Fprintln(g.stdout, g.t("cli.ingest.done", map[string]any{"Title": strconv.Quote(res.Title), "ID": res.DocumentID, "Pages": res.Pages,
		"Sections": res.Sections, "Checked": checked, "Chunks": res.Chunks, "Images": images,
		"Took": time.Since(start).Round(time.Millisecond).String(), "Resumed": resumed}))
	if res.PackDir != "" {
		fmt.Fprintln(g.stdout, g.t("cli.ingest.wrote_pack", map[string]any{"Dir": res.PackDir}))
	}
	fmt.Fprintln(g.stdout, g.t("cli.ingest.search_it", map[string]any{"Pack": library.PackOf(res.DocumentID)}))
	return nil
}

// explainIngest adds what to do to the errors a user can act on.
func (g *globals) explainIngest(err error) error {
	switch {
	case errors.Is(err, ingest.ErrEncrypted):
		return g.fail("cli.ingest.encrypted", nil, err)
	case errors.Is(err, ingest.ErrNoText):
		return g.fail("cli.ingest.no_text", nil, err)
	case errors.Is(err, ingest.ErrCorrupt):
		return g.fail("cli.ingest.corrupt", nil, err)
	case errors.Is(err, ingest.ErrUnsupported), errors.Is(err, ingest.ErrEmpty), errors.Is(err, ingest.ErrTooLarge):
		return g.fail("cli.ingest.unchanged", nil, err)
	}
	return err
}

// ingestProgress shows the stage and, while extracting, pages and an ETA:
// a live line on a terminal, else one line per stage.
type ingestProgress struct {
	g     *globals
	w     io.Writer
	name  string
	live  bool
	start time.Time // of the current stage
	last  time.Time
}

func newIngestProgress(g *globals, name string) *ingestProgress {
	return &ingestProgress{g: g, w: g.stderr, name: filepath.Base(name), live: wrapWidth(g.stderr) > 0}
}

// stage is "NAME: stage I/N STAGE" in the user's language.
func (p *ingestProgress) stage(e pipeline.Event) string {
	return p.g.t("cli.ingest.stage", map[string]any{"File": p.name, "Index": e.Index + 1, "Count": len(pipeline.Stages), "Stage": e.Stage})
}

func (p *ingestProgress) event(e pipeline.Event) {
	switch {
	case e.Resumed:
		p.line(p.stage(e) + ": " + p.g.t("cli.ingest.stage_resumed", nil))
	case e.Finished:
		p.line(p.stage(e) + ": " + p.g.t("cli.ingest.stage_ran", map[string]any{"Took": e.Elapsed.Round(time.Millisecond).String()}))
	case e.Total == 0: // a stage starts
		p.start = time.Now()
		if p.live {
			fmt.Fprintf(p.w, "\r%s…\033[K", p.stage(e))
		}
	case p.live && (e.Done == e.Total || time.Since(p.last) > 100*time.Millisecond):
		p.last = time.Now()
		eta := ""
		if e.Done > 0 && e.Done < e.Total {
			left := time.Duration(float64(time.Since(p.start)) / float64(e.Done) * float64(e.Total-e.Done))
			eta = ", " + p.g.t("cli.ingest.eta", map[string]any{"Left": left.Round(time.Second).String()})
		}
		unit := map[string]string{"classify": "section", "enrich": "image"}[e.Stage]
		if unit == "" {
			unit = "page"
		}
		fmt.Fprintf(p.w, "\r%s: %s %d/%d%s\033[K", p.stage(e), p.g.t("cli.ingest.unit."+unit, nil), e.Done, e.Total, eta)
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
