package narrative

import (
	"strings"

	"github.com/hearth-rpg/hearth/world"
)

// StateView reads plot-beat conditions from a world.State:
//   - stats by key: "health" or "player.stats.health" for the player's,
//     "npc.owen.trust" or "npcs.owen.stats.trust" for an NPC's;
//   - flags from the session state's flags object (seed 001 §2.6
//     flags.*): true, or a non-zero number, is set;
//   - the player character's location and inventory;
//   - reputation and perception as the state decays them.
//
// Use it when the world state is the source of truth for opinions; when
// narrative/sqlitenarrative holds them, wrap StateView and override those two.
type StateView struct{ S *world.State }

var _ View = StateView{}

// Stat returns a stat's value and whether it is defined.
func (v StateView) Stat(key string) (float64, bool) {
	owner, stat := v.S.PC(), key
	if rest, ok := strings.CutPrefix(key, "player.stats."); ok {
		stat = rest
	} else if rest, ok := strings.CutPrefix(key, "npcs."); ok {
		npc, s, found := strings.Cut(rest, ".stats.")
		if !found {
			return 0, false
		}
		owner, stat = v.S.Characters[npc], s
	} else if rest, ok := strings.CutPrefix(key, "npc."); ok {
		npc, s, found := strings.Cut(rest, ".")
		if !found {
			return 0, false
		}
		owner, stat = v.S.Characters[npc], s
	}
	if owner == nil {
		return 0, false
	}
	n, ok := owner.Stats[stat]
	return float64(n), ok
}

// Flag reports whether a story flag is set.
func (v StateView) Flag(name string) bool {
	flags, _ := v.S.Vars["flags"].(map[string]any)
	switch f := flags[name].(type) {
	case bool:
		return f
	case float64:
		return f != 0
	case int:
		return f != 0
	}
	return false
}

// Location returns the player character's location.
func (v StateView) Location() string {
	if pc := v.S.PC(); pc != nil {
		return pc.Location
	}
	return ""
}

// HasItem reports whether the player character carries at least one.
func (v StateView) HasItem(id string) bool {
	pc := v.S.PC()
	return pc != nil && pc.Inventory[id] > 0
}

// Reputation returns the player's standing with a faction, after decay.
func (v StateView) Reputation(faction string) float64 { return float64(v.S.Reputation(faction)) }

// Perception returns an NPC's opinion of the player, after decay.
func (v StateView) Perception(npc string) float64 { return float64(v.S.Perception(npc)) }
