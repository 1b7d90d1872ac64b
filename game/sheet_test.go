package game_test

import (
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/world"
)

// The sheet shows the skill bonus the rolls use (ability modifier
// included), and no hit points for a character that has none.
func TestSheetShowsWhatTheRollsUse(t *testing.T) {
	tests := []struct {
		name   string
		sheet  world.Sheet
		want   []string
		absent []string
	}{
		{name: "skill with its ability", sheet: world.Sheet{HP: 5, MaxHP: 12,
			Abilities: map[string]int{"strength": 14, "wisdom": 8}, Skills: map[string]int{"athletics": 2, "perception": 2}},
			want: []string{"athletics +4", "perception +1", "HP 5/12"}},
		{name: "spell slots and concentration", sheet: world.Sheet{HP: 9, MaxHP: 9,
			SpellSlots: map[int]int{1: 4, 2: 2}, SpellSlotsUsed: map[int]int{1: 1, 2: 2},
			Concentration: &world.Concentration{Spell: "Hold Person", Targets: []string{"pc"}, Condition: "paralyzed"}},
			want: []string{"Spell slots: 1st 3/4, 2nd 0/2", "Concentrating on Hold Person, holding Wren paralyzed"}},
		{name: "no hit points", sheet: world.Sheet{Abilities: map[string]int{"charisma": 12}},
			absent: []string{"HP 0/0", "HP "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := world.New(world.SystemD20)
			w.Player = "pc"
			w.Locations = map[string]*world.Location{"here": {ID: "here", Name: "Here"}}
			w.Characters = map[string]*world.Character{"pc": {ID: "pc", Kind: world.PC, Name: "Wren", Location: "here", Sheet: tc.sheet}}
			got := game.Sheet(w) + "\n" + game.Status(w, 1, "main")
			for _, s := range tc.want {
				if !strings.Contains(got, s) {
					t.Errorf("missing %q in:\n%s", s, got)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(got, s) {
					t.Errorf("%q shown in:\n%s", s, got)
				}
			}
		})
	}
}
