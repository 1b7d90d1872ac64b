package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/ingest"
)

// testdataDir holds the real test PDFs, beside the repository;
// HEARTH_SHARED_TESTDATA names another place for ../shared/testdata (a
// worktree sits one level deeper than the main checkout).
func testdataDir() string {
	if alt := os.Getenv("HEARTH_SHARED_TESTDATA"); alt != "" {
		return filepath.Join(alt, "pdf")
	}
	return "../../../shared/testdata/pdf"
}

// The PDFium compile is slow once; every test shares one Extractor and
// each real PDF is extracted once.
var (
	shared struct {
		once sync.Once
		e    *Extractor
		err  error
	}
	docs sync.Map // key string → *docResult
)

type docResult struct {
	once sync.Once
	doc  *ingest.Document
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.e != nil {
		shared.e.Close()
	}
	os.Exit(code)
}

func extractor(t testing.TB) *Extractor {
	t.Helper()
	shared.once.Do(func() {
		shared.e, shared.err = Open(context.Background(), Options{CacheDir: filepath.Join(os.TempDir(), "hearth-pdf-test-wazero")})
	})
	if shared.err != nil {
		t.Fatalf("Open: %v", shared.err)
	}
	return shared.e
}

func readTestPDF(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdataDir(), name))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("test PDF %s not found in %s (shared/testdata absent; set HEARTH_SHARED_TESTDATA)", name, testdataDir())
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// realDoc extracts a test PDF once per key.
func realDoc(t *testing.T, name string, opts Options) *ingest.Document {
	t.Helper()
	data := readTestPDF(t, name)
	key := fmt.Sprintf("%s/%v/%v/%v", name, opts.IgnoreOutline, opts.PDFiumOnly, opts.pdfiumImages)
	v, _ := docs.LoadOrStore(key, &docResult{})
	r := v.(*docResult)
	r.once.Do(func() {
		e := extractor(t)
		if opts.IgnoreOutline || opts.PDFiumOnly || opts.pdfiumImages {
			var err error
			e, err = Open(context.Background(), Options{CacheDir: e.opts.CacheDir, PoolSize: 1, IgnoreOutline: opts.IgnoreOutline, PDFiumOnly: opts.PDFiumOnly, pdfiumImages: opts.pdfiumImages})
			if err != nil {
				r.err = err
				return
			}
			defer e.Close()
		}
		r.doc, r.err = e.Extract(context.Background(), data, nil)
	})
	if r.err != nil {
		t.Fatalf("Extract(%s): %v", name, r.err)
	}
	return r.doc
}

// norm folds whitespace so sentences match across line breaks.
func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

func titles(d *ingest.Document, level int) []string {
	var out []string
	d.Walk(func(s *ingest.Section) {
		if level == 0 || s.Level == level {
			out = append(out, s.Title)
		}
	})
	return out
}

func TestRealPDFs(t *testing.T) {
	tests := []struct {
		file      string
		pages     int
		depth     int
		topTitles []string // some level-1 bookmark titles
		sentence  string
		page      int
		minImages int
	}{
		{"minimal-opend6-srd.pdf", 83, 4, []string{"Definitions of Common Game Terms", "Dice Basics"},
			"Mimimal OpenD6 is a System Reference Document based on Mini Six", 1, 0},
		{"Halberds-and-Helmets-Ref-Guide.pdf", 60, 2, []string{"Principles", "Running the Game", "Gods & Demons", "Monsters", "Indices"},
			"Crocodiles will ambush you whenever you try to cross rivers or fetch water", 20, 70},
		{"mdsrd5.pdf", 531, 4, []string{"Legal Information", "Races", "Classes"},
			"After three days of downtime spent recuperating, you can make a DC 15 Constitution saving throw", 100, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			d := realDoc(t, tt.file, Options{})
			if len(d.Pages) != tt.pages {
				t.Fatalf("pages = %d, want %d", len(d.Pages), tt.pages)
			}
			for i, p := range d.Pages {
				if p.Number != i+1 {
					t.Fatalf("Pages[%d].Number = %d", i, p.Number)
				}
			}
			if got := d.Depth(); got != tt.depth {
				t.Errorf("outline depth = %d, want %d", got, tt.depth)
			}
			top := titles(d, 1)
			for _, want := range tt.topTitles {
				found := false
				for _, got := range top {
					found = found || got == want
				}
				if !found {
					t.Errorf("top-level section %q missing; have %q", want, top[:min(len(top), 10)])
				}
			}
			withPage := 0
			d.Walk(func(s *ingest.Section) {
				if s.Page > 0 {
					withPage++
				}
			})
			if withPage == 0 {
				t.Errorf("no outline section has a target page")
			}
			if got := norm(d.Pages[tt.page-1].Text); !strings.Contains(got, tt.sentence) {
				t.Errorf("page %d lacks %q; it reads:\n%.600s", tt.page, tt.sentence, got)
			}
			if len(d.Images) < tt.minImages {
				t.Errorf("images = %d, want at least %d", len(d.Images), tt.minImages)
			}
			if d.Format != "pdf" || len(d.Hash) != 64 {
				t.Errorf("format %q hash %q", d.Format, d.Hash)
			}
		})
	}
}

