package retrievetest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/pdf"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/tokens"
)

// version changes whenever the corpus a seed gives changes, so indexes
// cached under an older fingerprint are rebuilt.
const version = 2

// Chunk sizes, in words, as the chunker cuts real lore sections.
const (
	MinWords = 150
	MaxWords = 400
)

// Packs is how many packs the corpus's files are spread over (pack00 …
// pack09): a one-pack filter admits a tenth of the chunks.
const Packs = 10

// unit is a paragraph (or, for a long one, a run of its sentences) of real
// text with the heading path it stood under.
type unit struct {
	Section []string `json:"s"`
	Text    string   `json:"t"`
	Words   int      `json:"w"`
}

// Corpus is the generated lore, in files of chunks.
type Corpus struct {
	Files [][]chunk.Chunk
	// Chunks and Words count the whole corpus; Terms is the number of
	// distinct lower-cased words in it.
	Chunks, Words, Terms int
	// Fingerprint names this corpus (version, seed, size and the source
	// text's hash): a cache built from it is valid while it is the same.
	Fingerprint string
}

// repoRoot is the repository's root, found from this file's path.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SharedTestdata is ../shared/testdata beside the repository, or the
// directory HEARTH_SHARED_TESTDATA names.
func SharedTestdata() string {
	if alt := os.Getenv("HEARTH_SHARED_TESTDATA"); alt != "" {
		return alt
	}
	return filepath.Join(repoRoot(), "..", "shared", "testdata")
}

// CacheDir is retrieve/retrievetest/testdata/cache, which git ignores:
// extracted PDF text and benchmark indexes are kept there between runs.
// It may be deleted at any time.
func CacheDir(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(repoRoot(), "retrieve", "retrievetest", "testdata", "cache")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatalf("benchmark cache: %v", err)
	}
	return dir
}

// Sources is the real text a corpus is recombined from.
type Sources struct {
	units []unit
	sum   string // sha256 of the units
}

// Build returns n chunks in files of perFile, recombined from the sources
// by a generator seeded with seed. It skips the test when the shared test
// data is missing.
func Build(tb testing.TB, n, perFile int, seed uint64) *Corpus {
	tb.Helper()
	return LoadSources(tb).Build(n, perFile, seed)
}

// Build returns n chunks in files of perFile, recombined by a generator
// seeded with seed.
func (s *Sources) Build(n, perFile int, seed uint64) *Corpus {
	units, sum := s.units, s.sum
	rng := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
	levels := []access.Level{access.Player, access.Player, access.Player, access.Player, access.Player,
		access.Player, access.Player, access.Trusted, access.Assistant, access.GM}
	types := []string{"npc", "location", "rules", "spell", "item", "faction", "history", "monster"}
	c := &Corpus{Chunks: n}
	terms := map[string]struct{}{}
	var words []string
	for f := 0; f*perFile < n; f++ {
		pack := fmt.Sprintf("pack%02d", f%Packs)
		file := fmt.Sprintf("lore/file%05d.md", f)
		var cs []chunk.Chunk
		for i := 0; i < perFile && f*perFile+i < n; i++ {
			// A run of paragraphs: mostly consecutive, as a section
			// reads, with a jump elsewhere one time in three.
			target := MinWords + rng.IntN(MaxWords-MinWords+1)
			u := rng.IntN(len(units))
			section := units[u].Section
			words = words[:0]
			for len(words) < target {
				words = append(words, strings.Fields(units[u].Text)...)
				if rng.IntN(3) == 0 {
					u = rng.IntN(len(units))
				} else {
					u = (u + 1) % len(units)
				}
			}
			words = words[:min(len(words), MaxWords)]
			text := strings.Join(words, " ")
			if (f*perFile+i)%10 == 0 { // counting every word would cost seconds
				for _, w := range strings.FieldsFunc(strings.ToLower(text), notWord) {
					terms[w] = struct{}{}
				}
			}
			c.Words += len(words)
			tags := []string{fmt.Sprintf("tag%02d", rng.IntN(50))}
			if rng.IntN(2) == 0 {
				tags = append(tags, fmt.Sprintf("tag%02d", rng.IntN(50)))
			}
			cs = append(cs, chunk.Chunk{
				ID: fmt.Sprintf("%s/%s#%d", pack, file, i), Pack: pack, File: file, Ordinal: i,
				Section:     slices.Clone(section),
				SourceType:  chunk.Prose,
				ContentType: types[rng.IntN(len(types))],
				EntityID:    fmt.Sprintf("%s:e%04d", pack, rng.IntN(2000)),
				Location:    fmt.Sprintf("loc%03d", rng.IntN(200)),
				Tags:        tags,
				Tier:        1 + rng.IntN(6),
				Access:      levels[rng.IntN(len(levels))],
				Text:        text,
				// cl100k's rate for this prose is about 1.3 tokens a word;
				// counting 30 million words exactly would dominate the
				// build.
				Tokens: len(words) * 4 / 3,
			})
		}
		c.Files = append(c.Files, cs)
	}
	c.Terms = len(terms)
	c.Fingerprint = fmt.Sprintf("v%d-seed%d-n%d-per%d-%s", version, seed, n, perFile, sum[:12])
	return c
}

