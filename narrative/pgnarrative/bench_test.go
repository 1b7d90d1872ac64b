package pgnarrative_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hearth-rpg/hearth/internal/cputime"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/narrative/pgnarrative"
)

const (
	benchEvents = 100_000
	benchDim    = 384
)

func randomUnit(r *rand.Rand) []float32 {
	v := make([]float32, benchDim)
	var n float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		n += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// benchSchema returns a URL on a schema holding sqlitenarrative's
// benchmark playthrough: 100,000 events with random unit vectors (the
// same generator and seed). The schema is kept between runs (storing
// takes minutes on a busy machine) and reused when complete.
func benchSchema(b *testing.B) string {
	base := pgtest.Skip(b)
	ctx := context.Background()
	const schema = "bench_narrative_v1"
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
	db, err := pgnarrative.Open(ctx, u.String())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(2026, 11))
	batch := make([]narrative.Event, 0, 5000)
	for i := range benchEvents {
		batch = append(batch, narrative.Event{Playthrough: "bench", Turn: i, Scene: i / 20,
			Summary: fmt.Sprintf("event %d at the market with npc %d", i, i%500), Characters: []string{fmt.Sprintf("npc%d", i%500)},
			Location: fmt.Sprintf("place%d", i%50), Significance: 1 + i%10, Embedding: randomUnit(r)})
		if len(batch) == cap(batch) {
			if _, err := db.Remember(ctx, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if _, err := conn.Exec(ctx, `ANALYZE `+schema+`.narrative_events; CREATE TABLE `+schema+`.bench_done ()`); err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "stored %d events in PostgreSQL schema %s in %v\n", benchEvents, schema, time.Since(start).Round(time.Second))
	return u.String()
}

// BenchmarkRecall100k is sqlitenarrative's BenchmarkRecall100k on
// PostgreSQL: 100,000 events of 384 dimensions in one playthrough, top
// 10 of random queries with no threshold, p50 and p99 per recall
// (wall-clock, and this process's CPU: PostgreSQL's is not counted). The
// first recall loads the playthrough (reported as load-ms); each later
// one reads the playthrough's event counter and answers from memory.
// Skipped without HEARTH_TEST_POSTGRES_URL.
func BenchmarkRecall100k(b *testing.B) {
	ctx := context.Background()
	db, err := pgnarrative.Open(ctx, benchSchema(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(7, 7))
	qs := make([][]float32, 64)
	for i := range qs {
		qs[i] = randomUnit(r)
	}
	start := time.Now()
	if _, err := db.Recall(ctx, narrative.Query{Playthrough: "bench", Vector: qs[0]}); err != nil {
		b.Fatal(err)
	}
	load := time.Since(start)
	var took, cpu []time.Duration
	i := 0
	for b.Loop() {
		q := narrative.Query{Playthrough: "bench", Vector: qs[i%len(qs)], Limit: 10, MinScore: -1}
		start, startCPU := time.Now(), cputime.Process()
		ms, err := db.Recall(ctx, q)
		took = append(took, time.Since(start))
		cpu = append(cpu, cputime.Process()-startCPU)
		if err != nil {
			b.Fatal(err)
		}
		if len(ms) != 10 {
			b.Fatalf("%d matches, want 10", len(ms))
		}
		i++
	}
	slices.Sort(took)
	ms := func(p float64) float64 { return float64(took[int(p*float64(len(took)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	if cputime.Supported {
		slices.Sort(cpu)
		b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "cpu-p50-ms")
		b.ReportMetric(float64(cpu[(len(cpu)-1)*99/100].Microseconds())/1000, "cpu-p99-ms")
	}
	b.ReportMetric(float64(load.Milliseconds()), "load-ms")
}
