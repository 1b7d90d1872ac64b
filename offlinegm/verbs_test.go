package offlinegm

import (
	"math/rand/v2"
	"strings"
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

// Grapple, shove and breaking free are contests, not bare checks; pushing
// a thing is still strength against it.
func TestWrestlingIsAContest(t *testing.T) {
	held := saltmere(t, "cave")
	held.PC().Conditions = []string{"grappled"}
	tests := []struct {
		name, input string
		w           *world.State
		want        rules.Intent
		confirm     string
	}{
		{"grapple", "grapple the smuggler", saltmere(t, "cave"), rules.Grapple{Target: "the smuggler"}, ""},
		{"grapple the beast", "wrestle gristle", saltmere(t, "cave"), rules.Grapple{Target: "gristle"}, ""},
		{"shove", "shove Rook", saltmere(t, "cave"), rules.Grapple{Target: "rook", Maneuver: "shove"}, ""},
		{"push him over", "push him over", saltmere(t, "cave"), rules.Grapple{Target: "rook", Maneuver: "shove"}, ""},
		{"knock prone", "knock the captain prone", saltmere(t, "cave"), rules.Grapple{Target: "the captain", Maneuver: "shove"}, ""},
		{"knock down", "knock rook to the ground", saltmere(t, "cave"), rules.Grapple{Target: "rook", Maneuver: "shove"}, ""},
		{"break free", "break free", held, rules.Grapple{Maneuver: "escape"}, ""},
		{"break free of someone", "break free of rook", held, rules.Grapple{Maneuver: "escape", Target: "rook"}, ""},
		{"escape while held", "escape", held, rules.Grapple{Maneuver: "escape"}, ""},
		{"escape while free flees", "escape", saltmere(t, "cave"), rules.Flee{}, ""},
		{"grabbing a bystander asks first", "grapple nell", saltmere(t, "quay"), rules.Grapple{Target: "nell"}, "Nell Pike is not hostile. Grapple anyway?"},
		{"a thing is pushed by strength", "push the crate", saltmere(t, "cave"), rules.Check{Skill: "athletics"}, ""},
		{"knocking is still knocking", "knock on the door", saltmere(t, "lighthouse"), rules.Talk{NPC: "Tobiah Wick"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, _ := interpret(tt.w, tt.input)
			if len(in.Intents) != 1 {
				t.Fatalf("%q: %#v (reply %q), want %#v", tt.input, in.Intents, in.Reply, tt.want)
			}
			got := in.Intents[0]
			if c, ok := got.(rules.Check); ok {
				// The reason and DC are the pattern's; the skill is the point.
				got = rules.Check{Skill: c.Skill}
			}
			if got != tt.want || in.Confirm != tt.confirm {
				t.Errorf("%q: %#v confirm %q, want %#v confirm %q", tt.input, in.Intents[0], in.Confirm, tt.want, tt.confirm)
			}
		})
	}
}

// The narration gives both sides' totals, and what came of it.
func TestWrestlingIsTold(t *testing.T) {
	w := saltmere(t, "cave")
	w.PC().Skills["athletics"] = 40
	text, _ := play(t, w, rand.New(rand.NewPCG(1, 2)), "shove rook")
	for _, want := range []string{"You shove Rook off their feet: Rook is prone.", "[Athletics ", " vs Acrobatics ", "you win]"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q lacks %q", text, want)
		}
	}
	if !w.Characters["rook"].HasCondition("prone") {
		t.Error("Rook is not prone")
	}
}

// Played through the interpreter and narrator: the player's grapple is
// kept as theirs, "let go" and "release Rook" end it, and breaking free
// of Rook's hold contests Rook even with a stronger beast beside him.
func TestGrappleIsHeldByTheGrappler(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	w := saltmere(t, "cave")
	w.PC().Skills["athletics"] = 40
	steps := []struct {
		input, want string
		rookHeld    bool
	}{
		{"grapple rook", "You seize Rook and hold on", true},
		{"let go", "You let go of Rook.", false},
		{"let go", "not holding anyone", false},
		{"wrestle rook", "You seize Rook and hold on", true},
		{"release rook", "You let go of Rook.", false},
	}
	for _, s := range steps {
		text, _ := play(t, w, r, s.input)
		if !strings.Contains(text, s.want) {
			t.Errorf("%q: %q, want %q", s.input, text, s.want)
		}
		rook := w.Characters["rook"]
		if rook.HasCondition("grappled") != s.rookHeld || (rook.GrappledBy == w.Player) != s.rookHeld {
			t.Errorf("after %q: Rook grappled %v by %q, want held %v", s.input, rook.HasCondition("grappled"), rook.GrappledBy, s.rookHeld)
		}
	}

	w = saltmere(t, "cave")
	w.PC().Conditions, w.PC().GrappledBy = []string{"grappled"}, "rook"
	w.Characters["gristle"].Skills = map[string]int{"athletics": 40}
	w.PC().Skills["acrobatics"] = 40
	text, _ := play(t, w, r, "break free")
	if !strings.Contains(text, "You break free of Rook's grip") || strings.Contains(text, "Gristle's grip") {
		t.Errorf("break free: %q", text)
	}
	if w.PC().HasCondition("grappled") || w.PC().GrappledBy != "" {
		t.Errorf("still held: %v by %q", w.PC().Conditions, w.PC().GrappledBy)
	}
}

// A pronoun never stands for someone its own clause names ("ask Maren
// about him" is not about Maren), and one with no one to stand for is
// asked about, never handed back as the player typed it.
func TestPronounsAreNotTheAddressee(t *testing.T) {
	tests := []struct{ at, input, want, not string }{
		{"tavern", "ask maren about him", `Maren Holt frowns. "Who do you mean?"`, "maren?"},
		{"quay", "ask nell about her", `Nell Pike frowns. "Who do you mean?"`, "nell?"},
		{"lighthouse", "ask him about the lens", "Rook's men carried it down the cliff", "Who do you mean"},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			w := saltmere(t, tt.at)
			text, _ := play(t, w, rand.New(rand.NewPCG(1, 1)), tt.input)
			if !strings.Contains(text, tt.want) || strings.Contains(text, tt.not) {
				t.Errorf("%q: %q, want %q and no %q", tt.input, text, tt.want, tt.not)
			}
		})
	}
}
