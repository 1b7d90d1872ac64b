package sqliteindex

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/cputime"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/retrievetest"
)

// The benchmark fixture: retrievetest's 100,000 chunks of real SRD and
// PDF text, indexed with the hashing embedder (dimension benchDim) once
// and kept in retrievetest's cache directory between runs.
const (
	benchChunks = retrievetest.BenchChunks
	benchDim    = retrievetest.BenchDim
)

var fixture struct {
	once sync.Once
	path string
	fp   string
}

func TestMain(m *testing.M) {
	if path := os.Getenv(sqlWriterEnv); path != "" {
		os.Exit(runSQLWriter(path, os.Getenv(sqlWriterEnv+"_STMTS")))
	}
	os.Exit(m.Run())
}

// benchIndex returns the 100,000-chunk fixture's database, building it on
// first use. Benchmarks must not write to it (see copyIndex).
func benchIndex(b *testing.B) string {
	b.Helper()
	fixture.once.Do(func() {
		c := retrievetest.Build(b, benchChunks, retrievetest.BenchPerFile, retrievetest.BenchSeed)
		fixture.fp = c.Fingerprint
		fixture.path = retrievetest.Cached(b, "sqlite-"+c.Fingerprint+"-hashing384.db", func(path string) error {
			ctx := context.Background()
			ix, err := Open(ctx, path, WithEmbedder(embedding.NewHashing(benchDim)))
			if err != nil {
				return err
			}
			if err := retrievetest.Fill(ctx, ix, c.Files); err != nil {
				ix.Close()
				return err
			}
			return ix.Close()
		})
	})
	if fixture.path == "" {
		b.Fatal("the benchmark fixture failed to build")
	}
	return fixture.path
}

// copyIndex copies the fixture for a benchmark that writes.
func copyIndex(b *testing.B) string {
	src := benchIndex(b)
	dst := filepath.Join(b.TempDir(), "lore.db")
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	return dst
}

// BenchmarkSearch runs retrievetest's 160 queries (the SRD questions, the
// answering sections' headings, answer sentences and the questions'
// content words) over 100,000 chunks of real text as a player, with a
// limit of 10 and a budget of 3,000 tokens, reporting p50 and p99 per
// search. The result cache is defeated (every search has its own
// budget), so every search is ranked. pgindex's BenchmarkSearch100k runs
// the same searches on both backends.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	path := benchIndex(b)
	qs := retrievetest.Queries(b)
	for _, bc := range []struct {
		name   string
		emb    bool
		filter retrieve.Filter
	}{
		{"fulltext", false, retrieve.Filter{}},
		{"fulltext-one-pack", false, retrieve.Filter{Packs: []string{"pack03"}}},
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
			// A server builds the in-memory full text once, in the
			// background, when it opens the index; wait for it here.
			if err := ix.waitMem(ctx); err != nil {
				b.Fatal(err)
			}
			reportMem(b, ix)
			retrievetest.BenchSearch(b, ix, qs, bc.filter)
		})
	}
}

// reportMem adds the in-memory full text's size and build time.
func reportMem(b *testing.B, ix *Index) {
	ix.mem.mu.Lock()
	st := ix.mem.stats
	ix.mem.mu.Unlock()
	b.ReportMetric(float64(st.Bytes)/(1<<20), "memtext-MiB")
	b.ReportMetric(float64(st.Bytes)/float64(max(st.Postings, 1)), "memtext-B/posting")
	b.ReportMetric(st.Build.Seconds(), "memtext-build-s")
	b.Logf("in-memory full text: %d rows, %d tokens, %d postings, %.1f MiB, built in %v",
		st.Docs, st.Terms, st.Postings, float64(st.Bytes)/(1<<20), st.Build.Round(time.Millisecond))
}

