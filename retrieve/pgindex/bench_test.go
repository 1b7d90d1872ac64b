package pgindex_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/cputime"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
	"github.com/hearth-rpg/hearth/retrieve/retrievetest"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
)

// benchSQLite is retrievetest's 100,000-chunk corpus in SQLite, the file
// sqliteindex's own benchmarks build and cache.
func benchSQLite(b *testing.B, c *retrievetest.Corpus) string {
	return retrievetest.Cached(b, "sqlite-"+c.Fingerprint+"-hashing384.db", func(path string) error {
		ctx := context.Background()
		ix, err := sqliteindex.Open(ctx, path, sqliteindex.WithEmbedder(embedding.NewHashing(retrievetest.BenchDim)))
		if err != nil {
			return err
		}
		if err := retrievetest.Fill(ctx, ix, c.Files); err != nil {
			ix.Close()
			return err
		}
		return ix.Close()
	})
}

// benchPostgres returns a URL whose search_path is a schema holding the
// corpus, with hashing vectors and pgvector's HNSW index. The schema is
// named by the corpus's fingerprint and kept between runs (building it
// takes minutes): a run finding it complete reuses it. It skips without
// HEARTH_TEST_POSTGRES_URL.
func benchPostgres(b *testing.B, c *retrievetest.Corpus) string {
	base := pgtest.Skip(b)
	ctx := context.Background()
	sum := sha256.Sum256([]byte(c.Fingerprint))
	schema := "bench_lore_" + hex.EncodeToString(sum[:6])
	u, err := url.Parse(base)
	if err != nil {
		b.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var done bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, schema+".bench_done").Scan(&done); err != nil {
		b.Fatal(err)
	}
	if done {
		return u.String()
	}
	start := time.Now()
	if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+schema+` CASCADE; CREATE SCHEMA `+schema); err != nil {
		b.Fatal(err)
	}
	// Vectors first, with no HNSW index (WithoutPGVector), then the index
	// built over all of them at once: inserting 100,000 rows into a live
	// HNSW index takes far longer.
	ix, err := pgindex.Open(ctx, u.String(), pgindex.WithEmbedder(embedding.NewHashing(retrievetest.BenchDim)), pgindex.WithoutPGVector(), pgindex.WithoutMemVectors())
	if err != nil {
		b.Fatal(err)
	}
	if err := retrievetest.Fill(ctx, ix, c.Files); err != nil {
		ix.Close()
		b.Fatal(err)
	}
	ix.Close()
	ix, err = pgindex.Open(ctx, u.String(), pgindex.WithEmbedder(embedding.NewHashing(retrievetest.BenchDim)), pgindex.WithoutMemVectors())
	if err != nil {
		b.Fatal(err)
	}
	ix.Close()
	if _, err := conn.Exec(ctx, `ANALYZE `+schema+`.lore_chunks; ANALYZE `+schema+`.lore_vectors; CREATE TABLE `+schema+`.bench_done ()`); err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "built PostgreSQL schema %s in %v\n", schema, time.Since(start).Round(time.Second))
	return u.String()
}

