package game_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/game"
)

// Buying a drink on the quay, where only Nell mends her nets, is refused
// with directions and takes no turn; in the tavern Maren sells it for a
// coin.
func TestBuyingNeedsATrader(t *testing.T) {
	s, err := game.New(context.Background(), openDB(t, t.TempDir()), saltmere(t), 1, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gold := func() int { return s.World().PC().Gold }
	before, turn := gold(), s.World().Turn
	steps := []struct {
		input     string
		committed bool
		paid      int
		says      string
	}{
		{"buy a drink", false, 0, "Nobody here sells drinks. Maren Holt at The Drowned Lantern does."},
		{"buy a drink from nell", false, 0, "Nell Pike does not sell drinks."},
		{"go north", true, 0, "The Drowned Lantern"},
		{"buy a drink", true, 1, "You pay Maren Holt 1 gold for a drink"},
	}
	for _, st := range steps {
		r := act(t, s, st.input)
		if r.Committed != st.committed {
			t.Fatalf("%q: committed %v, want %v\n%s", st.input, r.Committed, st.committed, r.Narrative)
		}
		if !st.committed && s.World().Turn != turn {
			t.Fatalf("%q: the turn moved from %d to %d", st.input, turn, s.World().Turn)
		}
		turn = s.World().Turn
		if got := before - gold(); got != st.paid {
			t.Errorf("%q: %d gold paid in all, want %d", st.input, got, st.paid)
		}
		if !strings.Contains(r.Narrative, st.says) {
			t.Errorf("%q: %q lacks %q", st.input, r.Narrative, st.says)
		}
	}
	if maren := s.World().Characters["maren"]; maren.Gold < 1 {
		t.Errorf("Maren has %d gold after the sale", maren.Gold)
	}
}
