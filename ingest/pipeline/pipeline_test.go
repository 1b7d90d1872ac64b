package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/epub"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/library/sqlitelibrary"
	"github.com/hearth-rpg/hearth/ingest/markdown"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
)

const combatMD = "../../../shared/testdata/srd51/md/Gameplay/Combat.md"

func registry() *ingest.Registry {
	var r ingest.Registry
	r.Register(ingest.EPUB, epub.New(epub.Limits{}))
	r.Register(ingest.Markdown, markdown.Markdown{})
	r.Register(ingest.Text, markdown.Text{})
	return &r
}

type env struct {
	dir string
	lib *library.Library
	ix  *sqliteindex.Index
	log *slog.Logger
}

// tlog writes log lines to the test's log, shown when it fails.
type tlog struct{ t testing.TB }

func (w tlog) Write(b []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

func newEnv(t *testing.T) *env { return newEnvB(t) }

func newEnvB(t testing.TB) *env {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	ix, err := sqliteindex.Open(ctx, filepath.Join(dir, "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	st, err := sqlitelibrary.Open(ctx, filepath.Join(dir, "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	lib := library.New(st, ix)
	return &env{dir: dir, lib: lib, ix: ix, log: slog.New(slog.NewTextHandler(tlog{t}, nil))}
}

func (e *env) opts(name string, data []byte) Options {
	return Options{Name: name, Data: data, Registry: registry(), Store: e.lib, WorkDir: filepath.Join(e.dir, "ingest"), Log: e.log}
}

func readOrSkip(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s is absent: the shared test data is not checked out beside the repository", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMarkdownToPack(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	o := e.opts("Combat.md", readOrSkip(t, combatMD))
	o.PackDir = filepath.Join(e.dir, "pack")
	o.Tags = []string{"srd", "vol1"}
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Ran, Stages) || len(res.Resumed) != 0 {
		t.Errorf("ran %v, resumed %v", res.Ran, res.Resumed)
	}
	if res.Title != "COMBAT" || res.Pages != 7 || res.Sections < 7 || res.Chunks < res.Pages {
		t.Errorf("result: %+v", res)
	}
	rep, err := campaign.Validate(ctx, o.PackDir)
	if err != nil || !rep.OK() || rep.Summary.Chunks == 0 {
		t.Fatalf("pack: %v\n%s", err, rep.Text())
	}
	b, err := os.ReadFile(filepath.Join(o.PackDir, "pack.yml"))
	if err != nil || !strings.Contains(string(b), "id: combat") || !strings.Contains(string(b), "license: unknown") {
		t.Errorf("pack.yml:\n%s %v", b, err)
	}
	doc, err := e.lib.Document(ctx, res.DocumentID, access.Player)
	if err != nil || doc.Chunks != res.Chunks || !slices.Equal(doc.Tags, o.Tags) {
		t.Errorf("library: %+v %v", doc, err)
	}
	// A finished ingest leaves no checkpoints: running again redoes it
	// all, to the same result.
	if _, err := os.Stat(res.WorkDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("checkpoints left after success: %v", err)
	}
	res2, err := Run(ctx, o)
	if err != nil || !slices.Equal(res2.Ran, Stages) || res2.Chunks != res.Chunks {
		t.Errorf("second run: %+v %v", res2, err)
	}
	// After a failure, new options redo the stages that depend on them,
	// not extraction.
	stop := errors.New("stopped")
	o.AfterStage = func(_ context.Context, s string) error {
		if s == "validate" {
			return stop
		}
		return nil
	}
	if _, err := Run(ctx, o); !errors.Is(err, stop) {
		t.Fatalf("stopped run: %v", err)
	}
	o.AfterStage = nil
	o.Access = access.GM
	res3, err := Run(ctx, o)
	if err != nil || !slices.Equal(res3.Ran, Stages[firstKeyed:]) || !slices.Equal(res3.Resumed, Stages[:firstKeyed]) {
		t.Errorf("changed options: ran %v, resumed %v, %v", res3.Ran, res3.Resumed, err)
	}
	if _, err := e.lib.Document(ctx, res.DocumentID, access.Player); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("players still read a gm_only document: %v", err)
	}
}

// Checkpoints go after a successful ingest and stay after a failed one,
// which the next run resumes from.
func TestCheckpointsCleanup(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	o := e.opts("a.md", []byte("# A\n\nThe kingdom fell long ago.\n"))
	other := filepath.Join(o.WorkDir, "another-ingest")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	broken := errors.New("the disk is full")
	o.AfterStage = func(_ context.Context, s string) error {
		if s == "assemble" {
			return broken
		}
		return nil
	}
	res, err := Run(ctx, o)
	if !errors.Is(err, broken) {
		t.Fatalf("err = %v", err)
	}
	kept, _ := filepath.Glob(filepath.Join(res.WorkDir, "*.json"))
	if len(kept) != 7 {
		t.Fatalf("checkpoints after a failure: %v", kept)
	}
	o.AfterStage = nil
	res, err = Run(ctx, o)
	if err != nil || !slices.Equal(res.Ran, []string{"validate"}) {
		t.Fatalf("resume: ran %v, %v", res.Ran, err)
	}
	if _, err := os.Stat(res.WorkDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("checkpoints after success: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another ingest's checkpoints went too: %v", err)
	}
	os.Remove(other)
	if _, err := Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(o.WorkDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the empty work directory is left: %v", err)
	}
}

// An ingest stopped after a stage resumes after it, and ends as an
// uninterrupted one does.
func TestResume(t *testing.T) {
	ctx := context.Background()
	data := readOrSkip(t, combatMD)
	stop := errors.New("stopped")
	for i, after := range Stages[:len(Stages)-1] {
		t.Run(after, func(t *testing.T) {
			e := newEnv(t)
			o := e.opts("Combat.md", data)
			o.AfterStage = func(_ context.Context, s string) error {
				if s == after {
					return stop
				}
				return nil
			}
			if _, err := Run(ctx, o); !errors.Is(err, stop) {
				t.Fatalf("first run: %v", err)
			}
			o.AfterStage = nil
			res, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Resumed, Stages[:i+1]) || !slices.Equal(res.Ran, Stages[i+1:]) {
				t.Errorf("resumed %v, ran %v", res.Resumed, res.Ran)
			}
			f := newEnv(t)
			want, err := Run(ctx, f.opts("Combat.md", data))
			if err != nil {
				t.Fatal(err)
			}
			if want.Chunks != res.Chunks || want.Sections != res.Sections || want.DocumentID != res.DocumentID {
				t.Errorf("resumed %+v, uninterrupted %+v", res, want)
			}
		})
	}
}

