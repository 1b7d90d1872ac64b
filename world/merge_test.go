package world

import (
	"encoding/json"
	"testing"
)

func TestPatchFactionReputation(t *testing.T) {
	s := New(SystemD20)
	s.Factions["guild"] = &Faction{ID: "guild", Name: "The Guild"}
	if err := s.Apply(StatePatched{Patch: map[string]any{"factions": map[string]any{
		"guild":   map[string]any{"reputation": 250.0},
		"unknown": map[string]any{"reputation": 5.0},
	}}}); err != nil {
		t.Fatal(err)
	}
	if s.Factions["guild"].Reputation != 100 {
		t.Errorf("reputation not clamped: %d", s.Factions["guild"].Reputation)
	}
	if _, ok := s.Vars["factions"].(map[string]any)["unknown"]; !ok {
		t.Errorf("an unknown faction's patch should stay free-form: %v", s.Vars)
	}
	if err := s.Apply(StatePatched{Patch: map[string]any{"factions": map[string]any{"guild": map[string]any{"reputation": "high"}}}}); err == nil {
		t.Error("a non-number reputation was accepted")
	}
}

// TestPatchDottedKeys checks that dotted keys in a patch land as nested
// paths (seed 001's own beat example, player.gained_knowledge), merge
// with plain keys, reach typed state, and that malformed ones stay keys.
func TestPatchDottedKeys(t *testing.T) {
	tests := []struct {
		name  string
		patch map[string]any
		want  map[string]any // expected Vars
	}{
		{"seed example", map[string]any{"player.gained_knowledge": true},
			map[string]any{"player": map[string]any{"gained_knowledge": true}}},
		{"deep", map[string]any{"world.weather.today": "fog"},
			map[string]any{"world": map[string]any{"weather": map[string]any{"today": "fog"}}}},
		{"merges with a plain key", map[string]any{"flags": map[string]any{"a": true}, "flags.b": true},
			map[string]any{"flags": map[string]any{"a": true, "b": true}}},
		{"nested dotted key", map[string]any{"npcs": map[string]any{"ghost.mood": "calm"}},
			map[string]any{"npcs": map[string]any{"ghost": map[string]any{"mood": "calm"}}}},
		{"empty part stays a key", map[string]any{"a..b": 1.0, ".c": 2.0},
			map[string]any{"a..b": 1.0, ".c": 2.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(SystemD20)
			if err := s.Apply(StatePatched{Patch: tt.patch}); err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(s.Vars)
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) {
				t.Errorf("vars = %s, want %s", got, want)
			}
		})
	}
	t.Run("typed stats", func(t *testing.T) {
		s := New(SystemD20)
		s.Characters["pc"] = &Character{ID: "pc", Kind: PC}
		s.Player = "pc"
		s.StatDefs["courage"] = &StatDef{ID: "courage", Min: 0, Max: 10}
		if err := s.Apply(StatePatched{Patch: map[string]any{"player.stats.courage": 50.0}}); err != nil {
			t.Fatal(err)
		}
		if got := s.Characters["pc"].Stats["courage"]; got != 10 {
			t.Errorf("player.stats.courage = %d, want 10 (clamped)", got)
		}
		if _, ok := s.Vars["player.stats.courage"]; ok {
			t.Errorf("dotted key stored literally: %v", s.Vars)
		}
	})
}
