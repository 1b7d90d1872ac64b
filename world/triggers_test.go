package world

import (
	"testing"
)

// village is a small world: the player on the quay, a tavern with Maren
// in it, a lighthouse, and a lens and a lantern item whose names overlap
// the tavern's.
func village(t *testing.T) *State {
	t.Helper()
	s := New(SystemD20)
	for _, l := range []Location{
		{ID: "quay", Name: "The Quay"},
		{ID: "tavern", Name: "The Drowned Lantern", Aliases: []string{"tavern", "inn"}},
		{ID: "lighthouse", Name: "Lighthouse"},
	} {
		if err := s.Apply(LocationCreated{Location: l}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []Character{
		{ID: "kestrel", Kind: PC, Name: "Kestrel", Location: "quay"},
		{ID: "maren", Kind: NPC, Name: "Maren Hale", Aliases: []string{"Maren"}, Location: "tavern"},
	} {
		if err := s.Apply(NPCCreated{NPC: c}); err != nil {
			t.Fatal(err)
		}
	}
	s.Player = "kestrel"
	for _, it := range []Item{{ID: "lens", Name: "Lighthouse lens"}, {ID: "lantern", Name: "Lantern"}} {
		if err := s.Apply(ItemCreated{Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestMatchTrigger(t *testing.T) {
	tests := []struct {
		name    string
		trigger string
		at      string
		sit     Situation
		want    bool
	}{
		{"place entered", "the player returns to the tavern", "",
			Situation{Location: "tavern", Entered: []string{"tavern"}, Present: []string{"maren"}}, true},
		{"place by its name", "when the player walks into the Drowned Lantern", "",
			Situation{Location: "tavern", Entered: []string{"tavern"}}, true},
		{"elsewhere", "the player returns to the tavern", "",
			Situation{Location: "quay", Entered: []string{"quay"}}, false},
		{"already there, nothing new", "the player returns to the tavern", "",
			Situation{Location: "tavern", Present: []string{"maren"}, Events: []string{"You look around."}}, false},
		{"character spoken to", "the player speaks with Maren", "",
			Situation{Location: "tavern", Present: []string{"maren"}, Touched: []string{"maren"}}, true},
		{"character only present", "the player speaks with Maren", "",
			Situation{Location: "tavern", Present: []string{"maren"}}, false},
		{"character and place, wrong place", "the player brings Maren to the lighthouse", "",
			Situation{Location: "tavern", Touched: []string{"maren"}}, false},
		{"item taken", "the player takes the lighthouse lens", "",
			Situation{Location: "lighthouse", Touched: []string{"lens"}}, true},
		{"at a place, elsewhere", "the player takes the lighthouse lens", "lighthouse",
			Situation{Location: "quay", Touched: []string{"lens"}}, false},
		{"words only, all there", "a storm breaks", "",
			Situation{Location: "quay", Events: []string{"The storm breaks over the harbour."}}, true},
		{"words only, one missing", "a storm breaks at midnight", "",
			Situation{Location: "quay", Events: []string{"The storm breaks over the harbour."}}, false},
		{"no content words", "when the player returns", "",
			Situation{Location: "quay", Input: "I return"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := village(t)
			c := &Consequence{ID: "c", Trigger: tt.trigger, At: tt.at}
			if got, why := s.MatchTrigger(c, tt.sit); got != tt.want {
				t.Errorf("MatchTrigger(%q) = %v (%s), want %v", tt.trigger, got, why, tt.want)
			}
		})
	}
}

// A consequence's target counts as named even when its words do not
// name it: "the old friend" is Maren by target.
func TestTriggerTargetCountsAsNamed(t *testing.T) {
	s := village(t)
	c := &Consequence{ID: "c", Trigger: "the player finds the old friend", Target: "maren"}
	if ok, _ := s.MatchTrigger(c, Situation{Location: "tavern", Present: []string{"maren"}, Entered: []string{"tavern"}, Touched: []string{"maren"}}); !ok {
		t.Error("meeting the target did not fire it")
	}
	if ok, _ := s.MatchTrigger(c, Situation{Location: "quay", Input: "I find an old friend", Events: []string{"You find the old friend."}}); ok {
		t.Error("it fired without its target, on words alone")
	}
}

// A name inside a longer one does not count as naming its own entity:
// "the Drowned Lantern" is the tavern, not the lantern item, which the
// player neither holds nor touches.
func TestTriggerNamesTheLongestName(t *testing.T) {
	s := village(t)
	if got := s.namedIn(" " + normalise("when the player enters the Drowned Lantern") + " "); len(got) != 1 || got[0] != "tavern" {
		t.Errorf("named %v, want [tavern]", got)
	}
}

func TestPendingTriggersAreTheFreeTextOnes(t *testing.T) {
	s := village(t)
	for _, c := range []Consequence{
		{ID: "b_words", Trigger: "the player returns to the tavern"},
		{ID: "a_rules", Trigger: "enter the tavern", On: OnEnter, Target: "tavern"},
		{ID: "c_done", Trigger: "the player speaks with Maren", Triggered: true},
	} {
		if err := s.Apply(ConsequenceRegistered{Consequence: c}); err != nil {
			t.Fatal(err)
		}
	}
	got := s.PendingTriggers()
	if len(got) != 1 || got[0].ID != "b_words" {
		t.Errorf("pending %v, want only b_words", got)
	}
}

func TestClockTicks(t *testing.T) {
	s := village(t)
	if err := s.Apply(ThreadUpdated{Thread: Thread{ID: "dark", Title: "Dark", Status: "open"}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		clock    Clock
		from, to GameTime
		want     int
		wantErr  bool
	}{
		{"hourly, within the hour", Clock{Every: "1h"}, 21 * Hour, 21*Hour + 50, 0, false},
		{"hourly, across the hour", Clock{Every: "1h"}, 21*Hour + 50, 22*Hour + 10, 1, false},
		{"hourly, a long rest", Clock{Every: "1h"}, 21 * Hour, 29 * Hour, 8, false},
		{"no every", Clock{}, 0, Day, 0, false},
		{"thread open", Clock{Every: "1h", Thread: "dark"}, 0, 2 * Hour, 2, false},
		{"thread gone", Clock{Every: "1h", Thread: "gone"}, 0, 2 * Hour, 0, false},
		{"already fired", Clock{Every: "1h", Fired: true}, 0, 2 * Hour, 0, false},
		{"bad duration", Clock{Every: "soon"}, 0, 2 * Hour, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.clock.Ticks(s, tt.from, tt.to)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("Ticks = %d, %v; want %d (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestClockFiresOnlyWhenFullAndRearms(t *testing.T) {
	s := village(t)
	steps := []struct {
		e       Effect
		wantErr bool
		fired   bool
	}{
		{ClockCreated{Clock: Clock{ID: "doom", Name: "Doom", Max: 2}}, false, false},
		{ClockFired{Clock: "doom"}, true, false},
		{ClockTicked{Clock: "doom", From: 0, To: 2}, false, false},
		{ClockFired{Clock: "doom"}, false, true},
		{ClockTicked{Clock: "doom", From: 2, To: 1}, false, false},
	}
	for i, st := range steps {
		err := s.Apply(st.e)
		if (err != nil) != st.wantErr {
			t.Fatalf("step %d (%s): err %v", i, st.e.Kind(), err)
		}
		if got := s.Clocks["doom"].Fired; got != st.fired {
			t.Fatalf("step %d (%s): fired %v, want %v", i, st.e.Kind(), got, st.fired)
		}
	}
}
