package narrative

import (
	"testing"

	"github.com/hearth-rpg/hearth/world"
)

func TestStateView(t *testing.T) {
	s := world.New(world.System2d6)
	s.Player = "hero"
	s.Characters["hero"] = &world.Character{ID: "hero", Location: "camelot", Stats: map[string]int{"health": 40},
		Inventory: map[string]int{"excalibur": 1, "rope": 0}}
	s.Characters["owen"] = &world.Character{ID: "owen", Stats: map[string]int{"trust": 6}, Perception: 45}
	s.Factions["knights"] = &world.Faction{ID: "knights", Reputation: 35}
	s.Vars = map[string]any{"flags": map[string]any{"met_owen": true, "count": 2.0, "off": false}}
	v := StateView{s}

	for key, want := range map[string]float64{"health": 40, "player.stats.health": 40, "npc.owen.trust": 6, "npcs.owen.stats.trust": 6} {
		if got, ok := v.Stat(key); !ok || got != want {
			t.Errorf("Stat(%q) = %v, %v; want %v", key, got, ok, want)
		}
	}
	for _, key := range []string{"mana", "npc.nobody.trust", "npcs.owen.trust", "npc.owen"} {
		if _, ok := v.Stat(key); ok {
			t.Errorf("Stat(%q) found", key)
		}
	}
	if !v.Flag("met_owen") || !v.Flag("count") || v.Flag("off") || v.Flag("missing") {
		t.Error("flags read wrong")
	}
	if v.Location() != "camelot" || !v.HasItem("excalibur") || v.HasItem("rope") || v.HasItem("grail") {
		t.Error("location or items read wrong")
	}
	if v.Reputation("knights") != 35 || v.Perception("owen") != 45 {
		t.Error("opinions read wrong")
	}
	// The view drives a beat end to end.
	c, _ := ParseCondition("reputation knights > 30")
	ds, err := EvaluateBeats([]Beat{{ID: "audience", Conditions: []Condition{c, {Kind: CondItem, Key: "excalibur"}}}}, v, BeatLog{}, 1, BeatOptions{})
	if err != nil || ds[0].Action != Trigger {
		t.Errorf("beat over the world view: %+v, %v", ds, err)
	}
}
