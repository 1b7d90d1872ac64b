package app_test

import (
	"bufio"
	"context"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/game"
)

// BenchmarkTurnSaltmere measures what a player of "hearth play" waits for:
// one offline turn of the bundled campaign through the assembled
// application (lore, memories, beats, choices, the store with its one
// transaction per turn), playing the 30-turn script cmd/hearth's tests play over
// and over, a new game each time it ends. It reports wall-clock p50/p99
// and CPU per turn (user+system, from getrusage, so SQLite's fsync waits
// are not CPU).
func BenchmarkTurnSaltmere(b *testing.B) {
	ctx := context.Background()
	script := walkthrough(b)
	cfg := config.Default()
	cfg.Storage.DataDir = b.TempDir()
	a, err := app.Open(ctx, app.Options{Config: cfg})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	c, err := app.LoadCampaign(ctx, "../campaigns/saltmere")
	if err != nil {
		b.Fatal(err)
	}
	var s *game.Session
	next := len(script)
	var walls []time.Duration
	var cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		if next == len(script) {
			b.StopTimer()
			if s, err = a.NewGame(ctx, c, 1, game.Options{}); err != nil {
				b.Fatal(err)
			}
			next = 0
			b.StartTimer()
		}
		u0 := rusage()
		t0 := time.Now()
		if _, err := s.ActStream(ctx, script[next], func(string) {}); err != nil {
			b.Fatalf("%q: %v", script[next], err)
		}
		walls = append(walls, time.Since(t0))
		cpu += rusage() - u0
		next++
	}
	slices.Sort(walls)
	b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(walls[len(walls)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(walls)), "cpu-ms/turn")
}

func walkthrough(b *testing.B) []string {
	f, err := os.Open("../cmd/hearth/testdata/saltmere-30.txt")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// rusage is this process's CPU time so far.
func rusage() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
