package rules

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/world"
)

// yardWorld puts the hero in the Yard with the goblin, the fight begun.
func yardWorld(edit func(w *world.State)) *world.State {
	w := tavernWorld()
	w.Characters["hero"].Location = "yard"
	w.Locations["yard"].Encounter = nil
	if edit != nil {
		edit(w)
	}
	return w
}

// strong gives c a bonus no d20 can overcome, so a contest's winner does
// not depend on the dice.
func strong(c *world.Character, skill string) {
	if c.Skills == nil {
		c.Skills = map[string]int{}
	}
	c.Skills[skill] = 40
}

func TestGrappleAndShoveAreContests(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(w *world.State)
		in        Intent
		won       bool
		defence   string // the skill the other side chose
		condition string // the goblin's (the hero's for escape), after
		hasIt     bool
	}{
		{"a grapple that wins", func(w *world.State) { strong(w.Characters["hero"], "athletics") },
			Grapple{Target: "goblin"}, true, "acrobatics", "grappled", true},
		{"a grapple that loses to Acrobatics", func(w *world.State) { strong(w.Characters["goblin"], "acrobatics") },
			Grapple{Target: "goblin"}, false, "acrobatics", "grappled", false},
		{"the target chooses Athletics when it is better", func(w *world.State) {
			strong(w.Characters["goblin"], "athletics")
		}, Grapple{Target: "goblin"}, false, "athletics", "grappled", false},
		{"one size larger can be grappled", func(w *world.State) {
			w.Characters["goblin"].Tags = []string{"large"}
			strong(w.Characters["hero"], "athletics")
		}, Grapple{Target: "goblin"}, true, "acrobatics", "grappled", true},
		{"a shove knocks prone", func(w *world.State) { strong(w.Characters["hero"], "athletics") },
			Grapple{Target: "goblin", Maneuver: "shove"}, true, "acrobatics", "prone", true},
		{"a shove that fails", func(w *world.State) { strong(w.Characters["goblin"], "acrobatics") },
			Grapple{Target: "goblin", Maneuver: "SHOVE"}, false, "acrobatics", "prone", false},
		{"breaking free", func(w *world.State) {
			w.Characters["hero"].Conditions = []string{"grappled"}
			strong(w.Characters["hero"], "acrobatics")
		}, Grapple{Maneuver: "escape"}, true, "athletics", "grappled", false},
		{"held fast", func(w *world.State) {
			w.Characters["hero"].Conditions = []string{"grappled"}
			strong(w.Characters["goblin"], "athletics")
		}, Grapple{Maneuver: "escape", Target: "goblin"}, false, "athletics", "grappled", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := yardWorld(tt.edit)
			res := do(t, engine(t, world.SystemD20), w, tt.in, newRand())
			i := slices.IndexFunc(res.Outcomes, func(o Outcome) bool { return o.Check != nil })
			if i < 0 {
				t.Fatalf("no contest rolled: %+v", res.Outcomes)
			}
			o := res.Outcomes[i]
			if o.Check.Succeeded() != tt.won {
				t.Errorf("won %v, want %v: %s", o.Check.Succeeded(), tt.won, o.Text)
			}
			if got := o.Details["against_skill"]; got != tt.defence {
				t.Errorf("the other side rolled %v, want %s", got, tt.defence)
			}
			if want := o.Details["against"].(int) + 1; o.Check.Target != want {
				t.Errorf("the check's target is %d, want the other total plus one (%d)", o.Check.Target, want)
			}
			if len(res.Rolls) < 2 {
				t.Errorf("%d rolls, want both sides' checks", len(res.Rolls))
			}
			who := w.Characters["goblin"]
			if g, ok := tt.in.(Grapple); ok && g.Maneuver == "escape" {
				who = w.Characters["hero"]
			}
			if who.HasCondition(tt.condition) != tt.hasIt {
				t.Errorf("%s %s: %v, want %v (%s)", who.Name, tt.condition, who.HasCondition(tt.condition), tt.hasIt, o.Text)
			}
		})
	}
}

// A tie leaves things as they were (5e): the attacker needs to beat the
// defender's total, not meet it.
func TestContestTieChangesNothing(t *testing.T) {
	e := engine(t, world.SystemD20)
	for seed := range uint64(2000) {
		w := yardWorld(nil)
		res, err := e.Resolve(ctx, w, Grapple{Target: "goblin"}, rand.New(rand.NewPCG(seed, 3)))
		if err != nil {
			t.Fatal(err)
		}
		var o Outcome
		for _, x := range res.Outcomes {
			if x.Action == "grapple" {
				o = x
			}
		}
		if o.Check == nil || o.Check.Total != o.Details["against"].(int) {
			continue
		}
		if o.Check.Succeeded() || len(o.Effects) != 0 {
			t.Fatalf("a tie at %d: won %v, effects %v", o.Check.Total, o.Check.Succeeded(), o.Effects)
		}
		return
	}
	t.Fatal("no tie in 2000 seeds; the test needs another range")
}

func TestGrappleRefusals(t *testing.T) {
	tests := []struct {
		name string
		edit func(w *world.State)
		in   Intent
		want string
	}{
		{"too big", func(w *world.State) { w.Characters["goblin"].Tags = []string{"Huge"} }, Grapple{Target: "goblin"}, "Goblin is too big to grapple"},
		{"two sizes larger is too big", func(w *world.State) {
			w.Characters["goblin"].Tags = []string{"large"}
			w.Characters["hero"].Tags = []string{"small"}
		}, Grapple{Target: "goblin", Maneuver: "shove"}, "too big to shove"},
		{"already grappled", func(w *world.State) { w.Characters["goblin"].Conditions = []string{"grappled"} }, Grapple{Target: "goblin"}, "Goblin is already grappled"},
		{"already prone", func(w *world.State) { w.Characters["goblin"].Conditions = []string{"prone"} }, Grapple{Target: "goblin", Maneuver: "shove"}, "already prone"},
		{"not held", nil, Grapple{Maneuver: "escape"}, "Aria is not grappled"},
		{"no such maneuver", nil, Grapple{Target: "goblin", Maneuver: "suplex"}, `maneuver "suplex": use grapple, shove or escape`},
		{"oneself", nil, Grapple{Target: "Aria"}, "cannot grapple themselves"},
		{"speed 0", func(w *world.State) { w.Characters["hero"].Conditions = []string{"grappled"} }, Move{Destination: "west"}, "Aria is grappled and cannot move"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := yardWorld(tt.edit)
			_, err := engine(t, world.SystemD20).Resolve(ctx, w, tt.in, newRand())
			var rej *Rejection
			if !errors.As(err, &rej) || !strings.Contains(rej.Reason, tt.want) {
				t.Fatalf("Resolve(%+v) = %v, want a refusal with %q", tt.in, err, tt.want)
			}
		})
	}
}

// Laying hands on a bystander starts a fight, as an attack does.
func TestGrapplingABystanderStartsAFight(t *testing.T) {
	w := tavernWorld()
	strong(w.Characters["hero"], "athletics")
	res := do(t, engine(t, world.SystemD20), w, Grapple{Target: "Gareth"}, newRand())
	if w.Combat == nil || !w.Characters["gareth"].Hostile {
		t.Fatalf("combat %v, Gareth hostile %v; outcomes %+v", w.Combat != nil, w.Characters["gareth"].Hostile, res.Outcomes)
	}
	if !w.Characters["gareth"].HasCondition("grappled") {
		t.Errorf("Gareth is not grappled: %+v", res.Outcomes)
	}
}
