package world

import (
	"slices"
	"testing"

	"github.com/hearth-rpg/hearth/access"
)

// An agent's memory is its own: a player's view keeps only their
// character's, a spectator's none, the GM's all; memory effects follow.
func TestViewKeepsOnlyOwnMemory(t *testing.T) {
	s := New(SystemD20)
	s.Locations["quay"] = &Location{ID: "quay", Name: "Quay", Visited: true}
	for _, id := range []string{"ada", "bo"} {
		s.Characters[id] = &Character{ID: id, Kind: PC, Name: id, Location: "quay"}
		s.Party = append(s.Party, PartyMember{Character: id, Controller: Controller{Kind: ControllerAI}})
	}
	s.Player = "ada"
	es := Effects{
		MemoryRecorded{Character: "ada", Entry: MemoryEntry{Turn: 1, Text: "a"}},
		MemoryRecorded{Character: "bo", Entry: MemoryEntry{Turn: 1, Text: "b", Secret: true}},
		MemoryCompressed{Character: "bo", Through: 1, Summary: "b"},
	}
	if err := s.ApplyAll(es); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		level   access.Level
		reader  string
		want    []string
		effects int
	}{
		{access.Player, "ada", []string{"ada"}, 1},
		{access.Player, "bo", []string{"bo"}, 2},
		{access.Player, "", nil, 0},
		{access.GM, "", []string{"ada", "bo"}, 3},
	}
	for _, tt := range tests {
		v := s.View(tt.level, tt.reader)
		if got := SortedKeys(v.Memory); !slices.Equal(got, tt.want) {
			t.Errorf("%v %q sees the memories of %v, want %v", tt.level, tt.reader, got, tt.want)
		}
		if got := v.VisibleEffects(es, tt.level, tt.reader); len(got) != tt.effects {
			t.Errorf("%v %q sees %d memory effects, want %d", tt.level, tt.reader, len(got), tt.effects)
		}
	}
}
