package offlinegm

import (
	"testing"

	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// Only a trader sells; anywhere else the player is told where one is and
// no turn passes.
func TestBuyNeedsTrader(t *testing.T) {
	dead := saltmere(t, "tavern")
	dead.Characters["maren"].HP = 0
	dead.Characters["maren"].Conditions = []string{"dead"}
	tests := []struct {
		name, input string
		w           *world.State
		want        rules.Intent // nil: a reply, no turn
		reply       string
	}{
		{"a drink on the quay", "buy a drink", saltmere(t, "quay"), nil, "Nobody here sells drinks. Maren Holt at The Drowned Lantern does."},
		{"a meal from Nell", "buy a meal from nell", saltmere(t, "quay"), nil, "Nell Pike does not sell food. Maren Holt at The Drowned Lantern does."},
		{"browsing on the quay", "shop", saltmere(t, "quay"), nil, "Nobody here sells anything. Maren Holt at The Drowned Lantern does."},
		{"a drink in the tavern", "buy a drink", saltmere(t, "tavern"), rules.GiveItem{Item: "gold", Qty: 1, To: "Maren Holt"}, ""},
		{"a room from Maren", "buy a room from maren", saltmere(t, "tavern"), rules.GiveItem{Item: "gold", Qty: 1, To: "maren"}, ""},
		{"goods are asked about", "buy rope", saltmere(t, "tavern"), rules.Talk{NPC: "Maren Holt", Topic: "rope"}, ""},
		{"no trader left alive", "buy a drink", dead, nil, "Nobody here sells drinks. You know of no one hereabouts who trades."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := interpret(tt.w, tt.input)
			if tt.want == nil {
				if len(in.Intents) != 0 || in.Reply != tt.reply {
					t.Fatalf("%q: intents %v, reply %q; want no intents and %q", tt.input, in.Intents, in.Reply, tt.reply)
				}
				return
			}
			if len(in.Intents) != 1 || in.Intents[0] != tt.want {
				t.Fatalf("%q: %#v (reply %q), want %#v", tt.input, in.Intents, in.Reply, tt.want)
			}
		})
	}
}