func notWord(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }

// LoadSources reads the paragraphs of the SRD pack and the PDFs. PDF text
// is extracted once and cached. It skips the test when the shared test
// data is missing.
func LoadSources(tb testing.TB) *Sources {
	tb.Helper()
	ctx := context.Background()
	p, err := campaign.LoadPack(ctx, filepath.Join(repoRoot(), "packs", "srd51"))
	if err != nil {
		tb.Fatalf("load the SRD pack: %v", err)
	}
	tok, err := tokens.CL100K()
	if err != nil {
		tb.Fatal(err)
	}
	var units []unit
	for _, c := range p.Chunks(tok) {
		units = appendParagraphs(units, c.Section, c.Text)
	}
	pdfs, err := filepath.Glob(filepath.Join(SharedTestdata(), "pdf", "*.pdf"))
	if err != nil || len(pdfs) == 0 {
		tb.Skipf("no PDFs in %s (the shared test data beside the repository; or set HEARTH_SHARED_TESTDATA)", filepath.Join(SharedTestdata(), "pdf"))
	}
	slices.Sort(pdfs)
	for _, path := range pdfs {
		units = append(units, pdfUnits(tb, path)...)
	}
	h := sha256.New()
	for _, u := range units {
		fmt.Fprintf(h, "%q\x00%s\x00", u.Section, u.Text)
	}
	return &Sources{units, hex.EncodeToString(h.Sum(nil))}
}

// appendParagraphs adds text's paragraphs, splitting any over MaxWords/2
// into runs of sentences, so no single draw fills a chunk.
func appendParagraphs(units []unit, section []string, text string) []unit {
	for _, para := range strings.Split(text, "\n\n") {
		para = strings.Join(strings.Fields(para), " ")
		n := len(strings.Fields(para))
		if n < 3 {
			continue
		}
		if n <= MaxWords/2 {
			units = append(units, unit{section, para, n})
			continue
		}
		var run []string
		for _, s := range sentences(para) {
			run = append(run, s)
			if w := len(strings.Fields(strings.Join(run, " "))); w >= MaxWords/4 {
				units = append(units, unit{section, strings.Join(run, " "), w})
				run = nil
			}
		}
		if len(run) > 0 {
			t := strings.Join(run, " ")
			units = append(units, unit{section, t, len(strings.Fields(t))})
		}
	}
	return units
}

