package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/systems"
	"github.com/hearth-rpg/hearth/tokens"
)

// Stages in the order they run.
var Stages = []string{"extract", "structure", "segment", "classify", "systems", "enrich", "assemble", "validate"}

// firstKeyed is the first stage whose output depends on all the
// options. Classify before it depends only on the Checker, systems only
// on the StatReader.
const firstKeyed = 5 // enrich

const (
	classifyStage = 3
	systemsStage  = 4
	enrichStage   = 5
)

// Store is where assemble puts the document: a *library.Library.
type Store interface {
	Put(ctx context.Context, d library.Document, pages []library.Page, images []library.Image, chunks []chunk.Chunk) error
	Document(ctx context.Context, id string, role access.Level) (library.Document, error)
}

// Options configure one ingest.
type Options struct {
	Name     string // the file's name, for messages and the source field
	Data     []byte
	Registry *ingest.Registry
	Store    Store
	WorkDir  string // checkpoints go in WorkDir/<sha256>/

	// DocumentID is the library id the document gets; default
	// DocumentID(sha256 of Data), so the same file ingested again
	// replaces its document.
	DocumentID string

	Title   string // default: the document's own, else the file name
	Tags    []string
	Access  access.Level // default player
	License string       // for the pack; default "unknown"
	PackDir string       // write a content pack here when set

	Tokens  *tokens.Counter // default cl100k
	Checker Checker         // second opinion on classification; nil: rules only
	// StatReader reads again, with a model, the stat blocks the
	// rule-based systems extractor is unsure of; nil: rules only.
	StatReader StatReader
	// Captioner describes every image with a vision model during
	// enrich; nil: images keep only the text near them.
	Captioner Captioner
	// ModelWorkers is how many Checker or Captioner calls run at once;
	// default 2.
	ModelWorkers int
	// Log receives what went wrong without stopping the ingest (a model
	// call that failed); default slog.Default().
	Log *slog.Logger

	// Progress is told as stages start, advance and finish.
	Progress func(Event)
	// AfterStage runs after each stage's checkpoint is written; an error
	// stops the ingest. The CLI's test hook pauses here.
	AfterStage func(ctx context.Context, stage string) error
	// BeforeStage runs as a stage that has no checkpoint starts, after
	// its first Progress event; an error stops the ingest. The server's
	// test hook pauses here.
	BeforeStage func(ctx context.Context, stage string) error
}

// Event reports progress.
type Event struct {
	Stage       string
	Index       int  // 0-based position in Stages
	Done, Total int  // units within the stage (pages while extracting)
	Resumed     bool // the stage's checkpoint was used: it did not run
	Finished    bool // the stage is over
	Elapsed     time.Duration
}

// Result says what an ingest did.
type Result struct {
	DocumentID string
	Title      string
	Format     string
	Pages      int
	Sections   int
	Chunks     int
	Images     int
	PackDir    string
	Described  int      // images a vision model described
	Checked    int      // sections whose class a model checked
	Monsters   int      // stat blocks extracted
	Items      int      // weapons, armor and magic items extracted
	Unsure     int      // stat blocks kept though the rules doubt a field
	StatsRead  int      // stat blocks a model read again
	Ran        []string // stages that ran
	Resumed    []string // stages taken from checkpoints
	// Warnings are what was skipped without failing the ingest: images
	// an extractor could not read, a model that stopped answering.
	Warnings []string
	// WorkDir holds the checkpoints. It is removed after a successful
	// ingest and kept after a failed one, so running again resumes.
	WorkDir string
}

// extracted is the extract checkpoint: the document, with image bytes
// (which the document model does not serialise). Data keeps the JSON name
// it had when every picture was WebP, so older checkpoints still load;
// their pictures have no media type in Doc and are WebP.
type extracted struct {
	Doc  *ingest.Document `json:"doc"`
	Data [][]byte         `json:"webp,omitempty"`
}

