package retrievetest

import (
	"slices"
	"strings"
	"testing"
)

// TestBuild checks what the benchmarks rely on: the same seed gives the
// same corpus, chunk sizes stay in range, the vocabulary is a real one,
// and the files and packs are laid out as documented.
func TestBuild(t *testing.T) {
	src := LoadSources(t)
	a := src.Build(2000, 20, 1)
	b := src.Build(2000, 20, 1)
	other := src.Build(2000, 20, 2)
	if a.Fingerprint != b.Fingerprint || a.Fingerprint == other.Fingerprint {
		t.Errorf("fingerprints %q, %q (same seed), %q (another seed)", a.Fingerprint, b.Fingerprint, other.Fingerprint)
	}
	if len(a.Files) != 100 {
		t.Fatalf("%d files, want 100", len(a.Files))
	}
	n := 0
	packs := map[string]bool{}
	for i, f := range a.Files {
		for j, c := range f {
			n++
			packs[c.Pack] = true
			if w := len(strings.Fields(c.Text)); w < MinWords || w > MaxWords {
				t.Errorf("chunk %s has %d words, want %d–%d", c.ID, w, MinWords, MaxWords)
			}
			if len(c.Section) == 0 || c.Section[0] == "" {
				t.Errorf("chunk %s has no heading", c.ID)
			}
			if o := b.Files[i][j]; o.Text != c.Text || !slices.Equal(o.Section, c.Section) || o.Access != c.Access {
				t.Fatalf("chunk %s differs between two builds with one seed", c.ID)
			}
		}
	}
	if n != 2000 || len(packs) != Packs {
		t.Errorf("%d chunks in %d packs, want 2000 in %d", n, len(packs), Packs)
	}
	if a.Files[0][0].Text == other.Files[0][0].Text {
		t.Error("another seed gave the same first chunk")
	}
	// The SRD and the PDFs hold tens of thousands of distinct words; the
	// sample Terms counts sees thousands even in a small corpus.
	if a.Terms < 2000 {
		t.Errorf("%d distinct words sampled, want a real vocabulary (≥ 2,000)", a.Terms)
	}
	// Text from the PDFs is in: words the SRD never uses.
	all := strings.ToLower(joinTexts(src.Build(20000, 20, 1)))
	for _, w := range []string{"halberds", "opend6"} {
		if !strings.Contains(all, w) {
			t.Errorf("no %q in the corpus: the PDFs' text is missing", w)
		}
	}
}

func joinTexts(c *Corpus) string {
	var b strings.Builder
	for _, f := range c.Files {
		for _, ch := range f {
			b.WriteString(ch.Section[0])
			b.WriteByte(' ')
			b.WriteString(ch.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestQueries(t *testing.T) {
	qs := Queries(t)
	if len(qs) != 160 {
		t.Fatalf("%d queries, want 160 (40 questions × 4)", len(qs))
	}
	kinds := map[string]int{}
	for _, q := range qs {
		kinds[q.Kind]++
		if strings.TrimSpace(q.Text) == "" {
			t.Errorf("empty %s query", q.Kind)
		}
	}
	for _, k := range []string{"question", "heading", "phrase", "keywords"} {
		if kinds[k] != 40 {
			t.Errorf("%d %s queries, want 40", kinds[k], k)
		}
	}
}
