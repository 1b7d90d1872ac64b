package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/library"
)

// illustrated registers a PDF reader that returns a two-page book with
// n images, each with its own bytes and context.
func illustrated(o *Options, n int) {
	doc := &ingest.Document{Title: "Bestiary", Pages: []ingest.Page{{Number: 1, Text: "Beasts of the vale."}, {Number: 2, Text: "More beasts."}}}
	for i := range n {
		doc.Images = append(doc.Images, ingest.Image{Page: 1 + i%2, Index: i / 2, Width: 20, Height: 10,
			Data: fmt.Appendf(nil, "RIFF-image-%d", i), MediaType: "image/webp", Context: fmt.Sprintf("beast %d", i)})
	}
	o.Registry.Register(ingest.PDF, ingest.ExtractorFunc(func(context.Context, []byte, func(int, int)) (*ingest.Document, error) {
		return doc, nil
	}))
	o.Name, o.Data = "bestiary.pdf", []byte("%PDF-1.7 a bestiary")
}

// captioner describes "RIFF-image-N" as "a drawing of beast N", counting
// its calls; fail makes the calls for some images fail.
type captioner struct {
	mu    sync.Mutex
	calls []string
	fail  func(webp string) error
	key   string
}

func (c *captioner) Caption(_ context.Context, webp []byte, mediaType, near string) (string, error) {
	c.mu.Lock()
	c.calls = append(c.calls, string(webp))
	c.mu.Unlock()
	if mediaType != "image/webp" {
		return "", fmt.Errorf("the picture came as %q, want image/webp", mediaType)
	}
	if c.fail != nil {
		if err := c.fail(string(webp)); err != nil {
			return "", err
		}
	}
	return "  A drawing of " + near + ".\n", nil
}

func (c *captioner) Key() string { return "test/" + c.key }

func described(t *testing.T, e *env, id string) map[string]string {
	t.Helper()
	ims, err := e.lib.Images(context.Background(), id, 0, access.GM, true)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, im := range ims {
		out[string(im.Data)] = im.Description
	}
	return out
}

func TestCaptions(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	o := e.opts("", nil)
	illustrated(&o, 5)
	c := &captioner{fail: func(webp string) error {
		if webp == "RIFF-image-3" {
			return errors.New("the model cannot see this one")
		}
		return nil
	}}
	o.Captioner = c
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Images != 5 || res.Described != 4 || len(c.calls) != 5 {
		t.Errorf("images %d, described %d, calls %d", res.Images, res.Described, len(c.calls))
	}
	got := described(t, e, res.DocumentID)
	if len(got) != 5 || got["RIFF-image-0"] != "A drawing of beast 0." || got["RIFF-image-3"] != "" {
		t.Errorf("descriptions: %q", got)
	}
	found, err := e.lib.SearchImages(ctx, library.ImageQuery{Text: "drawing of a beast", Role: access.Player})
	if err != nil || len(found) != 5 {
		t.Errorf("search found %d of 5 (4 by description, 1 by context): %v", len(found), err)
	}
}

// Descriptions are journaled as they come: an ingest stopped while
// describing asks, when resumed, only for the images not yet described;
// one stopped after enrich asks for none.
func TestCaptionsResume(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	o := e.opts("", nil)
	illustrated(&o, 6)
	o.ModelWorkers = 1
	cctx, cancel := context.WithCancel(ctx)
	first := &captioner{fail: func(webp string) error {
		if webp == "RIFF-image-2" {
			cancel() // killed while the third image is described
			return context.Canceled
		}
		return nil
	}}
	o.Captioner = first
	if _, err := Run(cctx, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: %v", err)
	}
	if ds, _ := e.lib.List(ctx, access.GM); len(ds) != 0 {
		t.Fatalf("a stopped ingest stored %d documents", len(ds))
	}
	second := &captioner{}
	o.Captioner = second
	o.AfterStage = func(_ context.Context, s string) error {
		if s == "enrich" {
			return errors.New("stopped after enrich")
		}
		return nil
	}
	if _, err := Run(ctx, o); err == nil {
		t.Fatal("second run did not stop")
	}
	want := []string{"RIFF-image-2", "RIFF-image-3", "RIFF-image-4", "RIFF-image-5"}
	slices.Sort(second.calls)
	if !slices.Equal(second.calls, want) {
		t.Errorf("resumed run described %q, want only %q", second.calls, want)
	}
	third := &captioner{}
	o.Captioner, o.AfterStage = third, nil
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(third.calls) != 0 || !slices.Contains(res.Resumed, "enrich") || res.Described != 6 {
		t.Errorf("third run: %d calls, resumed %v, described %d", len(third.calls), res.Resumed, res.Described)
	}
	for webp, d := range described(t, e, res.DocumentID) {
		if !strings.HasPrefix(d, "A drawing of beast ") {
			t.Errorf("%s: description %q", webp, d)
		}
	}
	// Another vision model describes again rather than reusing answers.
	o.AfterStage = func(_ context.Context, s string) error {
		if s == "validate" {
			return errors.New("stop")
		}
		return nil
	}
	Run(ctx, o)
	o.AfterStage = nil
	other := &captioner{key: "another-model"}
	o.Captioner = other
	if _, err := Run(ctx, o); err != nil || len(other.calls) != 6 {
		t.Errorf("another model described %d images (%v), want all 6", len(other.calls), err)
	}
}

// A vision model that fails every time is given up after a few calls;
// the images are stored without descriptions and the result says why.
func TestCaptionsBrokenModel(t *testing.T) {
	e := newEnv(t)
	o := e.opts("", nil)
	illustrated(&o, 8)
	o.ModelWorkers = 1
	c := &captioner{fail: func(string) error { return errors.New(`model "llava" not found`) }}
	o.Captioner = c
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.calls) != maxFailures || res.Images != 8 || res.Described != 0 {
		t.Errorf("%d calls, %d images, %d described", len(c.calls), res.Images, res.Described)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, `model "llava" not found`) || !strings.Contains(w, "5 of 8 were not asked") {
		t.Errorf("warnings: %s", w)
	}
}
