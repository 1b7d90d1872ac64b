package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/internal/hearthtest"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
	"github.com/hearth-rpg/hearth/world"
)

// hearthBin is the binary built once for the tests that run it as a real
// process.
var hearthBin string

func TestMain(m *testing.M) {
	bin, remove, err := hearthtest.Build(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hearthBin = bin
	code := m.Run()
	remove()
	os.Exit(code)
}

const saltmere = "../../campaigns/saltmere"

// run runs the binary with stdin and returns stdout, failing on a non-zero
// exit.
func run(t *testing.T, stdin io.Reader, args ...string) string {
	t.Helper()
	cmd := exec.Command(hearthBin, args...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), "HEARTH_DATA="+t.TempDir()) // --data wins where given
	if err := cmd.Run(); err != nil {
		t.Fatalf("hearth %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// onlySession opens the one game in a data directory.
func onlySession(t *testing.T, dir string) (*game.Session, *sqlitestore.DB) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlitestore.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ss, err := db.Sessions(ctx)
	if err != nil || len(ss) != 1 {
		t.Fatalf("sessions: %v %d", err, len(ss))
	}
	s, err := game.Open(ctx, db, ss[0].ID, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, db
}

func TestHelpIsComplete(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"play", "--help"}, {"sessions", "--help"}, {"export", "--help"}, {"verify", "--help"}, {"version", "--help"}, {"pack", "--help"}, {"pack", "validate", "--help"}, {"pack", "index", "--help"}, {"search", "--help"}, {"skill", "--help"}, {"skill", "run", "--help"}, {"ingest", "--help"}, {"library", "--help"}, {"library", "get", "--help"}, {"eval", "--help"}} {
		out := run(t, nil, args...)
		if !strings.Contains(out, "Usage:") {
			t.Errorf("hearth %v: no usage:\n%s", args, out)
		}
	}
	out := run(t, nil, "play", "--help")
	for _, want := range []string{"/restore N", "/fork NAME", "/branches", "/export", "/flag [N] REASON", "/quit", "--campaign", "--seed", "--data", "--new"} {
		if !strings.Contains(out, want) {
			t.Errorf("play --help lacks %q", want)
		}
	}
	cmd := exec.Command(hearthBin, "play", "--bogus")
	if err := cmd.Run(); err == nil {
		t.Error("an unknown flag should fail")
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("unknown flag: exit %v, want 2", err)
	}
}

func TestBadCampaignSaysWhy(t *testing.T) {
	cmd := exec.Command(hearthBin, "play", "--data", t.TempDir(), "--campaign", t.TempDir())
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "campaign.yml") {
		t.Errorf("empty campaign dir: %v\n%s", err, out)
	}
}