func TestBadInputsLeaveLibraryUnchanged(t *testing.T) {
	ctx := context.Background()
	fakePDF := func(doc *ingest.Document, err error) ingest.Extractor {
		return ingest.ExtractorFunc(func(context.Context, []byte, func(int, int)) (*ingest.Document, error) { return doc, err })
	}
	blankPages := &ingest.Document{Pages: []ingest.Page{{Number: 1}, {Number: 2, Text: "  \n"}}, Images: []ingest.Image{{Page: 1, Width: 10, Height: 10}}}
	tests := []struct {
		name, file string
		data       []byte
		pdf        ingest.Extractor
		want       error
		msg        string
	}{
		{"empty file", "a.txt", nil, nil, ingest.ErrEmpty, "empty"},
		{"unsupported", "a.docx", []byte("hello"), nil, ingest.ErrUnsupported, ".docx"},
		{"truncated epub", "a.epub", []byte("PK\x03\x04\x14\x00\x00\x00"), nil, ingest.ErrCorrupt, "truncated"},
		{"binary text", "a.txt", []byte("ab\x00cd"), nil, ingest.ErrCorrupt, "UTF-8"},
		{"pdf without extractor", "a.pdf", []byte("%PDF-1.7"), nil, ingest.ErrUnsupported, "no extractor for pdf"},
		{"image-only pdf", "a.pdf", []byte("%PDF-1.7"), fakePDF(blankPages, nil), ingest.ErrNoText, "OCR is not available"},
		{"encrypted pdf", "a.pdf", []byte("%PDF-1.7"), fakePDF(nil, ingest.ErrEncrypted), ingest.ErrEncrypted, "encrypted"},
		{"corrupt pdf", "a.pdf", []byte("%PDF-1.7"), fakePDF(nil, ingest.ErrCorrupt), ingest.ErrCorrupt, "damaged"},
		{"pdf name, not a pdf", "a.pdf", []byte("hello"), nil, ingest.ErrCorrupt, "%PDF-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			o := e.opts(tt.file, tt.data)
			if tt.pdf != nil {
				o.Registry.Register(ingest.PDF, tt.pdf)
			}
			_, err := Run(ctx, o)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %v saying %q", err, tt.want, tt.msg)
			}
			if ds, _ := e.lib.List(ctx, access.GM); len(ds) != 0 {
				t.Errorf("library holds %d documents", len(ds))
			}
			if st, _ := e.ix.Stats(ctx); st.Chunks != 0 {
				t.Errorf("index holds %d chunks", st.Chunks)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"mechanics", "Make a DC 15 Dexterity saving throw. On a failed save, a creature takes 4d6 fire damage and loses 10 hit points; add your modifier to the attack roll.", Systems},
		{"setting", "Long ago the elves of Myth Drannor ruled the forest. Their kingdom fell in the war with the Nether empire, and its ruins still stand in the north, where the priests of Corellon keep the old traditions.", Lore},
		{"table", "| Level | Bonus |\n| 1 | +2 |\n| 5 | +3 |\n| 9 | +4 |", Systems},
		{"mixed", "The dwarves of Mithral Hall founded their kingdom in the mountains centuries ago; their clan priests worship Moradin. A dwarf has advantage on saving throws against poison and resistance to poison damage; roll 1d8 for hit points.", Both},
		{"plain prose", "It was a quiet afternoon and nothing happened at all.", Lore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c := classify(tt.text); c.Label != tt.want {
				t.Errorf("%s (systems %.1f, lore %.1f, %v), want %s", c.Label, c.Systems, c.Lore, c.Features, tt.want)
			}
		})
	}
}