func TestOutlinePages(t *testing.T) {
	d := realDoc(t, "minimal-opend6-srd.pdf", Options{})
	want := map[string]int{"Definitions of Common Game Terms": 1, "About this Book": 2}
	d.Walk(func(s *ingest.Section) {
		if p, ok := want[s.Title]; ok && s.Page != p {
			t.Errorf("section %q page = %d, want %d", s.Title, s.Page, p)
		}
	})
}

func TestRunningHeadersRemoved(t *testing.T) {
	d := realDoc(t, "Halberds-and-Helmets-Ref-Guide.pdf", Options{})
	// Even pages carry "NN alex schroeder" at the top, odd ones the
	// book's title and the page number.
	for _, p := range d.Pages {
		for _, l := range strings.Split(p.Text, "\n") {
			if k := furnitureKey(l); k == "# alex schroeder" || k == "halberds & helmets: running the game #" {
				t.Errorf("page %d keeps the running header %q", p.Number, l)
			}
		}
	}
	if got := d.Pages[19].Label; got != "20" {
		t.Errorf("page 20 label = %q, want 20", got)
	}
	if strings.HasPrefix(strings.TrimSpace(d.Pages[19].Text), "20") {
		t.Errorf("page 20 text starts with its page number")
	}
}

func TestMultiColumnReadingOrder(t *testing.T) {
	d := realDoc(t, "Halberds-and-Helmets-Ref-Guide.pdf", Options{})
	text := norm(d.Pages[19].Text)
	// Main column and margin note share lines on the page; each must
	// read whole, not interleaved line by line.
	for _, s := range []string{
		"If you hit, the victim must save vs. poison or be paralyzed for 10 min.",
		"To be trained as an assassin, you must swear eternal loyalty and servitude to Set.",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("page 20 lacks %q unbroken; it reads:\n%.800s", s, text)
		}
	}
	a := strings.Index(text, "When throwing the vial, roll to hit.")
	b := strings.Index(text, "Their goal is to drag you down and drown you.")
	if a < 0 || b < 0 || a > b {
		t.Errorf("main-column sentences out of order: %d, %d", a, b)
	}
}

func TestImagesHalberdsPage20(t *testing.T) {
	d := realDoc(t, "Halberds-and-Helmets-Ref-Guide.pdf", Options{})
	var got []ingest.Image
	for _, im := range d.Images {
		if im.Page == 20 {
			got = append(got, im)
		}
	}
	// pdfimages -list: page 20 has two RGB JPEGs, 293x142 and 288x229.
	want := [][2]int{{293, 142}, {288, 229}}
	if len(got) != len(want) {
		t.Fatalf("page 20 images = %d, want %d", len(got), len(want))
	}
	for i, im := range got {
		if im.Index != i || im.Width != want[i][0] || im.Height != want[i][1] {
			t.Errorf("image %d: index %d %dx%d, want %d %dx%d", i, im.Index, im.Width, im.Height, i, want[i][0], want[i][1])
		}
		// Plain JPEGs in the file are kept as they are.
		if im.MediaType != "image/jpeg" || !bytes.HasPrefix(im.Data, []byte{0xff, 0xd8}) {
			t.Errorf("image %d is %s, %q…, want the JPEG as the file has it", i, im.MediaType, im.Data[:min(len(im.Data), 4)])
		}
		if im.Context == "" {
			t.Errorf("image %d has no context", i)
		}
	}
	if !strings.Contains(got[0].Context, "Crocodile") {
		t.Errorf("first image context %q does not mention the crocodile below it", got[0].Context)
	}
}

