package world

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// DeepMerge merges patch into dst as seed 001 §2.4 defines: a null value
// removes the key, objects merge recursively, arrays and primitives
// replace. Values are copied, so dst never aliases patch.
func DeepMerge(dst, patch map[string]any) {
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
			delete(dst, k)
		case map[string]any:
			if dv, ok := dst[k].(map[string]any); ok {
				DeepMerge(dv, pv)
			} else {
				m := map[string]any{}
				DeepMerge(m, pv)
				dst[k] = m
			}
		default:
			dst[k] = copyValue(v)
		}
	}
}

// ExpandPaths returns a copy of patch with its dotted keys made paths, at
// every level: {"player.gained_knowledge": true} is {"player":
// {"gained_knowledge": true}}, as seed 001 §6.2.5 writes beat state
// patches and reads state by dotted path. Plain keys are merged first and
// dotted ones after, in key order, so the result does not depend on map
// order. A key with an empty part ("a..b", ".a") is kept as it is.
func ExpandPaths(patch map[string]any) map[string]any {
	out := map[string]any{}
	var dotted []string
	for k, v := range patch {
		if isPath(k) {
			dotted = append(dotted, k)
			continue
		}
		out[k] = expandValue(v)
	}
	slices.Sort(dotted)
	for _, k := range dotted {
		parts := strings.Split(k, ".")
		var v any = expandValue(patch[k])
		for i := len(parts) - 1; i > 0; i-- {
			v = map[string]any{parts[i]: v}
		}
		if m, ok := v.(map[string]any); ok {
			if dv, ok := out[parts[0]].(map[string]any); ok {
				DeepMerge(dv, m)
				continue
			}
		}
		out[parts[0]] = v
	}
	return out
}

func isPath(k string) bool {
	if !strings.Contains(k, ".") {
		return false
	}
	return !slices.Contains(strings.Split(k, "."), "")
}

func expandValue(v any) any {
	if m, ok := v.(map[string]any); ok {
		return ExpandPaths(m)
	}
	return copyValue(v)
}

func copyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = copyValue(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = copyValue(e)
		}
		return a
	}
	return v
}

// Clamp keeps v within the stat's range.
func (d *StatDef) Clamp(v int) int {
	if d == nil || d.Max < d.Min {
		return v
	}
	return max(d.Min, min(d.Max, v))
}

// StatDef returns the definition governing a character's stat: an
// NPC-scoped definition (npc.<id>.<stat>) wins over the campaign-wide one.
func (s *State) StatDef(character, stat string) *StatDef {
	if c := s.Characters[character]; c != nil && c.ID != s.Player {
		if d := s.StatDefs["npc."+character+"."+stat]; d != nil {
			return d
		}
	}
	return s.StatDefs[stat]
}

// number converts a JSON number (float64 after decoding, or a Go integer) to
// an int, rounding.
func number(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, false
		}
		return int(math.Round(max(math.MinInt32, min(math.MaxInt32, n)))), true
	case int:
		return n, true
	case int64:
		return int(n), true
	case json.Number:
		f, err := n.Float64()
		if err != nil {
			return 0, false
		}
		return number(f)
	}
	return 0, false
}

// applyPatch routes player.stats.*, npcs.<id>.stats.* and
// npcs.<id>.perception to the typed state (clamped to their ranges) and
// deep-merges everything else into Vars.
func (s *State) applyPatch(patch map[string]any) error {
	rest := ExpandPaths(patch)
	if p, ok := rest["player"].(map[string]any); ok {
		if stats, ok := p["stats"].(map[string]any); ok {
			pc := s.PC()
			if pc == nil {
				return fmt.Errorf("patch sets player.stats but the game has no player character")
			}
			if err := s.patchStats(pc, stats); err != nil {
				return err
			}
			delete(p, "stats")
			if len(p) == 0 {
				delete(rest, "player")
			}
		}
	}
	if npcs, ok := rest["npcs"].(map[string]any); ok {
		for id, v := range npcs {
			m, ok := v.(map[string]any)
			c := s.Characters[id]
			if !ok || c == nil {
				continue // unknown NPCs stay free-form
			}
			if stats, ok := m["stats"].(map[string]any); ok {
				if err := s.patchStats(c, stats); err != nil {
					return err
				}
				delete(m, "stats")
			}
			if p, ok := m["perception"]; ok {
				n, ok := number(p)
				if !ok {
					return fmt.Errorf("npcs.%s.perception: want a number from -100 to 100, got %v", id, p)
				}
				c.Perception, c.PerceptionAt = ClampOpinion(n), s.Time
				delete(m, "perception")
			}
			if len(m) == 0 {
				delete(npcs, id)
			}
		}
		if len(npcs) == 0 {
			delete(rest, "npcs")
		}
	}
	if factions, ok := rest["factions"].(map[string]any); ok {
		for id, v := range factions {
			m, ok := v.(map[string]any)
			f := s.Factions[id]
			if !ok || f == nil {
				continue // unknown factions stay free-form
			}
			if r, ok := m["reputation"]; ok {
				n, ok := number(r)
				if !ok {
					return fmt.Errorf("factions.%s.reputation: want a number from -100 to 100, got %v", id, r)
				}
				f.Reputation, f.ReputationAt = ClampOpinion(n), s.Time
				delete(m, "reputation")
			}
			if len(m) == 0 {
				delete(factions, id)
			}
		}
		if len(factions) == 0 {
			delete(rest, "factions")
		}
	}
	if len(rest) > 0 {
		if s.Vars == nil {
			s.Vars = map[string]any{}
		}
		DeepMerge(s.Vars, rest)
	}
	return nil
}

func (s *State) patchStats(c *Character, stats map[string]any) error {
	for _, k := range SortedKeys(stats) {
		v := stats[k]
		if v == nil {
			delete(c.Stats, k)
			continue
		}
		n, ok := number(v)
		if !ok {
			return fmt.Errorf("stat %q of %s: want a number, got %v", k, c.ID, v)
		}
		if c.Stats == nil {
			c.Stats = map[string]int{}
		}
		c.Stats[k] = s.StatDef(c.ID, k).Clamp(n)
	}
	return nil
}