// checker answers from a table by section title; "" is an error.
type checker map[string]string

func (c checker) Classify(_ context.Context, title, _ string, _ Class) (string, error) {
	if l := c[title]; l != "" {
		return l, nil
	}
	return "", errors.New("the model is confused")
}

func TestChecker(t *testing.T) {
	md := []byte("# A\n\nThe kingdom fell long ago.\n\n# B\n\nThe queen rode north.\n\n# C\n\nThe river froze.\n\n# D\n\nA temple.\n")
	tests := []struct {
		name    string
		c       checker
		checked int
		labels  map[string]string // pack file label by title
		warns   bool
	}{
		{"every answer used", checker{"A": Systems, "B": Both, "C": Lore, "D": Systems}, 4, map[string]string{"A": Systems, "B": Both}, false},
		{"a failure keeps the rule's label", checker{"A": Systems, "B": "", "C": "nonsense", "D": Systems}, 2, map[string]string{"A": Systems, "B": Lore}, false},
		{"a broken model is asked no more", checker{}, 0, map[string]string{"A": Lore}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			o := e.opts("a.md", md)
			o.Checker, o.ModelWorkers = tt.c, 1
			o.PackDir = filepath.Join(e.dir, "pack")
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Checked != tt.checked {
				t.Errorf("checked %d sections, want %d", res.Checked, tt.checked)
			}
			if got := len(res.Warnings) > 0; got != tt.warns {
				t.Errorf("warnings %q", res.Warnings)
			}
			for title, label := range tt.labels {
				files, _ := filepath.Glob(filepath.Join(o.PackDir, "sections", "*-"+slug(title)+".md"))
				if len(files) != 1 {
					t.Fatalf("pack files of section %s: %v", title, files)
				}
				b, err := os.ReadFile(files[0])
				if err != nil || !strings.Contains(string(b), "classification: "+label+"\n") {
					t.Errorf("section %s is not labelled %s:\n%s", title, label, b)
				}
			}
		})
	}
}

