package game_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/world"
)

func saltmere(t *testing.T) *campaign.Campaign {
	t.Helper()
	c, err := campaign.LoadFS(context.Background(), hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A consequence whose trigger is only words fires, played offline, on the
// turn its situation arises: the player walks into the tavern. Not on the
// turns before, and not again on a second visit.
func TestFreeTextTriggerFiresOffline(t *testing.T) {
	const hush = "The taproom falls silent as you come back in; Maren does not look up."
	c := saltmere(t)
	c.Consequences = append(c.Consequences, world.Consequence{ID: "tavern_hush",
		Trigger: "the player returns to the tavern", Description: hush,
		Then: []world.RawIntent{world.RawIntent(`{"type":"change_perception","npc":"maren","delta":-5,"reason":"came back"}`)}})
	s, err := game.New(context.Background(), openDB(t, t.TempDir()), c, 1, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fired := func() bool { return s.World().Consequences["tavern_hush"].Triggered }
	steps := []struct {
		input     string
		where     string
		fired     bool
		narrated  bool
		perceives int
	}{
		{"look", "quay", false, false, 0},
		{"talk to nell", "quay", false, false, 0},
		{"ask nell about the lights", "quay", false, false, 0},
		{"go north", "tavern", true, true, -5},
		{"go south", "quay", true, false, -5},
		{"go north", "tavern", true, false, -5},
	}
	for _, st := range steps {
		r := act(t, s, st.input)
		if got := s.World().PC().Location; got != st.where {
			t.Fatalf("%q: the player is at %s, want %s", st.input, got, st.where)
		}
		if narrated := strings.Contains(r.Narrative, hush); fired() != st.fired || narrated != st.narrated {
			t.Fatalf("%q: fired %v, narrated %v; want %v, %v\n%s", st.input, fired(), narrated, st.fired, st.narrated, r.Narrative)
		}
		if got := s.World().Perception("maren"); got != st.perceives {
			t.Errorf("%q: Maren's opinion %d, want %d (the consequence's follow-up)", st.input, got, st.perceives)
		}
	}
	if err := s.Verify(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// The bundled campaign's clock ticks with the game hours that pass in
// ordinary offline play and, full, tells its consequence and records it.
// Relighting the lantern stops it; that is the other test below.
func TestSaltmereClockTicksAndFires(t *testing.T) {
	s, err := game.New(context.Background(), openDB(t, t.TempDir()), saltmere(t), 1, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	clock := func() *world.Clock { return s.World().Clocks["next_wreck"] }
	steps := []struct {
		input string
		value int
		fired bool
	}{
		{"look", 0, false},
		{"go north", 0, false}, // 21:10
		{"rest", 1, false},     // a short rest: 22:10
		{"go south", 1, false}, // 22:20
		{"sleep", 4, true},     // a long rest: 06:20, and the dawn
	}
	for _, st := range steps {
		r := act(t, s, st.input)
		if c := clock(); c.Value != st.value || c.Fired != st.fired {
			t.Fatalf("%q (%s): clock %d/%d fired %v, want %d fired %v\n%s", st.input, s.World().Time, c.Value, c.Max, c.Fired, st.value, st.fired, r.Narrative)
		}
		if st.fired && !strings.Contains(r.Narrative, "Another boat has broken on\nthe Teeth") && !strings.Contains(r.Narrative, "Another boat has broken on the Teeth") {
			t.Errorf("the full clock was not told:\n%s", r.Narrative)
		}
	}
	w := s.World()
	var recorded, remembered bool
	for _, e := range w.Events {
		recorded = recorded || e.Name == "Next wreck"
	}
	for _, f := range w.Facts {
		remembered = remembered || strings.Contains(f.Text, "second fishing boat")
	}
	if !recorded || !remembered {
		t.Errorf("the wreck: event recorded %v, fact remembered %v", recorded, remembered)
	}
	// Full and fired, it does not fire again.
	r := act(t, s, "rest")
	if strings.Contains(r.Narrative, "Another boat") {
		t.Errorf("the clock fired twice:\n%s", r.Narrative)
	}
	if err := s.Verify(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A clock tied to a thread stops once the thread is resolved.
func TestClockStopsWithItsThread(t *testing.T) {
	c := saltmere(t)
	for i := range c.Threads {
		if c.Threads[i].ID == "who_profits" {
			c.Threads[i].Status = "resolved"
		}
	}
	s, err := game.New(context.Background(), openDB(t, t.TempDir()), c, 1, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	act(t, s, "sleep")
	if v := s.World().Clocks["next_wreck"].Value; v != 0 {
		t.Errorf("the clock ticked to %d with its thread resolved", v)
	}
}
