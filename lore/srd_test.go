package lore_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
	"github.com/hearth-rpg/hearth/tokens"
)

// question is one row of the SRD retrieval evaluation set.
type question struct {
	id, text, file, heading, phrase string
}

const queriesPath = "../../shared/testdata/srd51/queries.tsv"

func loadQuestions(t testing.TB) []question {
	t.Helper()
	f, err := os.Open(queriesPath)
	if err != nil {
		t.Skipf("the SRD question set is not here (%v); it lives in ../shared/testdata beside the repository", err)
	}
	defer f.Close()
	var qs []question
	sc := bufio.NewScanner(f)
	for first := true; sc.Scan(); first = false {
		cols := strings.Split(sc.Text(), "\t")
		if first || len(cols) != 5 {
			continue
		}
		qs = append(qs, question{cols[0], cols[1], cols[2], cols[3], cols[4]})
	}
	if len(qs) != 40 {
		t.Fatalf("read %d questions from %s, want 40", len(qs), queriesPath)
	}
	return qs
}

// srdIndex indexes the bundled SRD pack into a fresh index.
func srdIndex(t testing.TB, e embedding.Embedder) *sqliteindex.Index {
	t.Helper()
	ctx := context.Background()
	p, err := campaign.LoadPack(ctx, "../packs/srd51")
	if err != nil {
		t.Fatal(err)
	}
	var opts []sqliteindex.Option
	if e != nil {
		opts = append(opts, sqliteindex.WithEmbedder(e))
	}
	ix, err := sqliteindex.Open(ctx, filepath.Join(t.TempDir(), "srd.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	tok, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lore.IndexPack(ctx, ix, p, tok, nil); err != nil {
		t.Fatal(err)
	}
	// Rank with the in-memory full text, as a server does once it is built.
	if err := ix.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
	return ix
}

// answers reports whether a passage is the question's answering section:
// the right file, and the gold heading's own section (or the gold phrase).
func (q question) answers(c chunk.Chunk) bool {
	if c.File != q.file {
		return false
	}
	if n := len(c.Section); n > 0 && c.Section[n-1] == q.heading {
		return true
	}
	norm := func(s string) string {
		s = strings.NewReplacer("*", "", "_", "", "\u00a0", " ", "\u00ad", "").Replace(s)
		return strings.Join(strings.Fields(s), " ")
	}
	return strings.Contains(norm(c.Text), norm(q.phrase))
}

// evaluate runs every question and returns recall@5 and MRR (over the
// first ten results).
func evaluate(t testing.TB, ix retrieve.Index, qs []question, verbose bool) (recall5, mrr float64) {
	t.Helper()
	for _, q := range qs {
		res, err := ix.Search(context.Background(), retrieve.Query{Text: q.text, Role: access.Player, Limit: 10,
			Filter: retrieve.Filter{Packs: []string{"srd51"}}})
		if err != nil {
			t.Fatal(err)
		}
		rank := 0
		for i, p := range res.Passages {
			if q.answers(p.Chunk) {
				rank = i + 1
				break
			}
		}
		if rank > 0 && rank <= 5 {
			recall5++
		}
		if rank > 0 {
			mrr += 1 / float64(rank)
		}
		if verbose && (rank == 0 || rank > 5) {
			top := ""
			if len(res.Passages) > 0 {
				top = res.Passages[0].Chunk.File + " › " + res.Passages[0].Chunk.Heading()
			}
			t.Logf("miss %s %q (want %s › %s; rank %d; top %s)", q.id, q.text, q.file, q.heading, rank, top)
		}
	}
	n := float64(len(qs))
	return recall5 / n, mrr / n
}

// TestSRDRetrieval is the retrieval evaluation of the bundled SRD pack:
// 40 questions, half of them paraphrased, answered from full text alone
// and with the offline hashing embedder.
//
// The floors guard against regressions at today's figures (recall@5 0.575,
// MRR 0.481 full text; 0.525 with hashing); the goal is 0.7. The misses
// are paraphrased questions that share no content word with their answer
// ("tumble off a cliff" for Falling, "haul loot" for Lifting and
// Carrying): BENCHMARKS.md lists the lexical methods tried (field
// weights, chunk merging, WordNet expansion, fusion), none above 0.625. A
// semantic embedder (the embedder role) is what bridges them. Nothing here
// is tuned to the questions.
func TestSRDRetrieval(t *testing.T) {
	qs := loadQuestions(t)
	for _, tc := range []struct {
		name  string
		embed embedding.Embedder
		floor float64
	}{
		{"fulltext", nil, 0.55},
		{"fulltext+hashing-384", embedding.NewHashing(384), 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r5, mrr := evaluate(t, srdIndex(t, tc.embed), qs, testing.Verbose())
			t.Logf("%s: recall@5 %.3f, MRR %.3f over %d questions", tc.name, r5, mrr, len(qs))
			if r5 < tc.floor {
				t.Errorf("recall@5 %.3f is below %.2f", r5, tc.floor)
			}
		})
	}
}

func BenchmarkSRDRetrieval(b *testing.B) {
	qs := loadQuestions(b)
	ix := srdIndex(b, nil)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		q := qs[i%len(qs)]
		if _, err := ix.Search(ctx, retrieve.Query{Text: q.text, Role: access.Player, Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSRDQuestionPhrasing checks that the words a question is phrased with
// do not outrank what it asks about: "work" in "how does grappling work"
// once put "Second-Story Work" first.
func TestSRDQuestionPhrasing(t *testing.T) {
	if _, err := os.Stat(queriesPath); err != nil {
		t.Skipf("the SRD is not here (%v)", err)
	}
	ix := srdIndex(t, nil)
	tests := []struct{ query, want string }{
		{"how does grappling work", "Grappl"},
		{"what happens when a creature is prone", "Prone"},
		{"is there a way to see invisible creatures", "Invisib"},
	}
	for _, tt := range tests {
		res, err := ix.Search(context.Background(), retrieve.Query{Text: tt.query, Role: access.Player, Limit: 3,
			Filter: retrieve.Filter{Packs: []string{"srd51"}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range res.Passages {
			got = append(got, p.Chunk.Heading())
		}
		if len(got) == 0 || !strings.Contains(got[0], tt.want) {
			t.Errorf("%q: top passages %q; want the first about %q", tt.query, got, tt.want)
		}
	}
}