// A checker's answers are checkpointed under its key: another model
// checks again, the same one resumes.
func TestCheckerKey(t *testing.T) {
	e := newEnv(t)
	o := e.opts("a.md", []byte("# A\nThe kingdom fell long ago.\n"))
	o.Checker = checker{"A": Systems}
	o.AfterStage = func(_ context.Context, s string) error {
		if s == "classify" {
			return errors.New("stop")
		}
		return nil
	}
	Run(context.Background(), o)
	o.AfterStage = nil
	var cs []Class
	path := filepath.Join(o.WorkDir, mustHash(t, o), "04-classify.json")
	if !load(path, keyOf(o.Checker), &cs) || len(cs) != 1 || cs[0].Label != Systems || !cs[0].Checked {
		t.Errorf("classes: %+v", cs)
	}
	if load(path, "", &cs) {
		t.Error("a rules-only run would reuse the model's classes")
	}
}
func TestSegment(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("word ", 400))
	doc := &ingest.Document{Format: ingest.Markdown, Pages: []ingest.Page{
		{Number: 1, Text: "# One\n\nintro\n\n### Tiny\n\nsmall\n\n## Two\n\n" + long + "\n\n" + long},
		{Number: 2, Text: "more text"},
	}}
	segs := segment(doc, structure(doc))
	var got []string
	for _, s := range segs {
		got = append(got, s.Title+"@"+strings.Join(s.Path, "/"))
		if s.Words > SegmentWords && strings.Contains(s.Text, "\n\n") {
			t.Errorf("segment %q has %d words across paragraphs", s.Title, s.Words)
		}
	}
	want := []string{"One@One", "Two@One/Two", "Two (part 2)@One/Two"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("segments %q, want %q", got, want)
	}
	if !strings.HasSuffix(segs[2].Text, "more text") || segs[2].Page != 1 {
		t.Errorf("last segment: page %d, ends %q", segs[2].Page, segs[2].Text[len(segs[2].Text)-20:])
	}
}

// The document id is the caller's when given, else the file's; the same
// file ingested again under another title, with no id given, replaces
// its document (chunks included) instead of failing on their ids.
func TestDocumentIDs(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	data := []byte("# Griffons\n\nGriffons nest on the high cliffs and hunt at dawn.\n")
	tests := []struct {
		name, id, title string
		want            func(hash string) string
	}{
		{"the file's id", "", "Griffons", func(h string) string { return DocumentID(h) }},
		{"again under another title: replaced", "", "Cliff Beasts", func(h string) string { return DocumentID(h) }},
		{"the caller's id", "mine", "Griffons, a Copy", func(string) string { return "mine" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := e.opts("griffons.md", data)
			o.DocumentID, o.Title = tt.id, tt.title
			res, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := e.lib.Document(ctx, res.DocumentID, access.GM)
			if err != nil || res.DocumentID != tt.want(doc.Hash) || doc.Title != tt.title {
				t.Errorf("document %+v %v, want id %s", doc, err, tt.want(doc.Hash))
			}
		})
	}
	ds, err := e.lib.List(ctx, access.GM)
	if err != nil || len(ds) != 2 {
		t.Errorf("documents: %+v %v", ds, err)
	}
}
