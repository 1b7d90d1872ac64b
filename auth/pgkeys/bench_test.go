package pgkeys_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/authtest"
	"github.com/hearth-rpg/hearth/auth/pgkeys"
	"github.com/hearth-rpg/hearth/internal/cputime"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
)

// BenchmarkAuthenticate is a request's key check against PostgreSQL, the
// argon2id comparison cached as in a running server: what the store
// reads per request. It reports wall p50/p99 per check, and this
// process's CPU per check (p50/p99 over batches of 100 checks, as
// getrusage is too coarse for one); PostgreSQL's own CPU is not in it.
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	s, err := pgkeys.Open(ctx, pgtest.URL(b))
	if err != nil {
		b.Fatal(err)
	}
	kr, err := auth.New(s, auth.WithParams(authtest.Cheap))
	if err != nil {
		b.Fatal(err)
	}
	defer kr.Close()
	if _, err := kr.AddUser(ctx, "ann", access.GM); err != nil {
		b.Fatal(err)
	}
	key, _, err := kr.IssueKey(ctx, "ann")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := kr.Authenticate(ctx, key); err != nil {
		b.Fatal(err)
	}
	const batch = 100
	var wall, cpu []time.Duration
	cpuStart, n := cputime.Process(), 0
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if _, err := kr.Authenticate(ctx, key); err != nil {
			b.Fatal(err)
		}
		wall = append(wall, time.Since(start))
		if n++; n == batch {
			now := cputime.Process()
			cpu = append(cpu, (now-cpuStart)/batch)
			cpuStart, n = now, 0
		}
	}
	report(b, wall, "")
	if cputime.Supported && len(cpu) > 0 {
		report(b, cpu, "cpu-")
	}
}

func report(b *testing.B, ds []time.Duration, prefix string) {
	slices.Sort(ds)
	us := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))].Nanoseconds()) / 1000 }
	b.ReportMetric(us(0.5), prefix+"p50-µs")
	b.ReportMetric(us(0.99), prefix+"p99-µs")
}
