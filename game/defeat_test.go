package game_test

import (
	"context"
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