// TestScriptedSession plays the committed 30-turn script against the built
// binary with stdin from a file, then checks the saved game.
func TestScriptedSession(t *testing.T) {
	if _, err := os.Stat(saltmere); err != nil {
		t.Skip("bundled campaign missing")
	}
	script, err := os.Open("testdata/saltmere-30.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer script.Close()
	dir := t.TempDir()
	out := run(t, script, "play", "--new", "--seed", "1", "--data", dir, "--campaign", saltmere)
	s, _ := onlySession(t, dir)
	if s.Turn() != 30 {
		t.Fatalf("the script should commit 30 turns, committed %d\n%s", s.Turn(), out)
	}
	checkScriptedState(t, s, out)
	if err := s.Verify(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The same seed and script give the same game.
	script.Seek(0, io.SeekStart)
	dir2 := t.TempDir()
	run(t, script, "play", "--new", "--seed", "1", "--data", dir2, "--campaign", saltmere)
	s2, _ := onlySession(t, dir2)
	a, _ := jsonOf(s.World())
	b, _ := jsonOf(s2.World())
	if a != b {
		t.Error("the same seed and input produced different games")
	}
	// Export works from the command line too.
	md := run(t, nil, "export", s.ID(), "--data", dir, "--format", "md")
	if !strings.Contains(md, "## Turn 30") {
		t.Errorf("export lacks turn 30")
	}
	if v := run(t, nil, "verify", "--data", dir); !strings.Contains(v, "ok") {
		t.Errorf("verify: %s", v)
	}
}

// TestKillMidRunLosesNothingCommitted plays a scripted run as a real
// process, kills it with SIGKILL while it works, and checks every turn it
// reported is in the database and the state equals a replay.
func TestKillMidRunLosesNothingCommitted(t *testing.T) {
	if _, err := os.Stat(saltmere); err != nil {
		t.Skip("bundled campaign missing")
	}
	lines := readScript(t, "testdata/saltmere-30.txt")
	for i, killAfter := range []int{3, 11, 17, 24} {
		// Some kills land before the next line is read, some during its
		// turn: the delay after writing it varies.
		delay := time.Duration(i) * 700 * time.Microsecond
		t.Run(fmt.Sprintf("after-%d-turns", killAfter), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(hearthBin, "play", "--new", "--seed", "1", "--data", dir, "--campaign", saltmere)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			turns := make(chan int, 64)
			go watchTurns(stdout, turns)
			reported := 0
			for _, l := range lines {
				fmt.Fprintln(stdin, l)
				if reported >= killAfter {
					break // this line is in flight when the kill lands
				}
				reported = waitTurn(t, turns, reported)
			}
			time.Sleep(delay)
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			s, _ := onlySession(t, dir)
			if s.Turn() < reported {
				t.Fatalf("reported %d committed turns, database has %d", reported, s.Turn())
			}
			if s.Turn() > reported+1 {
				t.Fatalf("database has %d turns, more than the %d reported plus the one in flight", s.Turn(), reported)
			}
			if err := s.Verify(context.Background()); err != nil {
				t.Fatalf("after SIGKILL: %v", err)
			}
			restoreForkAndPlayBoth(t, dir, s)
		})
	}
}

// restoreForkAndPlayBoth goes back to turn 2 of a game, forks, plays on the
// fork and on the original line, and checks after reopening that both
// branches kept their own turns.
func restoreForkAndPlayBoth(t *testing.T, dir string, s *game.Session) {
	t.Helper()
	ctx := context.Background()
	tip := s.Turn()
	if err := s.Restore(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork(ctx, "what-if"); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"go east", "talk to aldous"} {
		if _, err := s.Act(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Switch(ctx, "main"); err != nil {
		t.Fatal(err)
	}
	if s.Turn() != tip {
		t.Fatalf("main is at turn %d after switching back, want %d", s.Turn(), tip)
	}
	if _, err := s.Act(ctx, "look"); err != nil {
		t.Fatal(err)
	}
	// Reopen from disk, as a new process would.
	again, _ := openSession(t, dir, s.ID())
	bs, err := again.Branches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tips := map[string]int{}
	for _, b := range bs {
		tips[b.Name] = b.Tip
	}
	if tips["main"] != tip+1 || tips["what-if"] != 4 {
		t.Fatalf("branch tips %v, want main %d and what-if 4", tips, tip+1)
	}
	if err := again.Switch(ctx, "what-if"); err != nil {
		t.Fatal(err)
	}
	if again.World().PC().Location != "lane" {
		t.Errorf("the fork should be in Chapel Lane, is at %s", again.World().PC().Location)
	}
	if err := again.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}

func openSession(t *testing.T, dir, id string) (*game.Session, *sqlitestore.DB) {
	t.Helper()
	db, err := sqlitestore.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := game.Open(context.Background(), db, id, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s, db
}

var statusTurn = regexp.MustCompile(`· turn (\d+)`)

// watchTurns reports the turn number of every status line the game prints.
func watchTurns(r io.Reader, turns chan<- int) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := statusTurn.FindStringSubmatch(sc.Text()); m != nil {
			if n, _ := strconv.Atoi(m[1]); n > 0 { // turn 0 is the opening view
				turns <- n
			}
		}
	}
	close(turns)
}

// waitTurn waits until the game reports a turn after last (or a query
// answer, which prints no status: then the count stays).
func waitTurn(t *testing.T, turns <-chan int, last int) int {
	t.Helper()
	select {
	case n, ok := <-turns:
		if !ok {
			t.Fatal("the game exited early")
		}
		return n
	case <-time.After(60 * time.Second):
		t.Fatal("no turn reported within a minute")
	}
	return last
}

func readScript(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "/") {
			out = append(out, l)
		}
	}
	return out
}

