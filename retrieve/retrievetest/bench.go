package retrievetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/internal/cputime"
	"github.com/hearth-rpg/hearth/retrieve"
)

// The benchmark corpus every retrieval benchmark uses.
const (
	BenchChunks  = 100_000
	BenchPerFile = 20
	BenchSeed    = 1
	BenchDim     = 384
)

// Cached returns CacheDir/name, building it with build the first time:
// build writes to the path it is given, which is renamed into place only
// when build succeeds, so an interrupted build leaves nothing behind and
// two processes building at once both end with a whole file.
func Cached(tb testing.TB, name string, build func(path string) error) string {
	tb.Helper()
	path := filepath.Join(CacheDir(tb), name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp, err := os.MkdirTemp(CacheDir(tb), "build-")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	built := filepath.Join(tmp, name)
	if err := build(built); err != nil {
		tb.Fatalf("build %s: %v", name, err)
	}
	if err := os.Rename(built, path); err != nil {
		tb.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "built %s in %v\n", name, time.Since(start).Round(time.Second))
	return path
}

// Fill upserts a corpus into ix, file by file.
func Fill(ctx context.Context, ix retrieve.Index, files [][]chunk.Chunk) error {
	for _, cs := range files {
		if err := ix.Upsert(ctx, cs[0].Pack, cs[0].File, "h", cs); err != nil {
			return err
		}
	}
	return nil
}

// Latencies collects per-operation durations.
type Latencies []time.Duration

// Percentile returns the p-th percentile (0 < p ≤ 100).
func (l Latencies) Percentile(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p/100))]
}

// Report adds p50 and p99 in milliseconds to the benchmark's results.
func (l Latencies) Report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(l.Percentile(50)), "p50-ms")
	b.ReportMetric(ms(l.Percentile(99)), "p99-ms")
}

// ReportCPU adds p50 and p99 of per-operation process CPU time (user +
// system, getrusage), in milliseconds. On a loaded machine this is the
// cost of the work itself; wall-clock percentiles include the wait for a
// core. Nothing is reported where CPU time cannot be read.
func (l Latencies) ReportCPU(b *testing.B) {
	if len(l) == 0 || !cputime.Supported {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(l.Percentile(50)), "cpu-p50-ms")
	b.ReportMetric(ms(l.Percentile(99)), "cpu-p99-ms")
}

// BenchSearch runs the queries through ix in turn, as a player with a
// limit of 10 and a budget of about 3,000 tokens, and reports p50 and p99
// per search, after one untimed pass over the queries. Each search has
// a budget of its own (3,000 plus the
// iteration), so no backend can answer from a cache of earlier results:
// every search is ranked. Process CPU per search is reported beside
// wall-clock time (ReportCPU). It fails when a query with words finds nothing,
// and logs the slowest queries.
func BenchSearch(b *testing.B, ix retrieve.Index, qs []Query, f retrieve.Filter) {
	ctx := context.Background()
	// Warm up, as a server that has been answering for a while: load the
	// vectors, prepare the statements and let the backend keep what it
	// keeps per index generation (SQLite's term counts). Results are not
	// reused: the timed searches have budgets of their own.
	for _, q := range qs {
		if _, err := ix.Search(ctx, retrieve.Query{Text: q.Text, Filter: f, Role: access.Player, Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
	var lat, cpu Latencies
	slow := map[string]time.Duration{}
	i := 0
	for b.Loop() {
		q := qs[i%len(qs)]
		rq := retrieve.Query{Text: q.Text, Filter: f, Role: access.Player, Limit: 10, Budget: 3000 + i}
		i++
		start, startCPU := time.Now(), cputime.Process()
		r, err := ix.Search(ctx, rq)
		d := time.Since(start)
		lat = append(lat, d)
		cpu = append(cpu, cputime.Process()-startCPU)
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Passages) == 0 {
			b.Fatalf("%s query %q found nothing", q.Kind, q.Text)
		}
		if d > slow[q.Kind+": "+q.Text] {
			slow[q.Kind+": "+q.Text] = d
		}
	}
	lat.Report(b)
	cpu.ReportCPU(b)
	type s struct {
		q string
		d time.Duration
	}
	var worst []s
	for q, d := range slow {
		worst = append(worst, s{q, d})
	}
	slices.SortFunc(worst, func(a, b s) int { return int(b.d - a.d) })
	for _, w := range worst[:min(3, len(worst))] {
		b.Logf("slow: %v %s", w.d.Round(10*time.Microsecond), w.q)
	}
}
