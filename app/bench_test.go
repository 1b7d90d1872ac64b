package app_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/game"
)

// BenchmarkPlayTurn measures what a player of "hearth play" waits for: a
// turn of the bundled campaign, offline, through the application as
// "hearth play" assembles it (app.Open with the defaults, so synchronous
// FULL; NewGame with the srd51 pack's lore index, narrative memory and
// beats; an episode begun; one store transaction per turn).
//
// A game is played to turn 10 or 10,000 once, untimed, by a loop of ten
// inputs around the village (dialogue, movement, checks) that leaves the
// adventure where it began. Each pass then restores that turn (untimed)
// and plays cmd/hearth's 30-turn script from it: movement, dialogue,
// checks, a whole combat, an item, the quest. Only committed turns are
// sampled; a line the rules refuse (the dice of a long game can leave
// Rook fighting when the script drinks its potion) takes no turn. The
// first turn of a pass forks a branch from the restored turn, which a
// player does only after /restore: it is labelled apart (bench=fork) and
// not sampled.
//
// It reports CPU per turn, user + system from getrusage of the whole
// process (so fsync waits are not counted and the goroutines a turn waits
// for are), at the median and 99th percentile: wall-clock time on a
// shared machine is noise.
func BenchmarkPlayTurn(b *testing.B) {
	for _, at := range []int{10, 10_000} {
		b.Run(fmt.Sprintf("turn=%d", at), func(b *testing.B) { benchPlayTurn(b, at) })
	}
}

// village is played to bring a game to the turn a benchmark starts at:
// it ends where it began, at the quay, and changes nothing the 30-turn
// script needs.
var village = []string{"talk to nell", "ask nell about the lights", "go north", "ask maren about the smugglers",
	"listen", "go south", "go east", "talk to aldous", "go west", "search"}

// benchApp is the one App the benchmark's games are played in: the lore
// index is built once, as on a player's machine. TestMain removes its
// data directory.
var (
	benchDir string
	benchApp = sync.OnceValues(func() (*app.App, error) {
		dir, err := os.MkdirTemp("", "hearth-playturn-")
		if err != nil {
			return nil, err
		}
		benchDir = dir
		cfg := config.Default()
		cfg.Storage.DataDir = dir
		return app.Open(context.Background(), app.Options{Config: cfg, Hooks: app.Hooks{SceneLoreWarmed: func(int) {
			select {
			case warmed <- struct{}{}:
			default:
			}
		}}})
	})
	// warmed reports each game's scene lore ranked in the background: a
	// player reads the opening scene meanwhile, so a game is played only
	// once it is done.
	warmed = make(chan struct{}, 2)
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		if a, err := benchApp(); err == nil {
			a.Close()
		}
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

var (
	turnLabel = pprof.Labels("bench", "turn")
	forkLabel = pprof.Labels("bench", "fork")
)

// played are the games played to a turn, built once per process.
var (
	playedMu sync.Mutex
	played   = map[int]*game.Session{}
)

func playedTo(b *testing.B, a *app.App, at int) *game.Session {
	playedMu.Lock()
	defer playedMu.Unlock()
	if s, ok := played[at]; ok {
		return s
	}
	ctx := context.Background()
	c, err := app.LoadCampaign(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	s, err := a.NewGame(ctx, c, 1, game.Options{})
	if err != nil {
		b.Fatal(err)
	}
	select {
	case <-warmed:
	case <-time.After(10 * time.Minute):
		b.Fatal("the scene lore was not warmed within 10 minutes")
	}
	if _, err := s.BeginEpisode(ctx); err != nil {
		b.Fatal(err)
	}
	for i := 0; s.Turn() < at; i++ {
		r, err := s.Act(ctx, village[i%len(village)])
		if err != nil {
			b.Fatal(err)
		}
		if !r.Committed {
			b.Fatalf("turn %d: %q took no turn: %s", s.Turn(), village[i%len(village)], r.Narrative)
		}
	}
	played[at] = s
	return s
}

func benchPlayTurn(b *testing.B, at int) {
	ctx := context.Background()
	script := walkthrough(b)
	a, err := benchApp()
	if err != nil {
		b.Fatal(err)
	}
	s := playedTo(b, a, at)
	var cpu []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%len(script) == 0 {
			b.StopTimer()
			if err := s.Restore(ctx, at); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		line := script[i%len(script)]
		// The first turn of a pass starts a branch from the restored turn
		// (a fork, with its own transaction): it is timed, not sampled.
		label := turnLabel
		if i%len(script) == 0 {
			label = forkLabel
		}
		var r *game.Response
		u0 := rusage()
		// The label marks the timed turns in a CPU profile, with the
		// goroutines they start (pprof -tagfocus bench=turn).
		pprof.Do(ctx, label, func(ctx context.Context) { r, err = s.ActStream(ctx, line, func(string) {}) })
		u := rusage() - u0
		if err != nil {
			b.Fatalf("turn %d, %q: %v", s.Turn(), line, err)
		}
		if r.Committed && i%len(script) != 0 {
			cpu = append(cpu, u)
		}
	}
	b.StopTimer()
	if len(cpu) == 0 {
		b.Fatal("no turn was committed")
	}
	slices.Sort(cpu)
	var sum time.Duration
	for _, d := range cpu {
		sum += d
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(cpu[len(cpu)/2]), "cpu-p50-ms")
	b.ReportMetric(ms(cpu[len(cpu)*99/100]), "cpu-p99-ms")
	b.ReportMetric(ms(sum)/float64(len(cpu)), "cpu-mean-ms")
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
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// rusage is this process's CPU time so far, user and system.
func rusage() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
