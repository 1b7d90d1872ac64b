package game_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// A player beaten in the bundled campaign's cave fight goes on with the
// story: captured, robbed or left, they come to (or die by the dice),
// and every turn while down is played, never refused.
func TestDefeatContinuesTheStory(t *testing.T) {
	ctx := context.Background()
	camp, err := campaign.Load(ctx, "../campaigns/saltmere")
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]int{}
	for seed := uint64(1); seed <= 12 && len(outcomes) < 3; seed++ {
		s, err := game.New(ctx, openDB(t, t.TempDir()), camp, seed, game.Options{})
		if err != nil {
			t.Fatal(err)
		}
		act(t, s, "go west")
		for i := 0; i < 8 && !exitShown(s.World(), "clifftop", "cave"); i++ {
			act(t, s, "search")
		}
		if r := act(t, s, "go down"); s.World().Combat == nil {
			t.Fatalf("seed %d: no fight in the cave: %s", seed, r.Narrative)
		}
		// A careless hero rummages through the crates while Rook and his
		// dog go for them.
		fate := ""
		for i := 0; i < 30 && s.World().Combat != nil; i++ {
			for _, o := range act(t, s, "search").Outcomes {
				if o.Action == "defeat" {
					fate = o.Details["fate"].(string)
				}
			}
		}
		if fate == "" {
			t.Fatalf("seed %d: the fight ended without a fate: %+v", seed, s.World().PC())
		}
		for i := 0; i < 20 && rules.Down(s.World().PC()); i++ {
			r := act(t, s, []string{"get up", "attack rook", "rest", "wait"}[i%4])
			if !r.Committed || r.Rejected != "" {
				t.Fatalf("seed %d: a turn while down was refused: %+v", seed, r)
			}
		}
		pc := s.World().PC()
		switch {
		case pc.HasCondition("dead"):
			fate = "died"
			if r := act(t, s, "look"); r.Committed {
				t.Errorf("seed %d: the dead play on: %s", seed, r.Narrative)
			}
		case pc.HP <= 0:
			t.Fatalf("seed %d: still down after 20 turns: %+v", seed, pc)
		case fate == rules.FateCapture && pc.Location != "lighthouse":
			t.Errorf("seed %d: captured, but woke at %s, not where the campaign says", seed, pc.Location)
		case fate == rules.FateRob && (pc.Gold != 0 || pc.Inventory["healing_potion"] != 0):
			t.Errorf("seed %d: robbed, but keeps %d gold and %v", seed, pc.Gold, pc.Inventory)
		}
		if fate != "died" {
			// The story goes on: the hero can act again.
			if r := act(t, s, "look"); !r.Committed || r.Rejected != "" {
				t.Fatalf("seed %d (%s): cannot act after coming to: %+v", seed, fate, r)
			}
		}
		t.Logf("seed %d: %s", seed, fate)
		outcomes[fate]++
	}
	alive := 0
	for f := range outcomes {
		if f != "died" {
			alive++
		}
	}
	if alive < 3 {
		t.Errorf("outcomes %v: want three different ways the story goes on", outcomes)
	}
}

func exitShown(w *world.State, from, to string) bool {
	for _, e := range w.Locations[from].Exits {
		if e.To == to {
			return !e.Hidden
		}
	}
	return false
}

// Playing again from a restored turn rolls the same dice, unless the
// player rerolls fate; the reroll branch replays exactly.
func TestRerollFate(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	s, err := game.New(ctx, db, loadTiny(t), 7, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	act(t, s, "look")
	notes := 0
	play := func() string {
		t.Helper()
		var rolls []string
		for range 4 {
			r := act(t, s, "search")
			for _, d := range r.Rolls {
				rolls = append(rolls, d.String())
			}
			for _, e := range r.Effects {
				if n, ok := e.(world.NoteRecorded); ok && n.Note.Kind == world.NoteReroll {
					notes++
				}
			}
		}
		if len(rolls) < 4 {
			t.Fatalf("four searches rolled %v", rolls)
		}
		return strings.Join(rolls, "; ")
	}
	first := play()
	if err := s.Restore(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if again := play(); again != first {
		t.Fatalf("replaying from turn 1 rolled %q, want the same %q", again, first)
	}
	if err := s.Restore(ctx, 1); err != nil {
		t.Fatal(err)
	}
	s.Reroll()
	rerolled := play()
	if rerolled == first {
		t.Fatalf("a reroll rolled the same dice: %q", rerolled)
	}
	if notes != 1 {
		t.Errorf("%d reroll notes, want 1 (with the first turn after the reroll)", notes)
	}
	if err := s.Verify(ctx); err != nil {
		t.Fatalf("the reroll branch does not replay exactly: %v", err)
	}
	want := stateJSON(t, s)
	s2, err := game.Open(ctx, db, s.ID(), game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := stateJSON(t, s2); got != want {
		t.Fatal("the reroll branch reopens to a different state")
	}
}
