package database_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/game"
)

const killChildEnv = "HEARTH_KILL_CHILD_DIR"

// TestKillMidTurnKeepsMemoriesWithTurns plays turns that each leave a
// memory event in a child process, kills it with SIGKILL at random
// moments, and checks after every kill that each committed turn has its
// memory events and no memory event is without its turn.
func TestKillMidTurnKeepsMemoriesWithTurns(t *testing.T) {
	if dir := os.Getenv(killChildEnv); dir != "" {
		playUntilKilled(dir)
		return
	}
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL is a Unix signal")
	}
	if testing.Short() {
		t.Skip("runs a child process through eight kills")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 14))
	total := 0
	for kill := range 8 {
		reported := runAndKill(t, dir, 1+rng.IntN(4), time.Duration(rng.IntN(4000))*time.Microsecond)
		turns, missing, orphans := audit(t, dir)
		t.Logf("kill %d: %d turns committed (%d reported this run)", kill+1, turns, reported)
		if turns < total+reported {
			t.Errorf("kill %d: %d turns in the database, but %d were reported committed", kill+1, turns, total+reported)
		}
		for _, m := range missing {
			t.Errorf("kill %d: committed turn %s has no memory event", kill+1, m)
		}
		for _, o := range orphans {
			t.Errorf("kill %d: memory event of turn %s, which was never committed", kill+1, o)
		}
		total = turns
	}
	if total < 8 {
		t.Errorf("only %d turns in eight runs", total)
	}
}

// runAndKill starts the child, waits until it reports after turns more
// committed turns, waits delay more (so the kill lands at different
// points of a turn) and kills it. It returns the turns the child reported.
func runAndKill(t *testing.T, dir string, after int, delay time.Duration) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillMidTurnKeepsMemoriesWithTurns$")
	cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, out)
	}()
	reported := 0
	for reported < after {
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				t.Fatalf("the child ended before it was killed, after %d turns", reported)
			}
			if strings.HasPrefix(l, "committed ") {
				reported++
			}
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Fatal("the child reported no turn for two minutes")
		}
	}
	time.Sleep(delay)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range lines { // drain: reported is a lower bound anyway
		}
	}()
	cmd.Wait()
	return reported
}

// audit counts the committed turns and lists, as "branch/number", the
// turns without memory events and the memory events without turns.
func audit(t *testing.T, dir string) (turns int, missing, orphans []string) {
	t.Helper()
	ctx := context.Background()
	db, err := database.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := db.Handle().Reader()
	if err := r.QueryRowContext(ctx, `SELECT count(*) FROM turns`).Scan(&turns); err != nil {
		t.Fatal(err)
	}
	list := func(q string) []string {
		rows, err := r.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		return out
	}
	missing = list(`SELECT t.branch_id || '/' || t.number FROM turns t JOIN branches b ON b.id = t.branch_id
		WHERE NOT EXISTS (SELECT 1 FROM narrative_events e
			WHERE e.playthrough = b.session_id AND e.session = t.branch_id AND e.turn = t.number)`)
	orphans = list(`SELECT e.session || '/' || e.turn FROM narrative_events e
		WHERE NOT EXISTS (SELECT 1 FROM turns t JOIN branches b ON b.id = t.branch_id
			WHERE b.session_id = e.playthrough AND t.branch_id = e.session AND t.number = e.turn)`)
	return turns, missing, orphans
}

// playUntilKilled is the child: it opens the data directory as Hearth
// does, resumes (or begins) the game and walks between the gate and the
// hall, a move and so a memory event every turn, reporting each commit.
func playUntilKilled(dir string) {
	ctx := context.Background()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
	db, err := database.Open(ctx, dir)
	if err != nil {
		fail(err)
	}
	opts := game.Options{Memories: db.Memories}
	var s *game.Session
	if ss, err := db.Games.Sessions(ctx); err != nil {
		fail(err)
	} else if len(ss) > 0 {
		s, err = game.Open(ctx, db.Games, ss[0].ID, opts)
		if err != nil {
			fail(err)
		}
	} else {
		c, err := campaign.Load(ctx, "../game/testdata/tiny")
		if err != nil {
			fail(err)
		}
		if s, err = game.New(ctx, db.Games, c, 5, opts); err != nil {
			fail(err)
		}
	}
	for range 5000 { // a bound, should the parent die first
		dir := "north"
		if s.World().Scene.Location != "gate" {
			dir = "south"
		}
		if _, err := s.Act(ctx, "go "+dir); err != nil {
			fail(err)
		}
		fmt.Println("committed " + strconv.Itoa(s.Turn()))
	}
	os.Exit(4)
}
