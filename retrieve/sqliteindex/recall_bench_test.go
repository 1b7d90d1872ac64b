package sqliteindex

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/embedding"
	"github.com/hearth-rpg/hearth/internal/cputime"
	"github.com/hearth-rpg/hearth/retrieve/memvec"
	"github.com/hearth-rpg/hearth/retrieve/retrievetest"
)

// BenchmarkVectorRecall is the vector search alone over the 100,000
// stored vectors, with each of several candidate counts C (0: the exact
// scan): retrievetest's 160 queries, hashing-embedded, as a player and as
// the GM (who reads every row), keeping the best 40 as a hybrid search
// with limit 10 asks for. It reports recall@10 against the exact scan
// (the share of the exact top 10 that the search's top 10 holds, over
// every query), the share of queries estimated rather than scored
// exactly (see estimateDims), and p50/p99 wall and CPU time per search.
//
//	go test ./retrieve/sqliteindex -run '^$' -bench VectorRecall -benchtime 400x -count 1
func BenchmarkVectorRecall(b *testing.B) {
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
		if !isZero(v[0]) {
			qs = append(qs, v[0])
		}
	}
	const k = 40
	for _, role := range []access.Level{access.Player, access.GM} {
		exact := make([][]memvec.Hit, len(qs))
		for i, q := range qs {
			exact[i] = vc.Scan(q, int(role), k, nil)
		}
		for _, c := range []int{0, 128, 256, 512, 1024, 2048} {
			b.Run(fmt.Sprintf("%s/C=%d", role, c), func(b *testing.B) {
				var pool sync.Pool
				found, want, estimated := 0, 0, 0
				for i, q := range qs {
					if memvec.Estimates(q) {
						estimated++
					}
					f, w := recallAt(exact[i], vc.Search(q, int(role), k, nil, c, &pool), 10)
					found += f
					want += w
				}
				var lat, cpu retrievetest.Latencies
				i := 0
				for b.Loop() {
					start, startCPU := time.Now(), cputime.Process()
					hits := vc.Search(qs[i%len(qs)], int(role), k, nil, c, &pool)
					lat = append(lat, time.Since(start))
					cpu = append(cpu, cputime.Process()-startCPU)
					i++
					if len(hits) == 0 {
						b.Fatal("no hits")
					}
				}
				lat.Report(b)
				cpu.ReportCPU(b)
				b.ReportMetric(float64(found)/float64(max(want, 1)), "recall@10")
				b.ReportMetric(float64(estimated)/float64(len(qs)), "estimated")
			})
		}
	}
}

// recallAt counts how many of the first n exact hits are among the first
// n of got, and how many there were to find.
func recallAt(exact, got []memvec.Hit, n int) (found, want int) {
	in := map[int64]bool{}
	for _, h := range got[:min(n, len(got))] {
		in[h.Row] = true
	}
	for _, h := range exact[:min(n, len(exact))] {
		if in[h.Row] {
			found++
		}
	}
	return found, min(n, len(exact))
}
