package world

import "testing"

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