// BenchmarkSearch100k runs the same searches on both backends in one run:
// retrievetest's 160 queries (SRD questions, headings, answer sentences,
// content words) over its 100,000 chunks of real SRD and PDF text, as a
// player, limit 10, budget about 3,000 tokens, every search ranked (no
// result cache), p50 and p99 per search. Full text alone; hybrid (full
// text and the hashing embedder's vectors, fused); hybrid filtered to one
// pack of ten. Both backends search vectors in memory (retrieve/memvec,
// default candidates); PostgreSQL's database searches, used until its
// in-memory vectors are loaded, are BenchmarkVectorSearch100k's.
// PostgreSQL is skipped without HEARTH_TEST_POSTGRES_URL.
func BenchmarkSearch100k(b *testing.B) {
	ctx := context.Background()
	c := retrievetest.Build(b, retrievetest.BenchChunks, retrievetest.BenchPerFile, retrievetest.BenchSeed)
	qs := retrievetest.Queries(b)
	hashing := embedding.NewHashing(retrievetest.BenchDim)
	onePack := retrieve.Filter{Packs: []string{"pack03"}}
	type variant struct {
		name   string
		open   func(b *testing.B) retrieve.Index
		filter retrieve.Filter
	}
	sq := func(opts ...sqliteindex.Option) func(b *testing.B) retrieve.Index {
		return func(b *testing.B) retrieve.Index {
			ix, err := sqliteindex.Open(ctx, benchSQLite(b, c), opts...)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { ix.Close() })
			// Rank with the in-memory full text, as a server does once built.
			if err := ix.WaitFullText(ctx); err != nil {
				b.Fatal(err)
			}
			return ix
		}
	}
	pg := func(opts ...pgindex.Option) func(b *testing.B) retrieve.Index {
		return func(b *testing.B) retrieve.Index {
			ix, err := pgindex.Open(ctx, benchPostgres(b, c), opts...)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { ix.Close() })
			if err := ix.WaitFullText(ctx); err != nil {
				b.Fatal(err)
			}
			// Search vectors in memory, as a server does once loaded.
			if ix.Mode() != pgindex.VectorsOff {
				if err := ix.WaitVectors(ctx); err != nil {
					b.Fatal(err)
				}
			}
			return ix
		}
	}
	for _, v := range []variant{
		{"sqlite/fulltext", sq(), retrieve.Filter{}},
		{"sqlite/hybrid", sq(sqliteindex.WithEmbedder(hashing)), retrieve.Filter{}},
		{"sqlite/hybrid-one-pack", sq(sqliteindex.WithEmbedder(hashing)), onePack},
		{"postgres/fulltext", pg(), retrieve.Filter{}},
		{"postgres/hybrid", pg(pgindex.WithEmbedder(hashing)), retrieve.Filter{}},
		{"postgres/hybrid-one-pack", pg(pgindex.WithEmbedder(hashing)), onePack},
	} {
		b.Run(v.name, func(b *testing.B) {
			retrievetest.BenchSearch(b, v.open(b), qs, v.filter)
		})
	}
}

// BenchmarkVectorSearch100k is PostgreSQL's vector search alone over the
// 100,000 hashing vectors (384 dimensions), as the GM, 40 nearest:
// pgvector's HNSW index at several hnsw.ef_search widths, and the exact
// nearest by pgvector's distance with the index turned off (a sequential
// scan in C), and the in-memory search (retrieve/memvec: default
// candidates, and exact), p50 and p99 per search (wall and CPU), and each width's recall@10 against
// the exact scan over every 8th query. (The exact scan in SQL without
// pgvector takes about 30 s a search here; SQLite's exact scan alone is
// sqliteindex's BenchmarkVectorScan.)
func BenchmarkVectorSearch100k(b *testing.B) {
	ctx := context.Background()
	c := retrievetest.Build(b, retrievetest.BenchChunks, retrievetest.BenchPerFile, retrievetest.BenchSeed)
	qs := retrievetest.Queries(b)
	u := benchPostgres(b, c)
	hashing := embedding.NewHashing(retrievetest.BenchDim)
	open := func(ef int, opts ...pgindex.Option) *pgindex.Index {
		ix, err := pgindex.Open(ctx, u, append([]pgindex.Option{pgindex.WithEmbedder(hashing), pgindex.WithEfSearch(ef)}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ix.Close() })
		if ix.Mode() != pgindex.VectorsHNSW && ix.Mode() != pgindex.VectorsPGExact {
			b.Skipf("pgvector is not installed on the server: %s", ix.VectorSearch())
		}
		// Its full text, built in the background from Open, must not run
		// beside the searches timed.
		if err := ix.WaitFullText(ctx); err != nil {
			b.Fatal(err)
		}
		return ix
	}
	ref := open(0, pgindex.WithoutMemVectors())
	exact := map[string][]int64{}
	want := func(text string) []int64 {
		if w, ok := exact[text]; ok {
			return w
		}
		w, err := ref.ExactHits(ctx, text, 40)
		if err != nil {
			b.Fatal(err)
		}
		exact[text] = w
		return w
	}
	type variant struct {
		name   string
		search func(text string) ([]int64, error)
	}
	vs := []variant{{"exact", func(text string) ([]int64, error) { return ref.ExactHits(ctx, text, 40) }}}
	for _, c := range []int{pgindex.DefaultVectorCandidates, 0} {
		start := time.Now()
		ix, err := pgindex.Open(ctx, u, pgindex.WithEmbedder(hashing), pgindex.WithVectorCandidates(c))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ix.Close() })
		if err := ix.WaitVectors(ctx); err != nil {
			b.Fatal(err)
		}
		b.Logf("in-memory vectors ready %v after Open began (the full text building beside them)", time.Since(start).Round(time.Millisecond))
		if err := ix.WaitFullText(ctx); err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("memory-C%d", c)
		if c == 0 {
			name = "memory-exact"
		}
		vs = append(vs, variant{name, func(text string) ([]int64, error) {
			rows, _, ok, err := ix.MemVectorHits(ctx, text, 40)
			if err == nil && !ok {
				err = fmt.Errorf("the in-memory vectors do not serve")
			}
			return rows, err
		}})
	}
	for _, ef := range []int{40, 100, 200, 400, 1000} {
		ix := open(ef)
		vs = append(vs, variant{fmt.Sprintf("hnsw-ef%d", ef), func(text string) ([]int64, error) { return ix.VectorHits(ctx, text, 40) }})
	}
	for _, v := range vs {
		b.Run(v.name, func(b *testing.B) {
			var lat, cpu retrievetest.Latencies
			i := 0
			for b.Loop() {
				start, startCPU := time.Now(), cputime.Process()
				hits, err := v.search(qs[i%len(qs)].Text)
				lat = append(lat, time.Since(start))
				cpu = append(cpu, cputime.Process()-startCPU)
				if err != nil {
					b.Fatal(err)
				}
				if len(hits) == 0 {
					b.Fatalf("no vector hits for %q", qs[i%len(qs)].Text)
				}
				i++
			}
			lat.Report(b)
			cpu.ReportCPU(b)
			found, total := 0, 0
			for j := 0; j < len(qs); j += 8 {
				got, err := v.search(qs[j].Text)
				if err != nil {
					b.Fatal(err)
				}
				in := map[int64]bool{}
				for _, n := range got[:min(10, len(got))] {
					in[n] = true
				}
				w := want(qs[j].Text)
				for _, n := range w[:min(10, len(w))] {
					total++
					if in[n] {
						found++
					}
				}
			}
			b.ReportMetric(float64(found)/float64(max(total, 1)), "recall@10")
		})
	}
}