// BenchmarkVectorScan is the exact scan alone: one 384-dimension query
// (a retrievetest query, hashing-embedded) against all 100,000 stored
// vectors, as the GM, keeping the best 40; p50 and p99 per scan.
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
	if vc.Len() != benchChunks {
		b.Fatalf("%d vectors loaded, want %d", vc.Len(), benchChunks)
	}
	var qs [][]float32
	for _, q := range retrievetest.Queries(b) {
		v, err := ix.emb.Embed(ctx, []string{q.Text})
		if err != nil {
			b.Fatal(err)
		}
		qs = append(qs, v[0])
	}
	var lat, cpu retrievetest.Latencies
	i := 0
	for b.Loop() {
		start, startCPU := time.Now(), cputime.Process()
		hits := vc.Scan(qs[i%len(qs)], int(access.GM), 40, nil)
		lat = append(lat, time.Since(start))
		cpu = append(cpu, cputime.Process()-startCPU)
		i++
		if len(hits) == 0 {
			b.Fatal("no hits")
		}
	}
	lat.Report(b)
	cpu.ReportCPU(b)
	b.ReportMetric(float64(benchChunks)*float64(b.N)/b.Elapsed().Seconds(), "vectors/s")
}

// BenchmarkIndex measures indexing throughput: each iteration upserts
// 10,000 fresh chunks of real text (500 files of 20, 150–400 words each)
// into an empty index, with and without the hashing embedder.
func BenchmarkIndex(b *testing.B) {
	ctx := context.Background()
	const n = 10_000
	files := retrievetest.Build(b, n, 20, 4).Files
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
// server pays when a document changes under it. It writes to a copy.
func BenchmarkSearchAfterWrite(b *testing.B) {
	ctx := context.Background()
	ix, err := Open(ctx, copyIndex(b), WithEmbedder(embedding.NewHashing(benchDim)))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	files := retrievetest.Build(b, 20*50, 20, 5).Files // the fixture's first 50 files, new text
	q := retrieve.Query{Text: retrievetest.Queries(b)[0].Text, Role: access.Player, Limit: 10, Budget: 3000}
	if _, err := ix.Search(ctx, q); err != nil { // load the vectors
		b.Fatal(err)
	}
	var lat retrievetest.Latencies
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
	lat.Report(b)
}

// BenchmarkFullTextCommonWords ranks the full text of retrievetest's 160
// queries over the 100,000 chunks both ways in one run: every match
// scored (every-match, how full text ranked before rareFirst) and
// rareFirst with the fallback to it (rare-first, today's fullText without
// a filter), reporting process CPU per search and the share rareFirst
// answered. Term counts are read once, untimed, before rare-first.
func BenchmarkFullTextCommonWords(b *testing.B) {
	ctx := context.Background()
	ix, err := Open(ctx, benchIndex(b))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	qs := retrievetest.Queries(b)
	role := int(access.Player)
	cond, args := where(retrieve.Filter{})
	every := func(text string) ([]hit, error) {
		return ix.hits(ctx, `SELECT lore_fts.rowid, -lore_fts.rank FROM lore_fts JOIN lore_chunks c ON c.n = lore_fts.rowid
			WHERE lore_fts MATCH ? AND c.access <= ?`+cond+` ORDER BY lore_fts.rank LIMIT ?`, append(append([]any{matchQuery(text), role}, args...), 40)...)
	}
	gen, err := ix.generation(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"every-match", "rare-first"} {
		b.Run(mode, func(b *testing.B) {
			if mode == "rare-first" {
				for _, q := range qs {
					if _, _, err := ix.termStats(ctx, gen, retrieve.Terms(q.Text)); err != nil {
						b.Fatal(err)
					}
				}
			}
			var cpu retrievetest.Latencies
			answered, i := 0, 0
			for b.Loop() {
				text := qs[i%len(qs)].Text
				i++
				start := cputime.Process()
				hits, ok, err := []hit(nil), false, error(nil)
				if mode == "rare-first" {
					hits, ok, err = ix.rareFirst(ctx, gen, retrieve.Terms(text), role, cond, args, 40, rareRows)
				}
				if err == nil && !ok {
					hits, err = every(text)
				}
				cpu = append(cpu, cputime.Process()-start)
				if err != nil {
					b.Fatal(err)
				}
				if len(hits) == 0 {
					b.Fatalf("%q found nothing", text)
				}
				if ok {
					answered++
				}
			}
			cpu.ReportCPU(b)
			b.ReportMetric(float64(answered)/float64(i), "rare-first-share")
		})
	}
}

// BenchmarkMemBuild builds the in-memory full text of the 100,000-chunk
// fixture from its rows: what a process pays once when it opens the
// index, and again after each change to it (memtext.go).
func BenchmarkMemBuild(b *testing.B) {
	ctx := context.Background()
	ix, err := Open(ctx, benchIndex(b))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	var lat, cpu retrievetest.Latencies
	for b.Loop() {
		start, startCPU := time.Now(), cputime.Process()
		snap, _, err := ix.readMem(ctx)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		cpu = append(cpu, cputime.Process()-startCPU)
		b.ReportMetric(float64(snap.bytes())/float64(snap.ix.Postings()), "B/posting")
	}
	lat.Report(b)
	cpu.ReportCPU(b)
}

// BenchmarkWriteToMemText100k measures, on a copy of the 100,000-chunk
// fixture, a one-chunk file's write until a search finds its new word in
// the in-memory full text: wall and this process's CPU per write, the
// write itself not timed. catchup=true is today's catch-up from
// lore_chunk_log; catchup=false builds the whole index again after every
// write, as before it (FTS5 serving meanwhile).
func BenchmarkWriteToMemText100k(b *testing.B) {
	for _, catchUp := range []bool{true, false} {
		b.Run(fmt.Sprintf("catchup=%v", catchUp), func(b *testing.B) {
			ctx := context.Background()
			ix, err := Open(ctx, copyIndex(b))
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			// Opening the copy may have migrated it: checkpoint, so that
			// the writes measured read the file, not a long write-ahead log.
			if _, err := ix.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				b.Fatal(err)
			}
			if err := ix.WaitFullText(ctx); err != nil {
				b.Fatal(err)
			}
			ix.mem.mu.Lock()
			ix.mem.fullOnly = !catchUp
			ix.mem.mu.Unlock()
			var lat, cpu retrievetest.Latencies
			i := 0
			for b.Loop() {
				i++
				word := fmt.Sprintf("zyzzogeton%c%c", 'a'+i%26, 'a'+i/26%26)
				c := chunk.Chunk{ID: fmt.Sprintf("bench/new%d.md#0", i), Pack: "bench", File: fmt.Sprintf("new%d.md", i),
					Section: []string{"Benchmark"}, SourceType: chunk.Prose, Text: "The keeper of the lighthouse says " + word + ".",
					Tokens: 10}
				if err := ix.Upsert(ctx, c.Pack, c.File, "h", []chunk.Chunk{c}); err != nil {
					b.Fatal(err)
				}
				start, startCPU := time.Now(), cputime.Process()
				for {
					gen, err := ix.generation(ctx)
					if err != nil {
						b.Fatal(err)
					}
					hits, ok, err := ix.memRank(ctx, gen, word, int(access.Player), retrieve.Filter{}, 10)
					if err != nil {
						b.Fatal(err)
					}
					if ok {
						if len(hits) != 1 {
							b.Fatalf("%q: %d hits in memory, want 1", word, len(hits))
						}
						break
					}
					time.Sleep(5 * time.Millisecond)
				}
				lat = append(lat, time.Since(start))
				cpu = append(cpu, cputime.Process()-startCPU)
			}
			_, catchUps := memCounts(ix)
			if catchUp && catchUps < b.N {
				b.Fatalf("%d catch-ups for %d writes", catchUps, b.N)
			}
			lat.Report(b)
			cpu.ReportCPU(b)
		})
	}
}
