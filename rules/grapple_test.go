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
		{"no such maneuver", nil, Grapple{Target: "goblin", Maneuver: "suplex"}, `maneuver "suplex": use grapple, shove, escape or release`},
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

// A grapple keeps who holds whom, as world effects (so a restored, forked
// or replayed game keeps it too): breaking free contests that grappler;
// the grapple ends when they let go, are incapacitated or are apart; a
// grappler who walks drags the grappled along at half speed, and one who
// flees lets go.
func TestGrappleKeepsItsGrappler(t *testing.T) {
	// held puts the hero and goblin in the Yard, outside a fight, with
	// holder grappling held; an ogre, far stronger than the goblin, stands
	// by.
	held := func(holder, heldOne string) func(w *world.State) {
		return func(w *world.State) {
			w.Combat = nil
			w.Characters["ogre"] = &world.Character{ID: "ogre", Kind: world.Creature, Name: "Ogre", Location: "yard",
				Sheet: world.Sheet{HP: 30, MaxHP: 30, Abilities: map[string]int{"strength": 19}}}
			strong(w.Characters["ogre"], "athletics")
			c := w.Characters[heldOne]
			c.Conditions, c.GrappledBy = []string{"grappled"}, holder
		}
	}
	type want struct {
		who, by  string // who is grappled, by whom ("" for free)
		where    string // where who is after
		text     string // in the outcomes' text
		rejected string // a refusal with this, instead
	}
	tests := []struct {
		name  string
		edit  func(w *world.State)
		steps []any // intents, or world effects applied as they are
		want  want
	}{
		{"a grapple keeps its grappler", func(w *world.State) { w.Combat = nil; strong(w.Characters["hero"], "athletics") },
			[]any{Grapple{Target: "goblin"}}, want{who: "goblin", by: "hero", where: "yard", text: "Aria seizes Goblin"}},
		{"breaking free contests the grappler, not the strongest present", func(w *world.State) {
			held("goblin", "hero")(w)
			strong(w.Characters["hero"], "acrobatics")
		}, []any{Grapple{Maneuver: "escape"}}, want{who: "hero", where: "yard", text: "Aria breaks free of Goblin"}},
		{"held fast by the grappler", func(w *world.State) {
			held("goblin", "hero")(w)
			strong(w.Characters["goblin"], "athletics")
		}, []any{Grapple{Maneuver: "escape"}}, want{who: "hero", by: "goblin", where: "yard", text: "strains against Goblin's grip"}},
		{"breaking free of someone else is refused", held("goblin", "hero"),
			[]any{Grapple{Maneuver: "escape", Target: "ogre"}}, want{rejected: "Ogre is not holding Aria; Goblin is"}},
		{"letting go", held("hero", "goblin"),
			[]any{Grapple{Maneuver: "release"}}, want{who: "goblin", where: "yard", text: "Aria lets go of Goblin."}},
		{"letting go, by name", held("hero", "goblin"),
			[]any{Grapple{Maneuver: "let go", Target: "goblin"}}, want{who: "goblin", where: "yard", text: "Aria lets go of Goblin."}},
		{"letting go of someone not held", held("hero", "goblin"),
			[]any{Grapple{Maneuver: "release", Target: "ogre"}}, want{rejected: "Aria is not holding Ogre (holding: Goblin)"}},
		{"letting go, holding no one", held("ogre", "goblin"),
			[]any{Grapple{Maneuver: "release"}}, want{rejected: "Aria is not holding anyone"}},
		{"the grappler knocked out", held("goblin", "hero"),
			[]any{world.ConditionApplied{Target: "goblin", Condition: "unconscious"}}, want{who: "hero", where: "yard"}},
		{"the grappler killed", held("hero", "goblin"),
			[]any{Damage{Target: "hero", Amount: 200}}, want{who: "goblin", where: "yard"}},
		{"the grappler stunned: the grappled shakes loose", func(w *world.State) {
			held("goblin", "hero")(w)
			w.Characters["goblin"].Conditions = []string{"stunned"} // from before grapplers were let go of
		}, []any{Grapple{Maneuver: "escape"}}, want{who: "hero", where: "yard", text: "No one holds Aria any more"}},
		{"a grappler who walks drags", held("hero", "goblin"),
			[]any{Move{Destination: "west"}}, want{who: "goblin", by: "hero", where: "tankard", text: "Aria goes west to the Rusty Tankard, dragging Goblin along."}},
		{"an NPC drags the player", held("goblin", "hero"),
			[]any{Move{Character: "goblin", Destination: "west"}}, want{who: "hero", by: "goblin", where: "tankard", text: "dragging Aria along"}},
		{"a grappler who flees lets go", func(w *world.State) {
			held("hero", "goblin")(w)
			w.Combat = &world.Combat{Order: []world.Combatant{{ID: "hero"}, {ID: "goblin"}}}
			strong(w.Characters["hero"], "athletics")
			strong(w.Characters["hero"], "acrobatics")
		}, []any{Flee{Destination: "west"}}, want{who: "goblin", where: "yard", text: "Aria lets go of Goblin, breaks away"}},
		{"carried apart by anything else", held("goblin", "hero"),
			[]any{world.CharacterMoved{Character: "goblin", From: "yard", To: "tankard"}}, want{who: "hero", where: "yard"}},
		{"the grappled taken from the grappler", held("goblin", "hero"),
			[]any{world.CharacterMoved{Character: "hero", From: "yard", To: "street"}}, want{who: "hero", where: "street"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := yardWorld(tt.edit)
			start := w.Time
			e := engine(t, world.SystemD20)
			var text strings.Builder
			var applied world.Effects
			for _, s := range tt.steps {
				switch s := s.(type) {
				case Intent:
					res, err := e.Resolve(ctx, w, s, newRand())
					var rej *Rejection
					if errors.As(err, &rej) {
						if tt.want.rejected == "" || !strings.Contains(rej.Reason, tt.want.rejected) {
							t.Fatalf("refused: %v; want %q", rej.Reason, tt.want.rejected)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					for _, o := range res.Outcomes {
						text.WriteString(o.Text + " ")
					}
					if err := w.ApplyAll(res.Effects()); err != nil {
						t.Fatal(err)
					}
					applied = append(applied, res.Effects()...)
				case world.Effect:
					if err := w.Apply(s); err != nil {
						t.Fatal(err)
					}
					applied = append(applied, s)
				}
			}
			if tt.want.rejected != "" {
				t.Fatalf("not refused: %s", text.String())
			}
			c := w.Characters[tt.want.who]
			if got := c.HasCondition("grappled"); got != (tt.want.by != "") || c.GrappledBy != tt.want.by {
				t.Errorf("%s grappled %v by %q, want by %q (%s)", c.Name, got, c.GrappledBy, tt.want.by, text.String())
			}
			if c.Location != tt.want.where {
				t.Errorf("%s is in %s, want %s (%s)", c.Name, c.Location, tt.want.where, text.String())
			}
			if !strings.Contains(text.String(), tt.want.text) {
				t.Errorf("told %q, want %q", text.String(), tt.want.text)
			}
			if strings.Contains(tt.want.text, "dragging") && w.Time-start != 2*moveTime {
				t.Errorf("dragging took %v, want twice the way's %v", w.Time-start, moveTime)
			}
			// Replayed from its effects, as a restore or fork does, the
			// game comes to the same grapple.
			b, err := applied.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			var again world.Effects
			if err := again.UnmarshalJSON(b); err != nil {
				t.Fatal(err)
			}
			w2 := yardWorld(tt.edit)
			if err := w2.ApplyAll(again); err != nil {
				t.Fatal(err)
			}
			if c2 := w2.Characters[tt.want.who]; c2.GrappledBy != c.GrappledBy || c2.HasCondition("grappled") != c.HasCondition("grappled") || c2.Location != c.Location {
				t.Errorf("replayed: %s grappled by %q in %s, played: by %q in %s", c2.Name, c2.GrappledBy, c2.Location, c.GrappledBy, c.Location)
			}
		})
	}
}
