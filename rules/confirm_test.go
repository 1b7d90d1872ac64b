package rules

import (
	"testing"

	"github.com/hearth-rpg/hearth/world"
)

// An attack by the player on someone present who is not hostile asks
// first, outside a fight; nothing else does.
func TestHostileAct(t *testing.T) {
	w := tavernWorld()
	fighting := tavernWorld()
	fighting.Combat = &world.Combat{}
	inYard := tavernWorld()
	inYard.Characters["hero"].Location = "yard"
	for _, c := range []struct {
		name string
		w    *world.State
		in   Intent
		want string
	}{
		{"a friend by name", w, Attack{Target: "gareth"}, "Gareth is not hostile. Attack anyway?"},
		{"the player named as attacker", w, Attack{Attacker: "Aria", Target: "Elsa"}, "Elsa is not hostile. Attack anyway?"},
		{"a hostile creature", inYard, Attack{Target: "goblin"}, ""},
		{"someone not here", w, Attack{Target: "goblin"}, ""},
		{"an NPC attacking", w, Attack{Attacker: "gareth", Target: "elsa"}, ""},
		{"during a fight", fighting, Attack{Target: "gareth"}, ""},
		{"talking", w, Talk{NPC: "gareth"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := HostileAct(c.w, c.in); got != c.want {
				t.Errorf("HostileAct = %q, want %q", got, c.want)
			}
		})
	}
}
