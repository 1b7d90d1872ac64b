package pgindex_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/cputime"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/pgindex"
	"github.com/hearth-rpg/hearth/retrieve/retrievetest"
)

// benchCopies is a schema of 100,000 chunks with 384-dimension hashing
// vectors: 2,000 chunks of retrievetest's real text indexed through
// Upsert, then copied in SQL (new ids, the same vectors, an empty
// tsvector) to 100,000 rows. The in-memory vectors' load and catch-up
// cost by rows and dimension, not by text, and copying takes a minute
// where indexing 100,000 chunks takes half an hour. Kept between runs.
func benchCopies(b *testing.B) string {
	base := pgtest.Skip(b)
	ctx := context.Background()
	c := retrievetest.Build(b, 2000, 20, 23)
	sum := sha256.Sum256([]byte("copies 100000 " + c.Fingerprint))
	schema := "bench_copies_" + hex.EncodeToString(sum[:6])
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
	ix, err := pgindex.Open(ctx, u.String(), pgindex.WithEmbedder(embedding.NewHashing(retrievetest.BenchDim)), pgindex.WithoutPGVector(), pgindex.WithoutMemVectors())
	if err != nil {
		b.Fatal(err)
	}
	if err := retrievetest.Fill(ctx, ix, c.Files); err != nil {
		ix.Close()
		b.Fatal(err)
	}
	ix.Close()
	cols := `corpus, pack, file, section, heading, page, ordinal, source_type, content_type,
		entity_type, entity_id, refs, location, faction, threads, tags, tier, is_player, access, text, tokens, file_hash, turn`
	if _, err := conn.Exec(ctx, `SET search_path TO `+schema+`, public;
		INSERT INTO lore_chunks (id, `+cols+`, tsv)
			SELECT c.id || '~' || k, `+cols+`, ''::tsvector FROM lore_chunks c, generate_series(1, 49) k;
		INSERT INTO lore_vectors (chunk, vec)
			SELECT c.n, v.vec FROM lore_chunks c JOIN lore_chunks o ON o.id = split_part(c.id, '~', 1)
			JOIN lore_vectors v ON v.chunk = o.n WHERE c.id LIKE '%~%';
		ANALYZE lore_chunks; ANALYZE lore_vectors; CREATE TABLE bench_done ()`); err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "built PostgreSQL schema %s in %v\n", schema, time.Since(start).Round(time.Second))
	return u.String()
}

// BenchmarkWriteToMemVectors100k is the time from one file's write (20
// chunks, by another server) until a search on this server finds its
// chunks in the in-memory vectors, at 100,000 vectors: catching up from
// the change log against reading every vector again (catchup=off, as
// before the log). Wall and this process's CPU, p50 and p99 per write;
// the writer's own time is not in it.
func BenchmarkWriteToMemVectors100k(b *testing.B) {
	ctx := context.Background()
	u := benchCopies(b)
	emb := embedding.NewHashing(retrievetest.BenchDim)
	ix, err := pgindex.Open(ctx, u, pgindex.WithEmbedder(emb), pgindex.WithoutPGVector())
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	writer, err := pgindex.Open(ctx, u, pgindex.WithEmbedder(emb), pgindex.WithoutPGVector(), pgindex.WithoutMemVectors())
	if err != nil {
		b.Fatal(err)
	}
	defer writer.Close()
	wait, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	// The in-memory full text, built at open, catches up after each
	// write too: let the builds begun finish, then turn it off, so that
	// only the vectors' CPU is in the figures.
	for _, x := range []*pgindex.Index{ix, writer} {
		if err := x.WaitFullText(wait); err != nil {
			b.Fatal(err)
		}
		x.SetMemFullText(false)
	}
	if err := ix.WaitVectors(wait); err != nil {
		b.Fatal(err)
	}
	file := retrievetest.Build(b, 20, 20, 29).Files[0]
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("catchup=%v", on), func(b *testing.B) {
			ix.SetVectorCatchUp(on)
			var wall, cpu []time.Duration
			i := 0
			for b.Loop() {
				i++
				text := fmt.Sprintf("quillwort zyzzogeton %d the sending of the %d lanterns", i, i)
				cs := slices.Clone(file)
				for j := range cs {
					cs[j].ID, cs[j].Text = "", text
				}
				if err := writer.Upsert(ctx, "written", "one.md", fmt.Sprint(i), cs); err != nil {
					b.Fatal(err)
				}
				w, c := timeUntilFound(b, "the in-memory vectors", func() (bool, error) {
					rows, _, ok, err := ix.MemVectorHits(ctx, text, 1)
					return ok && len(rows) == 1, err
				})
				wall, cpu = append(wall, w), append(cpu, c)
			}
			reportWriteToMem(b, wall, cpu)
		})
	}
}