func TestStructureDetector(t *testing.T) {
	d := realDoc(t, "Halberds-and-Helmets-Ref-Guide.pdf", Options{IgnoreOutline: true})
	if len(d.Outline) == 0 {
		t.Fatal("no outline detected without bookmarks")
	}
	var all []string
	d.Walk(func(s *ingest.Section) {
		if s.Level <= 2 {
			all = append(all, s.Title)
		}
	})
	// The chapters, as the bookmarks name them.
	for _, want := range []string{"Principles", "Running the Game", "Gods & Demons", "Monsters", "Indices"} {
		found := false
		for _, got := range all {
			found = found || got == want
		}
		if !found {
			t.Errorf("detected outline lacks %q; first titles: %q", want, all[:min(len(all), 20)])
		}
	}
}

func TestBadInput(t *testing.T) {
	e := extractor(t)
	tiny := tinyPDF("A small test page with enough words to count as text.")
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrCorrupt},
		{"random bytes", bytes.Repeat([]byte{0x13, 0x37, 0xde, 0xad, 0xbe, 0xef}, 200), ErrCorrupt},
		{"not a pdf", []byte("hello, world\n"), ErrCorrupt},
		{"truncated tiny", tiny[:len(tiny)/3], ErrCorrupt},
		{"encrypted", encryptedPDF(t), ErrEncrypted},
		{"no text", tinyPDF(""), ErrNoText},
	}
	if data, err := os.ReadFile(filepath.Join(testdataDir(), "minimal-opend6-srd.pdf")); err == nil {
		tests = append(tests, struct {
			name string
			data []byte
			want error
		}{"truncated real", data[:2000], ErrCorrupt})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := e.Extract(context.Background(), tt.data, nil)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if d != nil {
				t.Fatal("document returned with an error")
			}
		})
	}
}

func TestTinyPDF(t *testing.T) {
	e := extractor(t)
	var calls int
	d, err := e.Extract(context.Background(), tinyPDF("Hello from a tiny hand made page."), func(page, pages int) {
		calls++
		if page != 1 || pages != 1 {
			t.Errorf("progress(%d, %d)", page, pages)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || len(d.Pages) != 1 || norm(d.Pages[0].Text) != "Hello from a tiny hand made page." {
		t.Fatalf("calls %d, pages %+v", calls, d.Pages)
	}
}

func TestMaxPages(t *testing.T) {
	e, err := Open(context.Background(), Options{CacheDir: extractor(t).opts.CacheDir, PoolSize: 1, MaxPages: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Extract(context.Background(), tinyPDF("One", "Two"), nil)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

func TestCanceled(t *testing.T) {
	e := extractor(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Extract(ctx, tinyPDF("Some words here for the page."), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func FuzzExtract(f *testing.F) {
	tiny := tinyPDF("Fuzz seed page with some words on it.")
	f.Add(tiny)
	f.Add(tiny[:len(tiny)/2])
	f.Add(tinyPDF("One", "Two pages of text here."))
	f.Add([]byte("%PDF-1.4\n%%EOF"))
	f.Add(picturesPDF(f))
	// An extractor of its own, opened once per fuzzing process: one PDFium
	// instance, so the same input always takes the same path (with two,
	// whether the second is free decides which code runs, and the fuzzer
	// spends its time minimizing inputs that only looked new), and small
	// page and image limits, so a mutated page count ends the iteration.
	e, err := Open(context.Background(), Options{CacheDir: filepath.Join(os.TempDir(), "hearth-pdf-test-wazero"),
		PoolSize: 1, MaxPages: 16, MaxImages: 4})
	if err != nil {
		f.Fatalf("Open: %v", err)
	}
	f.Cleanup(func() { e.Close() })
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		d, err := e.Extract(context.Background(), data, nil)
		if err == nil && (d == nil || len(d.Pages) == 0) {
			t.Fatal("no error and no pages")
		}
		if err != nil && !errorsIsAny(err, ErrCorrupt, ErrEncrypted, ErrNoText, ErrTooLarge) {
			t.Fatalf("unclassified error: %v", err)
		}
	})
}