func jsonOf(w *world.State) (string, error) {
	var b bytes.Buffer
	err := jsonEncode(&b, w)
	return b.String(), err
}

func jsonEncode(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// checkScriptedState asserts what the 30-turn script must have done.
func checkScriptedState(t *testing.T, s *game.Session, out string) {
	t.Helper()
	w := s.World()
	pc := w.PC()
	q := w.Quests["relight_lantern"]
	checks := []struct {
		what string
		ok   bool
	}{
		{"ends in the lantern room", pc.Location == "lantern_room"},
		{"visited every place on the way", w.Locations["tavern"].Visited && w.Locations["clifftop"].Visited && w.Locations["cave"].Visited && w.Locations["lighthouse"].Visited},
		{"talked to Maren, who gave the quest", q.Status == world.QuestCompleted},
		{"completed every objective", q.Objectives[0].Done && q.Objectives[1].Done && q.Objectives[2].Done},
		{"found the way down by searching", !w.Locations["clifftop"].Exits[2].Hidden},
		{"unlocked the stair with Tobiah's key", !w.Locations["lighthouse"].Exits[1].Locked && pc.Inventory["brass_key"] == 1},
		{"won the whole fight", w.Combat == nil && w.Characters["rook"].HasCondition("dead") && w.Characters["gristle"].HasCondition("dead")},
		{"drank the healing potion", pc.Inventory["healing_potion"] == 0},
		{"carries the lens, the reward and the ledger", pc.Inventory["lantern_lens"] == 1 && pc.Inventory["tide_charm"] == 1 && pc.Inventory["smuggler_ledger"] == 1},
		{"gold: 8 + 12 looted + 25 reward", pc.Gold == 45},
		{"XP for the fight and the quest", pc.XP == 200},
		{"the Guild's standing and Maren's opinion rose", w.Reputation("guild") == 25 && w.Perception("maren") == 35},
		{"the consequences fired", w.Consequences["keeper_confesses"].Triggered && w.Consequences["lens_recovered"].Triggered && w.Consequences["light_returns"].Triggered},
		{"the long rest reached the dawn event", w.Scheduled["dawn"].Fired && w.Time.Day() == 2},
		{"the thread is resolved", w.Threads["who_profits"].Status == "resolved"},
		{"a skill check was rolled", strings.Contains(out, "[Perception ") && strings.Contains(out, "[Investigation ")},
		{"dialogue was narrated from the campaign", strings.Contains(out, `Nell Pike: "Lights under the headland`)},
		{"initiative was rolled", strings.Contains(out, "Initiative: ")},
		{"no rule refused an action", !strings.Contains(out, "is already dead") && !strings.Contains(out, "can't go")},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("scripted session: %s: not so", c.what)
		}
	}
	if t.Failed() {
		t.Logf("transcript:\n%s", out)
	}
}

// "quit" on its own leaves the game, as in every text adventure; nothing
// after it is played.
func TestQuitWordLeaves(t *testing.T) {
	dir := t.TempDir()
	out := run(t, strings.NewReader("look\nQuit\ngo north\n"), "play", "--new", "--seed", "1", "--data", dir)
	if !strings.Contains(out, "Saved at turn") {
		t.Errorf("no goodbye after quit:\n%s", out)
	}
	if s, _ := onlySession(t, dir); s.Turn() != 1 {
		t.Errorf("turn %d after look and quit; \"go north\" was played after quitting\n%s", s.Turn(), out)
	}
}
