package sqliteindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/retrieve"
)

// The benchmark fixture: benchChunks synthetic chunks in files of 20,
// indexed once per test process with the hashing embedder (dimension
// benchDim) into a temporary directory that TestMain removes.
const (
	benchChunks = 100_000
	benchDim    = 384
	benchVocab  = 3000
)

var fixture struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture.dir != "" {
		os.RemoveAll(fixture.dir)
	}
	os.Exit(code)
}

// benchIndex returns the 100,000-chunk fixture's database, building it on
// first use.
func benchIndex(b *testing.B) string {
	b.Helper()
	fixture.once.Do(func() {
		ctx := context.Background()

		if fixture.dir, fixture.err = os.MkdirTemp("", "hearth-lore-bench-"); fixture.err != nil {
			return
		}
		fixture.path = filepath.Join(fixture.dir, "lore.db")

		ix, err := Open(ctx, fixture.path, WithEmbedder(embedding.NewHashing(benchDim)))
		if err != nil {
			fixture.err = err
			return
		}
		defer ix.Close()
		start := time.Now()
		fixture.err = fill(ctx, ix, newCorpus(1, benchVocab).files(benchChunks, 20))
		fmt.Fprintf(os.Stderr, "built the %d-chunk fixture in %v\n", benchChunks, time.Since(start).Round(time.Second))
	})
	if fixture.err != nil {
		b.Fatal(fixture.err)
	}
	return fixture.path
}

// latencies records each iteration's time and reports p50 and p99.
type latencies []time.Duration

func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(l[len(l)/2]), "p50-ms")
	b.ReportMetric(ms(l[min(len(l)-1, len(l)*99/100)]), "p99-ms")
}

// BenchmarkSearch runs searches over 100,000 chunks as a player, with
// three-word queries drawn from the fixture's vocabulary, a limit of 10
// and a budget of 3,000 tokens.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	path := benchIndex(b)
	for _, bc := range []struct {
		name   string
		emb    bool
		filter retrieve.Filter
	}{
		{"fulltext", false, retrieve.Filter{}},
		{"hybrid", true, retrieve.Filter{}},
		{"hybrid-one-pack", true, retrieve.Filter{Packs: []string{"pack03"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var opts []Option
			if bc.emb {
				opts = append(opts, WithEmbedder(embedding.NewHashing(benchDim)))
			}
			ix, err := Open(ctx, path, opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			c := newCorpus(2, benchVocab)
			queries := make([]string, 1000)
			for i := range queries {
				queries[i] = c.queryText(3)
			}
			// Warm up: load the vectors and prepare the statements.
			if _, err := ix.Search(ctx, retrieve.Query{Text: queries[0], Filter: bc.filter}); err != nil {
				b.Fatal(err)
			}
			var lat latencies
			i := 0
			for b.Loop() {
				q := retrieve.Query{Text: queries[i%len(queries)], Filter: bc.filter, Role: access.Player, Limit: 10, Budget: 3000}
				i++
				start := time.Now()
				r, err := ix.Search(ctx, q)
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				if len(r.Passages) == 0 && bc.emb {
					b.Fatalf("query %q found nothing", q.Text)
				}
			}
			lat.report(b)
		})
	}
}

// BenchmarkVectorScan is the exact scan alone: one 384-dimension query
// against all 100,000 stored vectors, keeping the best 40.
func BenchmarkVectorScan(b *testing.B) {
	ctx := context.Background()
	ix, err := Open(ctx, benchIndex(b), WithEmbedder(embedding.NewHashing(benchDim)))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	vc, err := ix.vectors(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if vc.len() != benchChunks {
		b.Fatalf("%d vectors loaded, want %d", vc.len(), benchChunks)
	}
	c := newCorpus(3, benchVocab)
	var qs [][]float32
	for range 100 {
		v, err := ix.emb.Embed(ctx, []string{c.queryText(3)})
		if err != nil {
			b.Fatal(err)
		}
		qs = append(qs, v[0])
	}
	var lat latencies
	i := 0
	for b.Loop() {
		start := time.Now()
		hits := vc.scan(qs[i%len(qs)], int(access.GM), 40, nil)
		lat = append(lat, time.Since(start))
		i++
		if len(hits) == 0 {
			b.Fatal("no hits")
		}
	}
	lat.report(b)
	b.ReportMetric(float64(benchChunks)*float64(b.N)/b.Elapsed().Seconds(), "vectors/s")
}

// BenchmarkIndex measures indexing throughput: each iteration upserts
// 10,000 fresh chunks (500 files of 20) into an empty index, with and
// without the hashing embedder.
func BenchmarkIndex(b *testing.B) {
	ctx := context.Background()
	const n = 10_000
	files := newCorpus(4, benchVocab).files(n, 20)
	for _, bc := range []struct {
		name string
		emb  embedding.Embedder
	}{{"plain", nil}, {"hashing-384", embedding.NewHashing(benchDim)}} {
		b.Run(bc.name, func(b *testing.B) {
			var spent time.Duration
			chunks := 0
			for b.Loop() {
				var opts []Option
				if bc.emb != nil {
					opts = append(opts, WithEmbedder(bc.emb))
				}
				ix, err := Open(ctx, filepath.Join(b.TempDir(), "lore.db"), opts...)
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				if err := fill(ctx, ix, files); err != nil {
					b.Fatal(err)
				}
				spent += time.Since(start)
				chunks += n
				ix.Close()
			}
			b.ReportMetric(float64(chunks)/spent.Seconds(), "chunks/s")
		})
	}
}

// BenchmarkSearchAfterWrite is a hybrid search right after one file of
// the 100,000-chunk fixture is rewritten (20 chunks): the cost a live
// server pays when a document changes under it.
func BenchmarkSearchAfterWrite(b *testing.B) {
	ctx := context.Background()
	path := benchIndex(b)
	ix, err := Open(ctx, path, WithEmbedder(embedding.NewHashing(benchDim)))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	c := newCorpus(4, benchVocab)
	files := c.files(20*50, 20) // the fixture's first 50 files, new text
	q := retrieve.Query{Text: c.queryText(3), Role: access.Player, Limit: 10, Budget: 3000}
	if _, err := ix.Search(ctx, q); err != nil { // load the vectors
		b.Fatal(err)
	}
	var lat latencies
	i := 0
	for b.Loop() {
		f := files[i%len(files)]
		i++
		if err := ix.Upsert(ctx, f[0].Pack, f[0].File, fmt.Sprint("rewrite", i), f); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := ix.Search(ctx, q); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	lat.report(b)
}
