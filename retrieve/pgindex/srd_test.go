package pgindex_test

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
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
	"github.com/hearth-rpg/hearth/retrieve/retrievetest"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
	"github.com/hearth-rpg/hearth/tokens"
)

// The SRD question set and method of lore/srd_test.go (TestSRDRetrieval):
// 40 questions over the bundled SRD pack, each answered by one section;
// recall@5 and MRR over the first ten results, full text alone.

// srdQueries is the question set, beside the repository;
// HEARTH_SHARED_TESTDATA names another place for ../shared/testdata.
func srdQueries() string {
	if alt := os.Getenv("HEARTH_SHARED_TESTDATA"); alt != "" {
		return filepath.Join(alt, "srd51", "queries.tsv")
	}
	return "../../../shared/testdata/srd51/queries.tsv"
}

type question struct {
	id, text, file, heading, phrase string
}

func loadQuestions(t testing.TB) []question {
	t.Helper()
	path := srdQueries()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("the SRD question set is not here (%v); it lives in ../shared/testdata beside the repository (or set HEARTH_SHARED_TESTDATA)", err)
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
		t.Fatalf("read %d questions from %s, want 40", len(qs), path)
	}
	return qs
}

// answers reports whether a passage is the question's answering section,
// as lore's test decides it.
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

func indexSRD(t testing.TB, ix retrieve.Index) {
	t.Helper()
	ctx := context.Background()
	p, err := campaign.LoadPack(ctx, "../../packs/srd51")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lore.IndexPack(ctx, ix, p, tok, nil); err != nil {
		t.Fatal(err)
	}
}

// evaluate returns recall@5 and MRR over the first ten results.
func evaluate(t testing.TB, ix retrieve.Index, qs []question) (recall5, mrr float64) {
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
		if testing.Verbose() && (rank == 0 || rank > 5) {
			t.Logf("miss %s %q (rank %d)", q.id, q.text, rank)
		}
	}
	n := float64(len(qs))
	return recall5 / n, mrr / n
}

// TestSRDRecall measures both backends on the SRD question set in one
// run: PostgreSQL's in-memory BM25 must score as SQLite's does, and its
// fallback ranking (IDF × ts_rank) must not be worse than SQLite's BM25
// by more than 0.05 in recall@5 or MRR.
func TestSRDRecall(t *testing.T) {
	qs := loadQuestions(t)
	pg := open(t)
	sq, err := sqliteindex.Open(context.Background(), filepath.Join(t.TempDir(), "srd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close() })
	indexSRD(t, sq)
	pg.SetMemFullText(false)
	indexSRD(t, pg)
	ctx := context.Background()
	if err := sq.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
	r5s, mrrs := evaluate(t, sq, qs)
	r5p, mrrp := evaluate(t, pg, qs)
	pg.SetMemFullText(true)
	if err := pg.WaitFullText(ctx); err != nil {
		t.Fatal(err)
	}
	r5m, mrrm := evaluate(t, pg, qs)
	t.Logf("SQLite (BM25, in memory):          recall@5 %.3f, MRR %.3f over %d questions", r5s, mrrs, len(qs))
	t.Logf("PostgreSQL (BM25, in memory):      recall@5 %.3f, MRR %.3f", r5m, mrrm)
	t.Logf("PostgreSQL fallback (IDF × ts_rank): recall@5 %.3f, MRR %.3f", r5p, mrrp)
	// The same BM25 over the same chunks: the same figures.
	if r5m != r5s || mrrm != mrrs {
		t.Errorf("PostgreSQL's in-memory BM25 gives recall@5 %.3f, MRR %.3f; SQLite's %.3f, %.3f", r5m, mrrm, r5s, mrrs)
	}
	const slack = 0.05
	if r5p < r5s-slack {
		t.Errorf("PostgreSQL recall@5 %.3f is more than %.2f below SQLite's %.3f", r5p, slack, r5s)
	}
	if mrrp < mrrs-slack {
		t.Errorf("PostgreSQL MRR %.3f is more than %.2f below SQLite's %.3f", mrrp, slack, mrrs)
	}
}

// BenchmarkSRDSearch times one SRD question on each backend, as
// lore's BenchmarkSRDRetrieval does on SQLite.
func BenchmarkSRDSearch(b *testing.B) {
	qs := loadQuestions(b)
	sq, err := sqliteindex.Open(context.Background(), filepath.Join(b.TempDir(), "srd.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sq.Close() })
	indexSRD(b, sq)
	pg := open(b)
	indexSRD(b, pg)
	for _, bc := range []struct {
		name string
		ix   retrieve.Index
	}{{"sqlite", sq}, {"postgres", pg}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				q := qs[i%len(qs)]
				if _, err := bc.ix.Search(ctx, retrieve.Query{Text: q.text, Role: access.Player, Limit: 10}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSRDFallback times PostgreSQL's own rankings, the in-memory
// ones off: the SRD questions as a player through Search, by the
// tsvector full text alone and hybrid with hashing vectors by pgvector's
// exact scan, wall and process CPU p50 / p99 (retrievetest.BenchSearch).
func BenchmarkSRDFallback(b *testing.B) {
	var qs []retrievetest.Query
	for _, q := range loadQuestions(b) {
		qs = append(qs, retrievetest.Query{Text: q.text, Kind: "question"})
	}
	for _, bc := range []struct {
		name string
		opts []pgindex.Option
	}{
		{"fulltext", nil},
		{"hybrid", []pgindex.Option{pgindex.WithEmbedder(embedding.NewHashing(384)), pgindex.WithoutMemVectors()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ix := open(b, bc.opts...)
			indexSRD(b, ix)
			ix.SetMemFullText(false)
			retrievetest.BenchSearch(b, ix, qs, retrieve.Filter{})
		})
	}
}