// enriched is a segment's tags and entity references.
type enriched struct {
	Tags []string `json:"tags"`
	Refs []string `json:"refs"`
}

// enrichment is the enrich checkpoint: the segments' tags, and the
// images' descriptions (by the image's position in the document; "" for
// none).
type enrichment struct {
	Segments     []enriched `json:"segments"`
	Descriptions []string   `json:"descriptions,omitempty"`
}

// assembled is the assemble checkpoint.
type assembled struct {
	Doc     library.Document `json:"doc"`
	Images  int              `json:"images"`
	PackDir string           `json:"pack_dir,omitempty"`
}

// validated is the validate checkpoint.
type validated struct {
	PackErrors   int `json:"pack_errors"`
	PackWarnings int `json:"pack_warnings"`
}

// Run ingests one file, resuming from checkpoints where they exist.
func Run(ctx context.Context, o Options) (Result, error) {
	if err := o.check(); err != nil {
		return Result{}, err
	}
	sum := sha256.Sum256(o.Data)
	hash := hex.EncodeToString(sum[:])
	if o.DocumentID == "" {
		o.DocumentID = DocumentID(hash)
	}
	r := &run{Options: o, hash: hash, dir: filepath.Join(o.WorkDir, hash), key: o.key()}
	res, err := r.all(ctx)
	if err != nil {
		return res, fmt.Errorf("ingest %s: %w", o.Name, err)
	}
	r.cleanup()
	return r.res, nil
}

// cleanup removes the checkpoints of a finished ingest, and the work
// directory when no other ingest has checkpoints in it. What cannot be
// removed is only logged: the document is in the library either way.
func (r *run) cleanup() {
	if err := os.RemoveAll(r.dir); err != nil {
		r.Log.Warn("ingest: could not remove the checkpoints of a finished ingest", "dir", r.dir, "err", err)
		return
	}
	os.Remove(r.WorkDir) // fails, as it should, while other ingests' checkpoints are there
}

