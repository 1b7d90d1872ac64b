package rules

import (
	"fmt"

	"github.com/hearth-rpg/hearth/world"
)

// HostileAct is the yes/no question to ask the player before in is
// resolved, or "" when none is needed: an attack by the player, outside a
// fight, on someone present who is not hostile. Every pipeline asks it, so
// a misread word or a model's guess never starts a fight with a friend.
func HostileAct(w *world.State, in Intent) string {
	a, ok := in.(Attack)
	if !ok || w == nil || w.Combat != nil {
		return ""
	}
	if a.Attacker != "" { // by id or by name
		if c, err := Present(w, a.Attacker); err != nil || c.ID != w.Player {
			return ""
		}
	}
	ch, err := Present(w, a.Target)
	if err != nil || ch.ID == w.Player || ch.Hostile || !ch.Alive() || ch.HasCondition("dead") {
		return ""
	}
	return fmt.Sprintf("%s is not hostile. Attack anyway?", ch.Name)
}
