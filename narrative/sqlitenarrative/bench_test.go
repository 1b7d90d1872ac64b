package sqlitenarrative

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/cputime"
	"github.com/hearth-rpg/hearth/narrative"
)

const (
	benchEvents  = 100_000
	benchDim     = 384
	benchQueries = 64
)

// fixture is the 100,000-event playthrough the recall benchmarks share,
// built once per process and only when a benchmark asks for it.
var fixture struct {
	once    sync.Once
	db      *DB
	random  [][]float32 // queries in no particular direction
	near    [][]float32 // queries close to one stored event
	buildMs float64
	loadMs  float64
	err     error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture.db != nil {
		fixture.db.Close()
		os.RemoveAll(filepath.Dir(fixture.db.Path()))
	}
	os.Exit(code)
}

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

// fixtureDB stores 100,000 events with random unit vectors (i.i.d.
// Gaussian, normalised: the hardest case for sign-bit candidates, as no
// event is much nearer a query than the rest) and loads the index.
func fixtureDB(b *testing.B) *DB {
	fixture.once.Do(func() {
		ctx := context.Background()
		dir, err := os.MkdirTemp("", "narrative-bench-")
		if err != nil {
			fixture.err = err
			return
		}
		db, err := Open(ctx, filepath.Join(dir, "hearth.db"), WithSynchronousNormal())
		if err != nil {
			fixture.err = err
			return
		}
		fixture.db = db
		r := rand.New(rand.NewPCG(2026, 11))
		vecs := make([][]float32, benchEvents)
		start := time.Now()
		batch := make([]narrative.Event, 0, 5000)
		for i := range benchEvents {
			vecs[i] = randomUnit(r)
			batch = append(batch, narrative.Event{Playthrough: "bench", Turn: i, Scene: i / 20, At: 0,
				Summary: fmt.Sprintf("event %d at the market with npc %d", i, i%500), Characters: []string{fmt.Sprintf("npc%d", i%500)},
				Location: fmt.Sprintf("place%d", i%50), Significance: 1 + i%10, Embedding: vecs[i]})
			if len(batch) == cap(batch) {
				if _, err := db.Remember(ctx, batch...); err != nil {
					fixture.err = err
					return
				}
				batch = batch[:0]
			}
		}
		fixture.buildMs = float64(time.Since(start).Milliseconds())
		start = time.Now()
		if _, err := db.Recall(ctx, narrative.Query{Playthrough: "bench", Vector: vecs[0]}); err != nil {
			fixture.err = err
			return
		}
		fixture.loadMs = float64(time.Since(start).Milliseconds())
		for range benchQueries {
			fixture.random = append(fixture.random, randomUnit(r))
			src := vecs[r.IntN(benchEvents)]
			q := make([]float32, benchDim)
			for d := range q {
				q[d] = src[d] + float32(0.03*r.NormFloat64()) // cosine ≈ 0.86 to its source
			}
			fixture.near = append(fixture.near, q)
		}
	})
	if fixture.err != nil {
		b.Fatal(fixture.err)
	}
	return fixture.db
}

// recallAt10 compares Recall's top 10 with RecallExact's over queries.
func recallAt10(b *testing.B, db *DB, queries [][]float32, minScore float64) float64 {
	ctx := context.Background()
	hit, total := 0, 0
	for _, v := range queries {
		q := narrative.Query{Playthrough: "bench", Vector: v, Limit: 10, MinScore: minScore}
		got, err := db.Recall(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		want, err := db.RecallExact(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range want {
			total++
			if slices.ContainsFunc(got, func(g narrative.Match) bool { return g.Event.ID == m.Event.ID }) {
				hit++
			}
		}
	}
	if total == 0 {
		return 1
	}
	return float64(hit) / float64(total)
}

func benchRecall(b *testing.B, exact bool) {
	db := fixtureDB(b)
	ctx := context.Background()
	recall := db.Recall
	if exact {
		recall = db.RecallExact
	}
	var took, cpu []time.Duration
	i := 0
	for b.Loop() {
		q := narrative.Query{Playthrough: "bench", Vector: fixture.random[i%benchQueries], Limit: 10, MinScore: -1}
		start, startCPU := time.Now(), cputime.Process()
		if _, err := recall(ctx, q); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		cpu = append(cpu, cputime.Process()-startCPU)
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
	if !exact {
		b.ReportMetric(recallAt10(b, db, fixture.random, -1), "recall@10-random")
		b.ReportMetric(recallAt10(b, db, fixture.near, narrative.DefaultMinScore), "recall@10-near-0.7")
		b.ReportMetric(fixture.buildMs, "build-ms")
		b.ReportMetric(fixture.loadMs, "load-ms")
	}
}

// BenchmarkRecall100k measures the quantised path: 100,000 events of 384
// dimensions, top 10 with no threshold. It reports p50 and p99 latency,
// wall-clock and process CPU per recall,
// and recall@10 against the exact scan for random queries (the worst
// case) and for queries near a stored event under the seed's 0.7
// threshold (the memory skill's use).
func BenchmarkRecall100k(b *testing.B) { benchRecall(b, false) }

// BenchmarkRecallExact100k scores every event exactly, for comparison.
func BenchmarkRecallExact100k(b *testing.B) { benchRecall(b, true) }

// BenchmarkRecallFiltered100k recalls among one NPC's 200 events, which
// the filter finds before any vector work (the exact path).
func BenchmarkRecallFiltered100k(b *testing.B) {
	db := fixtureDB(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		q := narrative.Query{Playthrough: "bench", Vector: fixture.near[i%benchQueries], Limit: 5,
			Filter: narrative.Filter{Characters: []string{fmt.Sprintf("npc%d", i%500)}}}
		if _, err := db.Recall(ctx, q); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkRemember measures storing events with 384-dimension vectors,
// one transaction per call, at the default synchronous=FULL.
func BenchmarkRemember(b *testing.B) {
	for _, batch := range []int{1, 100} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			db, err := Open(context.Background(), filepath.Join(b.TempDir(), "hearth.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			r := rand.New(rand.NewPCG(1, 1))
			evs := make([]narrative.Event, batch)
			for i := range evs {
				evs[i] = narrative.Event{Playthrough: "p", Summary: "the player crossed the bridge at dawn", Characters: []string{"player"},
					Location: "bridge", Tags: []string{"travel"}, Embedding: randomUnit(r)}
			}
			n := 0
			start := time.Now()
			for b.Loop() {
				if _, err := db.Remember(context.Background(), evs...); err != nil {
					b.Fatal(err)
				}
				n += batch
			}
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "events/s")
		})
	}
}