// BenchmarkUpsertFile is one file's write (20 chunks replaced, 384
// dimensions, no HNSW index) into an index of 400 chunks: what the change
// log's triggers add to a write. Wall p50 / p99 per write.
func BenchmarkUpsertFile(b *testing.B) {
	ctx := context.Background()
	ix, err := pgindex.Open(ctx, pgtest.URL(b), pgindex.WithEmbedder(embedding.NewHashing(retrievetest.BenchDim)),
		pgindex.WithoutPGVector(), pgindex.WithoutMemVectors())
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	ix.SetMemFullText(false)
	c := retrievetest.Build(b, 400, 20, 31)
	if err := retrievetest.Fill(ctx, ix, c.Files); err != nil {
		b.Fatal(err)
	}
	file := c.Files[3]
	var wall []time.Duration
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		if err := ix.Upsert(ctx, file[0].Pack, file[0].File, fmt.Sprint(i), file); err != nil {
			b.Fatal(err)
		}
		wall = append(wall, time.Since(start))
	}
	slices.Sort(wall)
	ms := func(q float64) float64 { return float64(wall[int(q*float64(len(wall)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}

// BenchmarkWriteToMemText100k is the time from a one-chunk file's write
// (by another server) until a search on this server finds its new word in
// the in-memory full text, at 100,000 chunks (benchCopies): catching up
// from the change log against building the full text whole again
// (catchup=false, as before). Wall and this process's CPU, p50 and p99
// per write; the writer's own time is not in it.
func BenchmarkWriteToMemText100k(b *testing.B) {
	ctx := context.Background()
	u := benchCopies(b)
	ix, err := pgindex.Open(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	writer, err := pgindex.Open(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	defer writer.Close()
	wait, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	// The writer's own full text, built at open, is not measured: let it
	// finish, then turn it off.
	for _, x := range []*pgindex.Index{ix, writer} {
		if err := x.WaitFullText(wait); err != nil {
			b.Fatal(err)
		}
	}
	writer.SetMemFullText(false)
	file := retrievetest.Build(b, 1, 1, 29).Files[0][:1]
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("catchup=%v", on), func(b *testing.B) {
			ix.SetFullTextCatchUp(on)
			var wall, cpu []time.Duration
			i := 0
			for b.Loop() {
				i++
				// A word no other chunk holds: letters only, one per write.
				word := "quillwort" + strings.Map(func(r rune) rune { return 'a' + r - '0' }, fmt.Sprint(i))
				cs := slices.Clone(file)
				cs[0].ID, cs[0].Text = "", "the sending of the lanterns "+word
				if err := writer.Upsert(ctx, "written", "one.md", fmt.Sprint(i), cs); err != nil {
					b.Fatal(err)
				}
				w, c := timeUntilFound(b, "the in-memory full text", func() (bool, error) {
					rows, _, ok, err := ix.MemTextHits(ctx, word, access.GM, retrieve.Filter{}, 1)
					return ok && len(rows) == 1, err
				})
				wall, cpu = append(wall, w), append(cpu, c)
			}
			reportWriteToMem(b, wall, cpu)
		})
	}
}

// timeUntilFound polls found until it is true and returns the wall and
// process CPU time that took: a write's way to a server's memory.
func timeUntilFound(b *testing.B, where string, found func() (bool, error)) (wall, cpu time.Duration) {
	b.Helper()
	start, startCPU := time.Now(), cputime.Process()
	for {
		ok, err := found()
		if err != nil {
			b.Fatal(err)
		}
		if ok {
			return time.Since(start), cputime.Process() - startCPU
		}
		if time.Since(start) > 10*time.Minute {
			b.Fatal("the write never reached " + where)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// reportWriteToMem reports the writes' wall and CPU p50 and p99 in ms.
func reportWriteToMem(b *testing.B, wall, cpu []time.Duration) {
	ms := func(ds []time.Duration, q float64) float64 {
		slices.Sort(ds)
		return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(ms(wall, 0.5), "p50-ms")
	b.ReportMetric(ms(wall, 0.99), "p99-ms")
	if cputime.Supported {
		b.ReportMetric(ms(cpu, 0.5), "cpu-p50-ms")
		b.ReportMetric(ms(cpu, 0.99), "cpu-p99-ms")
	}
}