func (o *Options) check() error {
	switch {
	case len(o.Data) == 0:
		return fmt.Errorf("ingest %s: %w", o.Name, ingest.ErrEmpty)
	case o.Registry == nil || o.Store == nil || o.WorkDir == "":
		return errors.New("ingest: Registry, Store and WorkDir are required")
	}
	if o.Access == 0 {
		o.Access = access.Player
	}
	if o.License == "" {
		o.License = "unknown"
	}
	if o.ModelWorkers <= 0 {
		o.ModelWorkers = 2
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Tokens == nil {
		tok, err := tokens.CL100K()
		if err != nil {
			return err
		}
		o.Tokens = tok
	}
	return nil
}

// key identifies the options the later stages depend on.
func (o Options) key() string {
	s := strings.Join([]string{o.DocumentID, o.Title, strings.Join(o.Tags, ","), o.Access.String(), o.License, o.PackDir,
		keyOf(o.Checker), keyOf(o.Captioner), keyOf(o.StatReader)}, "\x00")
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

type run struct {
	Options
	hash, dir, key string
	res            Result
}

// stage runs fn unless its checkpoint is there, then checkpoints out.
func stage[T any](ctx context.Context, r *run, i int, out *T, fn func() (T, error)) error {
	name := Stages[i]
	key := ""
	switch {
	case i >= firstKeyed:
		key = r.key
	case i == classifyStage:
		key = keyOf(r.Checker)
	case i == systemsStage:
		key = keyOf(r.StatReader)
	}
	path := checkpointPath(r.dir, i, name)
	if load(path, key, out) {
		r.res.Resumed = append(r.res.Resumed, name)
		r.emit(Event{Stage: name, Index: i, Resumed: true, Finished: true})
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	start := time.Now()
	r.emit(Event{Stage: name, Index: i})
	if r.BeforeStage != nil {
		if err := r.BeforeStage(ctx, name); err != nil {
			return err
		}
	}
	v, err := fn()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := save(path, name, key, v); err != nil {
		return err
	}
	*out = v
	r.res.Ran = append(r.res.Ran, name)
	r.emit(Event{Stage: name, Index: i, Finished: true, Elapsed: time.Since(start)})
	if r.AfterStage != nil {
		if err := r.AfterStage(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

func (r *run) emit(e Event) {
	if r.Progress != nil {
		r.Progress(e)
	}
}

// warn records what was skipped, for the result and the log.
func (r *run) warn(msg string) {
	r.res.Warnings = append(r.res.Warnings, msg)
	r.Log.Warn("ingest: "+msg, "file", r.Name)
}

func (r *run) all(ctx context.Context) (Result, error) {
	r.res.WorkDir = r.dir
	var ex extracted
	if err := stage(ctx, r, 0, &ex, func() (extracted, error) { return r.extract(ctx) }); err != nil {
		return r.res, err
	}
	doc := ex.Doc
	for _, w := range doc.Warnings {
		r.warn(w)
	}
	var st Structure
	if err := stage(ctx, r, 1, &st, func() (Structure, error) { return structure(doc), nil }); err != nil {
		return r.res, err
	}
	var segs []Segment
	if err := stage(ctx, r, 2, &segs, func() ([]Segment, error) { return segment(doc, st), nil }); err != nil {
		return r.res, err
	}
	var classes []Class
	if err := stage(ctx, r, 3, &classes, func() ([]Class, error) { return r.classify(ctx, segs) }); err != nil {
		return r.res, err
	}
	var mech mechanics
	if err := stage(ctx, r, systemsStage, &mech, func() (mechanics, error) { return r.systems(ctx, doc) }); err != nil {
		return r.res, err
	}
	for _, d := range mech.Dropped {
		r.warn("a stat block without Armor Class or hit points was left out: " + d)
	}
	var enr enrichment
	if err := stage(ctx, r, enrichStage, &enr, func() (enrichment, error) { return r.enrich(ctx, ex, segs, classes) }); err != nil {
		return r.res, err
	}
	var asm assembled
	if err := stage(ctx, r, 6, &asm, func() (assembled, error) { return r.assemble(ctx, ex, st, segs, classes, enr, mech) }); err != nil {
		return r.res, err
	}
	var val validated
	if err := stage(ctx, r, 7, &val, func() (validated, error) { return r.validate(ctx, asm) }); err != nil {
		return r.res, err
	}
	r.res.DocumentID, r.res.Title, r.res.Format = asm.Doc.ID, asm.Doc.Title, asm.Doc.Format
	r.res.Pages, r.res.Chunks, r.res.Images = asm.Doc.Pages, asm.Doc.Chunks, asm.Images
	r.res.Sections, r.res.PackDir = len(segs), asm.PackDir
	r.res.Monsters, r.res.Items, r.res.Unsure, r.res.StatsRead = len(mech.Monsters), len(mech.Items), mech.Unsure, mech.Read
	for _, c := range classes {
		if c.Checked {
			r.res.Checked++
		}
	}
	for _, d := range enr.Descriptions {
		if d != "" {
			r.res.Described++
		}
	}
	return r.res, nil
}

func (r *run) extract(ctx context.Context) (extracted, error) {
	format, err := ingest.Detect(r.Name, r.Data)
	if err != nil {
		return extracted{}, err
	}
	e, err := r.Registry.Lookup(format)
	if err != nil {
		return extracted{}, err
	}
	doc, err := e.Extract(ctx, r.Data, func(done, total int) {
		r.emit(Event{Stage: "extract", Done: done, Total: total})
	})
	if err != nil {
		return extracted{}, err
	}
	if doc == nil || len(doc.Pages) == 0 {
		return extracted{}, fmt.Errorf("%w: the %s has no pages", ingest.ErrNoText, format)
	}
	text := false
	for i := range doc.Pages {
		doc.Pages[i].Number = i + 1
		text = text || strings.TrimSpace(doc.Pages[i].Text) != ""
	}
	if !text {
		return extracted{}, fmt.Errorf("%w (%d pages, %d images)", ingest.ErrNoText, len(doc.Pages), len(doc.Images))
	}
	doc.Format, doc.Source, doc.Hash = format, filepath.Base(r.Name), r.hash
	ex := extracted{Doc: doc}
	for _, im := range doc.Images {
		ex.Data = append(ex.Data, im.Data)
	}
	return ex, nil
}

// classify labels each segment by the rules, then, with a Checker, asks
// the model about each one. A segment the model gave no usable answer
// for keeps its rule-based label.
func (r *run) classify(ctx context.Context, segs []Segment) ([]Class, error) {
	out := make([]Class, len(segs))
	items := make([]int, len(segs))
	for i, s := range segs {
		out[i] = classify(s.Text)
		items[i] = i
	}
	if r.Checker == nil {
		return out, nil
	}
	labels, err := r.ask(ctx, classifyStage, "checks", keyOf(r.Checker), items, func(ctx context.Context, i int) (string, error) {
		label, err := r.Checker.Classify(ctx, segs[i].Title, segs[i].Text, out[i])
		if err != nil {
			return "", fmt.Errorf("check the class of %q: %w", segs[i].Title, err)
		}
		switch label {
		case Lore, Systems, Both:
			return label, nil
		}
		return "", fmt.Errorf("check the class of %q: the model answered %q, not lore, systems or both", segs[i].Title, label)
	})
	if err != nil {
		return nil, err
	}
	for i, label := range labels {
		if i < 0 || i >= len(out) || (label != Lore && label != Systems && label != Both) {
			continue // a damaged journal line is no answer
		}
		out[i].Label, out[i].Checked = label, true
		if t := out[i].Type; t == systems.Lore || t == systems.Rules {
			out[i].Type = systems.ContentType(segs[i].Text, label)
		}
	}
	return out, nil
}

// enrich tags the segments and, with a Captioner, describes the images.
func (r *run) enrich(ctx context.Context, ex extracted, segs []Segment, classes []Class) (enrichment, error) {
	e := enrichment{Segments: enrichSegments(segs, classes)}
	if r.Captioner == nil || len(ex.Doc.Images) == 0 {
		return e, nil
	}
	var items []int
	for i := range ex.Doc.Images {
		if i < len(ex.Data) && len(ex.Data[i]) > 0 {
			items = append(items, i)
		}
	}
	descs, err := r.ask(ctx, enrichStage, "descriptions", keyOf(r.Captioner), items, func(ctx context.Context, i int) (string, error) {
		im := ex.Doc.Images[i]
		d, err := r.Captioner.Caption(ctx, ex.Data[i], mediaType(im.MediaType), im.Context)
		if err != nil {
			return "", fmt.Errorf("describe image %d of page %d: %w", im.Index, im.Page, err)
		}
		return strings.TrimSpace(d), nil
	})
	if err != nil {
		return e, err
	}
	e.Descriptions = make([]string, len(ex.Doc.Images))
	for i, d := range descs {
		if i >= 0 && i < len(e.Descriptions) {
			e.Descriptions[i] = d
		}
	}
	return e, nil
}

// enrichSegments tags each segment with its heading path and class.
// Entity references need a model and stay empty without one.
func enrichSegments(segs []Segment, classes []Class) []enriched {
	out := make([]enriched, len(segs))
	for i, s := range segs {
		var tags []string
		seen := map[string]bool{}
		for _, h := range append(s.Path, classes[i].Label) {
			if t := slug(h); t != "" && !seen[t] {
				seen[t] = true
				tags = append(tags, t)
			}
		}
		out[i] = enriched{Tags: tags, Refs: []string{}}
	}
	return out
}

// slug makes a lower-case, hyphenated id of s, at most 64 bytes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
		if b.Len() >= 60 {
			break
		}
	}
	return b.String()
}

// mediaType is a picture's media type; pictures from before there was
// one are WebP.
func mediaType(t string) string {
	if t == "" {
		return "image/webp"
	}
	return t
}