// BenchmarkFullTextBound100k is the full-text ranking alone over the
// 100,000 chunks as the GM, 40 deep, ranking a bounded candidate set
// (the default) and every match (exact; seconds a search: give it a small
// -benchtime), p50 and p99 per search, and the bounded ranking's top 10
// against the exact one's over every 8th query.
func BenchmarkFullTextBound100k(b *testing.B) {
	ctx := context.Background()
	c := retrievetest.Build(b, retrievetest.BenchChunks, retrievetest.BenchPerFile, retrievetest.BenchSeed)
	qs := retrievetest.Queries(b)
	ix, err := pgindex.Open(ctx, benchPostgres(b, c))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	for _, v := range []struct {
		name  string
		bound int64
	}{{"bounded", pgindex.RankRows}, {"bounded-1000", 1000}, {"exact", math.MaxInt64}} {
		b.Run(v.name, func(b *testing.B) {
			var lat retrievetest.Latencies
			i := 0
			for b.Loop() {
				start := time.Now()
				_, err := ix.FullTextHits(ctx, qs[i%len(qs)].Text, 40, v.bound)
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				i++
			}
			lat.Report(b)
			if v.bound == math.MaxInt64 {
				return
			}
			found, total := 0, 0
			for j := 0; j < len(qs); j += 8 {
				got, err := ix.FullTextHits(ctx, qs[j].Text, 40, v.bound)
				if err != nil {
					b.Fatal(err)
				}
				want, err := ix.FullTextHits(ctx, qs[j].Text, 40, math.MaxInt64)
				if err != nil {
					b.Fatal(err)
				}
				in := map[int64]bool{}
				for _, n := range got[:min(10, len(got))] {
					in[n] = true
				}
				for _, n := range want[:min(10, len(want))] {
					total++
					if in[n] {
						found++
					}
				}
			}
			b.ReportMetric(float64(found)/float64(max(total, 1)), "agree@10")
		})
	}
}