// sentences splits at ". ", "? " and "! ".
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '?' || s[i] == '!') && s[i+1] == ' ' {
			out = append(out, s[start:i+1])
			start = i + 2
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// pdfUnits returns a PDF's paragraphs, each under the title of the
// outline section its page is in, reading the cached extraction when
// there is one.
func pdfUnits(tb testing.TB, path string) []unit {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	sum := sha256.Sum256(data)
	cache := filepath.Join(CacheDir(tb), fmt.Sprintf("pdf-%s.json", hex.EncodeToString(sum[:8])))
	if b, err := os.ReadFile(cache); err == nil {
		var units []unit
		if json.Unmarshal(b, &units) == nil && len(units) > 0 {
			return units
		}
	}
	ctx := context.Background()
	ex, err := pdf.Open(ctx, pdf.Options{MaxImages: -1})
	if err != nil {
		tb.Fatalf("open the PDF extractor: %v", err)
	}
	defer ex.Close()
	doc, err := ex.Extract(ctx, data, nil)
	if err != nil {
		tb.Fatalf("extract %s: %v", path, err)
	}
	// The deepest outline section starting at or before each page.
	type mark struct {
		page int
		path []string
	}
	var marks []mark
	var walk func(ss []string, secs []*ingest.Section)
	walk = func(ss []string, secs []*ingest.Section) {
		for _, s := range secs {
			p := append(slices.Clone(ss), strings.TrimSpace(s.Title))
			if s.Page > 0 {
				marks = append(marks, mark{s.Page, p})
			}
			walk(p, s.Children)
		}
	}
	title := strings.TrimSpace(doc.Title)
	if title == "" {
		title = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	walk([]string{title}, doc.Outline)
	slices.SortStableFunc(marks, func(a, b mark) int { return a.page - b.page })
	var units []unit
	for _, pg := range doc.Pages {
		section := []string{title}
		for _, m := range marks {
			if m.page > pg.Number {
				break
			}
			section = m.path
		}
		// PDF text breaks lines inside paragraphs: a blank line or a line
		// ending a sentence ends one.
		var para []string
		var paras []string
		for _, line := range strings.Split(pg.Text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				if len(para) > 0 {
					paras = append(paras, strings.Join(para, " "))
					para = nil
				}
				continue
			}
			para = append(para, line)
			if strings.HasSuffix(line, ".") && len(strings.Fields(strings.Join(para, " "))) > 40 {
				paras = append(paras, strings.Join(para, " "))
				para = nil
			}
		}
		if len(para) > 0 {
			paras = append(paras, strings.Join(para, " "))
		}
		units = appendParagraphs(units, section, strings.Join(paras, "\n\n"))
	}
	if b, err := json.Marshal(units); err == nil {
		tmp := cache + ".tmp"
		if os.WriteFile(tmp, b, 0o644) == nil {
			os.Rename(tmp, cache)
		}
	}
	return units
}

// Query is a benchmark query.
type Query struct {
	Text string
	// Kind says how it was made: "question" (the SRD set's wording),
	// "heading" (the answering section's title), "phrase" (a sentence
	// from the answer: long, with common words) or "keywords" (the
	// question's content words only).
	Kind string
}

// Queries returns the SRD question set (../shared/testdata/srd51/
// queries.tsv) and three variants of each question, 160 in all, in a
// fixed order. It skips the test when the question set is missing.
func Queries(tb testing.TB) []Query {
	tb.Helper()
	path := filepath.Join(SharedTestdata(), "srd51", "queries.tsv")
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("the SRD question set is not here (%v); it lives in ../shared/testdata beside the repository (or set HEARTH_SHARED_TESTDATA)", err)
	}
	defer f.Close()
	var qs []Query
	sc := bufio.NewScanner(f)
	for first := true; sc.Scan(); first = false {
		cols := strings.Split(sc.Text(), "\t")
		if first || len(cols) != 5 {
			continue
		}
		qs = append(qs,
			Query{cols[1], "question"},
			Query{cols[3], "heading"},
			Query{cols[4], "phrase"},
			Query{strings.Join(retrieve.Terms(cols[1]), " "), "keywords"})
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("read %s: %v", path, err)
	}
	if len(qs) == 0 {
		tb.Fatalf("no questions in %s", path)
	}
	return qs
}
