package game_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/offlinegm"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

func loadTiny(t testing.TB) *campaign.Campaign {
	t.Helper()
	c, err := campaign.Load(context.Background(), "testdata/tiny")
	if err != nil {
		t.Fatalf("load tiny campaign: %v", err)
	}
	return c
}

func openDB(t testing.TB, dir string) *sqlitestore.DB {
	t.Helper()
	db, err := sqlitestore.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func act(t testing.TB, s *game.Session, input string) *game.Response {
	t.Helper()
	r, err := s.Act(context.Background(), input)
	if err != nil {
		t.Fatalf("Act(%q): %v", input, err)
	}
	return r
}

func stateJSON(t testing.TB, s *game.Session) string {
	t.Helper()
	b, err := json.Marshal(s.World())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPlayReopenRestoreFork(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	s, err := game.New(ctx, db, loadTiny(t), 7, game.Options{SnapshotEvery: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"look", "go north", "talk to tomas", "ask tomas about rats", "go south", "search", "take rope", "take ring"} {
		r := act(t, s, in)
		if !r.Committed || r.Narrative == "" {
			t.Fatalf("%q: not committed or silent: %+v", in, r)
		}
	}
	if s.Turn() != 8 {
		t.Fatalf("turn %d, want 8", s.Turn())
	}
	w := s.World()
	if w.PC().Inventory["rope"] != 1 || w.PC().Inventory["ring"] != 1 || w.Quests["rats"].Status != "active" {
		t.Fatalf("after play: inventory %v quest %s", w.PC().Inventory, w.Quests["rats"].Status)
	}
	if err := s.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	want := stateJSON(t, s)

	// Reopen from the database: the same state, at the same turn.
	s2, err := game.Open(ctx, openDB(t, dir), s.ID(), game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := stateJSON(t, s2); got != want || s2.Turn() != 8 {
		t.Fatalf("reopened state differs (turn %d)", s2.Turn())
	}

	// Restore an early turn: the ring and rope are not taken yet.
	if err := s2.Restore(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if s2.World().PC().Inventory["rope"] != 0 || s2.World().PC().Location != "hall" {
		t.Fatalf("restored turn 3: %v at %s", s2.World().PC().Inventory, s2.World().PC().Location)
	}
	// Acting from there starts a branch and keeps main's later turns.
	r := act(t, s2, "go south")
	if r.Turn != 4 || !strings.Contains(r.Notice, `"main-2"`) || s2.Branch() != "main-2" {
		t.Fatalf("turn %d notice %q branch %s", r.Turn, r.Notice, s2.Branch())
	}
	act(t, s2, "go east") // the rat fight begins on this branch
	if s2.World().Combat == nil {
		t.Fatal("entering the yard should start the fight")
	}
	// A named fork from main's turn 5.
	if err := s2.Switch(ctx, "main"); err != nil {
		t.Fatal(err)
	}
	if s2.Turn() != 8 || stateJSON(t, s2) != want {
		t.Fatal("switching back to main should return to its turn 8 unchanged")
	}
	if err := s2.Restore(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Fork(ctx, "alt"); err != nil {
		t.Fatal(err)
	}
	act(t, s2, "go north")
	if _, err := s2.Fork(ctx, "alt"); !errors.Is(err, game.ErrInvalid) {
		t.Errorf("duplicate fork name: %v", err)
	}
	if _, err := s2.Fork(ctx, "bad name!"); !errors.Is(err, game.ErrInvalid) {
		t.Errorf("bad fork name: %v", err)
	}
	bs, err := s2.Branches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]game.BranchInfo{}
	for _, b := range bs {
		got[b.Name] = b
	}
	if got["main"].Tip != 8 || got["main-2"].Tip != 5 || got["main-2"].ForkTurn != 3 || got["alt"].Tip != 6 || got["alt"].ForkTurn != 5 || !got["alt"].Current {
		t.Errorf("branches: %+v", bs)
	}
	if err := s2.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	// Each branch persists independently.
	s3, err := game.Open(ctx, openDB(t, dir), s.ID(), game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s3.Branch() != "alt" || s3.Turn() != 6 || s3.World().PC().Location != "hall" {
		t.Errorf("reopened at %s turn %d at %s", s3.Branch(), s3.Turn(), s3.World().PC().Location)
	}
	if err := s3.Switch(ctx, "main-2"); err != nil {
		t.Fatal(err)
	}
	if s3.World().Combat == nil || s3.Turn() != 5 {
		t.Error("main-2 should still be in its fight at turn 5")
	}
	if err := s3.Restore(ctx, 99); !errors.Is(err, game.ErrInvalid) {
		t.Errorf("restore beyond the tip: %v", err)
	}
}

// A refused action explains itself but takes no turn: the turn number,
// the game clock and the dice stay where they were, and the next turn's
// transcript keeps a note of it.
func TestRejectionTakesNoTurnAndIsNoted(t *testing.T) {
	ctx := context.Background()
	s, err := game.New(ctx, openDB(t, t.TempDir()), loadTiny(t), 1, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	act(t, s, "look")
	before := stateJSON(t, s)
	r := act(t, s, "go west")
	if r.Committed || r.Rejected == "" || !strings.Contains(r.Narrative, "north to Great Hall") {
		t.Errorf("rejected move: %+v", r)
	}
	if r := act(t, s, "frobnicate the widget"); r.Committed {
		t.Errorf("not understood, yet committed: %+v", r)
	}
	if s.Turn() != 1 || stateJSON(t, s) != before {
		t.Errorf("a refusal changed the game: turn %d", s.Turn())
	}
	if r := act(t, s, "look"); !r.Committed || r.Turn != 2 {
		t.Fatalf("the next action: %+v", r)
	}
	var md bytes.Buffer
	if err := s.Export(ctx, &md, "md"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`(before this turn, without taking one: "go west" refused: `, `"frobnicate the widget" not played: `} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the transcript lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Count(md.String(), "## Turn ") != 2 {
		t.Errorf("want two turns in the transcript:\n%s", md.String())
	}
}

func TestQueriesAndRepliesTakeNoTurn(t *testing.T) {
	s, err := game.New(context.Background(), openDB(t, t.TempDir()), loadTiny(t), 1, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"inventory", "help", "sheet", "quests", "dance a jig", ""} {
		r := act(t, s, in)
		if r.Committed || r.Narrative == "" {
			t.Errorf("%q: committed=%v narrative=%q", in, r.Committed, r.Narrative)
		}
	}
	if s.Turn() != 0 {
		t.Errorf("turn %d after queries", s.Turn())
	}
	if r := act(t, s, "inventory"); !strings.Contains(r.Narrative, "Longsword (equipped)") {
		t.Errorf("inventory: %q", r.Narrative)
	}
	if r := act(t, s, "sheet"); !strings.Contains(r.Narrative, "Wren") || !strings.Contains(r.Narrative, "HP 20/20") || !strings.Contains(r.Narrative, "Grit 2/5") {
		t.Errorf("sheet: %q", r.Narrative)
	}
	if r := act(t, s, strings.Repeat("a", game.MaxInput+1)); r.Committed || !strings.Contains(r.Narrative, "too long") {
		t.Errorf("long input: %+v", r)
	}
}

func TestConfirmationAndChoices(t *testing.T) {
	s, err := game.New(context.Background(), openDB(t, t.TempDir()), loadTiny(t), 3, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	act(t, s, "go north")
	r := act(t, s, "attack tomas")
	if r.Awaiting.Kind != game.Confirmation || r.Committed {
		t.Fatalf("attacking a friendly NPC should ask first: %+v", r)
	}
	if r = act(t, s, "no"); r.Committed || s.World().Combat != nil {
		t.Fatalf("'no' should cancel: %+v", r)
	}
	r = act(t, s, "talk to tomas")
	if r.Awaiting.Kind != game.Choice || len(r.Awaiting.Options) != 2 {
		t.Fatalf("talk should offer topics: %+v", r.Awaiting)
	}
	r = act(t, s, "2")
	if !strings.Contains(r.Narrative, "Clear it and I'll pay") {
		t.Errorf("choice 2 (rats): %q", r.Narrative)
	}
}

// failingNarrator fails after the rules have changed the state.
type failingNarrator struct{}

func (failingNarrator) Narrate(context.Context, rules.Narration, func(string)) (string, error) {
	return "", errors.New("model unavailable")
}

func TestFailedTurnLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	s, err := game.New(ctx, db, loadTiny(t), 5, game.Options{Narrator: failingNarrator{}, Interpreter: offlinegm.New()})
	if err != nil {
		t.Fatal(err)
	}
	before := stateJSON(t, s)
	if _, err := s.Act(ctx, "go north"); err == nil {
		t.Fatal("want the narrator's error")
	}
	if stateJSON(t, s) != before || s.Turn() != 0 {
		t.Error("a failed turn changed the state")
	}
}

func TestExport(t *testing.T) {
	ctx := context.Background()
	s, err := game.New(ctx, openDB(t, t.TempDir()), loadTiny(t), 9, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	act(t, s, "go north")
	act(t, s, "talk to tomas")
	var md, js bytes.Buffer
	if err := s.Export(ctx, &md, "md"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "## Turn 2\n\n> talk to tomas") || !strings.Contains(md.String(), "# Tiny Test Keep") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if err := s.Export(ctx, &js, "json"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Turns []struct {
			Number  int               `json:"number"`
			Effects []json.RawMessage `json:"effects"`
		} `json:"turns"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || len(doc.Turns) != 2 || len(doc.Turns[0].Effects) == 0 {
		t.Errorf("json export: %v %s", err, js.String())
	}
	if err := s.Export(ctx, &js, "pdf"); !errors.Is(err, game.ErrInvalid) {
		t.Errorf("unknown format: %v", err)
	}
}

// TestEverySystemPlays plays the same short game under each resolution
// system: a search, a fight to its end, a potion, and a replay check.
func TestEverySystemPlays(t *testing.T) {
	for _, system := range []string{"d20", "2d6", "traveller"} {
		t.Run(system, func(t *testing.T) {
			ctx := context.Background()
			c := loadTiny(t)
			c.Meta.System = system
			s, err := game.New(ctx, openDB(t, t.TempDir()), c, 12, game.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s.World().System != system {
				t.Fatalf("state system %q", s.World().System)
			}
			r := act(t, s, "search")
			if !strings.Contains(r.Narrative, "[Investigation ") {
				t.Errorf("search: %q", r.Narrative)
			}
			act(t, s, "go east")
			for i := 0; s.World().Combat != nil && i < 20; i++ {
				act(t, s, "attack")
			}
			if s.World().Combat != nil {
				t.Fatal("the fight did not end in 20 turns")
			}
			if pc := s.World().PC(); pc.HP < pc.MaxHP && pc.HP > 0 {
				if r := act(t, s, "drink potion"); !strings.Contains(r.Narrative, "regain") {
					t.Errorf("potion: %q", r.Narrative)
				}
			}
			if err := s.Verify(ctx); err != nil {
				t.Fatal(err)
			}
			if sheet := game.Sheet(s.World()); system == "traveller" && !strings.Contains(sheet, "DEX 12 (+2)") {
				t.Errorf("a Traveller sheet shows characteristic DMs: %s", sheet)
			}
		})
	}
}

func TestConcurrentActsAreSerialised(t *testing.T) {
	ctx := context.Background()
	s, err := game.New(ctx, openDB(t, t.TempDir()), loadTiny(t), 21, game.Options{SnapshotEvery: 4})
	if err != nil {
		t.Fatal(err)
	}
	const players, each = 4, 6
	errs := make(chan error, players)
	for p := range players {
		go func() {
			for i := range each {
				in := []string{"look", "look around", "search", "wait"}[(p+i)%4] // none refused: each is a turn
				if _, err := s.Act(ctx, in); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range players {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if s.Turn() != players*each {
		t.Fatalf("turn %d after %d acts", s.Turn(), players*each)
	}
	if err := s.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}
