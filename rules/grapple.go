package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/world"
)

// sizes are the 5e size categories, smallest first; a character's size is
// the first of these among its tags, else medium.
var sizes = []string{"tiny", "small", "medium", "large", "huge", "gargantuan"}

func sizeOf(c *world.Character) int {
	for _, t := range c.Tags {
		if i := slices.Index(sizes, strings.ToLower(strings.TrimSpace(t))); i >= 0 {
			return i
		}
	}
	return slices.Index(sizes, "medium")
}

// betterOf is the skill among athletics and acrobatics with the larger
// bonus for c: the one a defender in a contest chooses.
func betterOf(s System, c *world.Character) string {
	if SkillBonus(s, c, "acrobatics") > SkillBonus(s, c, "athletics") {
		return "acrobatics"
	}
	return "athletics"
}

// grapple resolves a grapple, shove or escape as a 5e contest.
func (x *resolver) grapple(v Grapple) error {
	a, err := x.actor(v, v.Attacker)
	if err != nil {
		return err
	}
	maneuver := strings.ToLower(strings.TrimSpace(v.Maneuver))
	switch maneuver {
	case "", "grapple":
		maneuver = "grapple"
	case "shove", "escape", "release":
	case "let go", "let_go":
		maneuver = "release"
	default:
		return reject(v, "maneuver %q: use grapple, shove, escape or release", v.Maneuver)
	}
	switch maneuver {
	case "escape":
		return x.escape(v, a)
	case "release":
		return x.release(v, a)
	}
	if v.Target == "" {
		return reject(v, "%s whom? present: %s", maneuver, List(nameList(x.w.CharactersAt(a.Location)), "and"))
	}
	t, err := characterAt(x.w, v, v.Target, a.Location)
	if err != nil {
		return err
	}
	switch {
	case t.ID == a.ID:
		return reject(v, "%s cannot %s themselves", a.Name, maneuver)
	case t.HasCondition("dead"):
		return reject(v, "%s is already dead", t.Name)
	case maneuver == "grapple" && t.HasCondition("grappled"):
		return reject(v, "%s is already grappled", t.Name)
	case maneuver == "shove" && t.HasCondition("prone"):
		return reject(v, "%s is already prone", t.Name)
	case sizeOf(t) > sizeOf(a)+1:
		return reject(v, "%s is too big to %s: a target can be at most one size larger (%s is %s)", t.Name, maneuver, t.Name, sizes[sizeOf(t)])
	}
	if err := x.engage(v, a, t); err != nil {
		return err
	}
	skill := betterOf(x.e.sys, t)
	chk, def, err := x.contest(a, "athletics", t, skill)
	if err != nil {
		return err
	}
	o := Outcome{Actor: a.ID, Action: maneuver, Target: t.ID, Check: &chk,
		Details: map[string]any{"against": def.Total, "against_skill": skill}}
	score := fmt.Sprintf("Athletics %d against %s's %s %d", chk.Total, t.Name, titleWord(skill), def.Total)
	switch {
	case !chk.Succeeded() && maneuver == "grapple":
		o.Text = fmt.Sprintf("%s grabs at %s, who twists free (%s).", a.Name, t.Name, score)
	case !chk.Succeeded():
		o.Text = fmt.Sprintf("%s shoves %s, who keeps their feet (%s).", a.Name, t.Name, score)
	case maneuver == "grapple":
		o.Text = fmt.Sprintf("%s seizes %s and holds on (%s): %s is grappled and cannot move.", a.Name, t.Name, score, t.Name)
		o.Effects = world.Effects{world.ConditionApplied{Target: t.ID, Condition: "grappled", Reason: "grappled by " + a.Name, By: a.ID}}
	default:
		o.Text = fmt.Sprintf("%s shoves %s to the ground (%s): %s is prone.", a.Name, t.Name, score, t.Name)
		o.Effects = world.Effects{world.ConditionApplied{Target: t.ID, Condition: "prone", Reason: "shoved by " + a.Name}}
	}
	x.res.add(o)
	return nil
}

// release is a grappler letting go (5e: no action needed): of the one
// named, else of everyone they hold.
func (x *resolver) release(v Grapple, a *world.Character) error {
	held := x.w.HeldBy(a.ID)
	if len(held) == 0 {
		return reject(v, "%s is not holding anyone", a.Name)
	}
	if v.Target != "" {
		t, err := characterAt(x.w, v, v.Target, a.Location)
		if err != nil {
			return err
		}
		if !slices.Contains(held, t.ID) {
			return reject(v, "%s is not holding %s (holding: %s)", a.Name, t.Name, List(x.names(held), "and"))
		}
		held = []string{t.ID}
	}
	var es world.Effects
	for _, id := range held {
		es = append(es, world.ConditionRemoved{Target: id, Condition: "grappled"})
	}
	x.res.add(Outcome{Actor: a.ID, Action: "release", Target: held[0],
		Text: fmt.Sprintf("%s lets go of %s.", a.Name, List(x.names(held), "and")), Effects: es})
	return nil
}

func (x *resolver) names(ids []string) []string {
	var out []string
	for _, id := range ids {
		if c := x.w.Characters[id]; c != nil {
			out = append(out, c.Name)
		}
	}
	return out
}

// escape is a grappled character's contest to break free, against whoever
// holds them: their grappler; for a grapple from before grapplers were
// kept, the one named or the strongest other character present.
func (x *resolver) escape(v Grapple, a *world.Character) error {
	if !a.HasCondition("grappled") {
		return reject(v, "%s is not grappled", a.Name)
	}
	var holder *world.Character
	if a.GrappledBy != "" {
		holder = x.w.Characters[a.GrappledBy]
		if v.Target != "" && holder != nil {
			if t, err := characterAt(x.w, v, v.Target, a.Location); err == nil && t.ID != holder.ID {
				return reject(v, "%s is not holding %s; %s is", t.Name, a.Name, holder.Name)
			}
		}
		if holder != nil && (holder.Location != a.Location || !holder.Alive() || slices.ContainsFunc(world.Incapacitating, holder.HasCondition)) {
			holder = nil // no longer able to hold on
		}
	} else if v.Target != "" {
		t, err := characterAt(x.w, v, v.Target, a.Location)
		if err != nil {
			return err
		}
		holder = t
	} else {
		for _, c := range x.w.CharactersAt(a.Location) {
			if c.ID == a.ID || !c.Alive() || c.HasCondition("dead") || c.HasCondition("unconscious") {
				continue
			}
			if holder == nil || SkillBonus(x.e.sys, c, "athletics") > SkillBonus(x.e.sys, holder, "athletics") {
				holder = c
			}
		}
	}
	freed := world.Effects{world.ConditionRemoved{Target: a.ID, Condition: "grappled"}}
	if holder == nil || holder.ID == a.ID {
		x.res.add(Outcome{Actor: a.ID, Action: "escape", Text: fmt.Sprintf("No one holds %s any more; %s shakes loose.", a.Name, a.Name), Effects: freed})
		return nil
	}
	skill := betterOf(x.e.sys, a)
	chk, def, err := x.contest(a, skill, holder, "athletics")
	if err != nil {
		return err
	}
	o := Outcome{Actor: a.ID, Action: "escape", Target: holder.ID, Check: &chk,
		Details: map[string]any{"against": def.Total, "against_skill": "athletics"}}
	score := fmt.Sprintf("%s %d against %s's Athletics %d", titleWord(skill), chk.Total, holder.Name, def.Total)
	if !chk.Succeeded() {
		o.Text = fmt.Sprintf("%s strains against %s's grip and stays held (%s).", a.Name, holder.Name, score)
	} else {
		o.Text = fmt.Sprintf("%s breaks free of %s (%s).", a.Name, holder.Name, score)
		o.Effects = freed
	}
	x.res.add(o)
	return nil
}

// contest rolls a's check with skill against d's with theirs (5e): a wins
// only by beating d's total, a tie leaving things as they were. The
// returned check is a's, its target set to the total that wins.
func (x *resolver) contest(a *world.Character, skill string, d *world.Character, dskill string) (CheckResult, CheckResult, error) {
	adv := Advantage(0)
	if conditionAdvantage(a, hampering) {
		adv--
	}
	chk, err := x.roll(a, roll{Kind: "check", Skill: skill, Advantage: adv})
	if err != nil {
		return CheckResult{}, CheckResult{}, err
	}
	dadv := Advantage(0)
	if conditionAdvantage(d, hampering) {
		dadv--
	}
	def, err := x.roll(d, roll{Kind: "check", Skill: dskill, Advantage: dadv})
	if err != nil {
		return CheckResult{}, CheckResult{}, err
	}
	chk.Target = def.Total + 1
	chk.Effect = chk.Total - chk.Target
	chk.Degree = Failure
	if chk.Total >= chk.Target {
		chk.Degree = Success
	}
	return chk, def, nil
}

// engage starts a fight when the player lays hands on someone outside
// one, as an attack does; someone not hostile turns hostile.
func (x *resolver) engage(in Intent, a, t *world.Character) error {
	if x.w.Combat != nil || a.ID != x.w.Player {
		return nil
	}
	if err := x.beginCombat(in, []*world.Character{t}, in.Type()); err != nil {
		return err
	}
	if !t.Hostile {
		x.res.add(Outcome{Actor: a.ID, Action: "provoke", Target: t.ID,
			Text: fmt.Sprintf("%s turns hostile.", t.Name),
			Effects: world.Effects{
				world.NPCUpdated{ID: t.ID, Changes: map[string]any{"hostile": true, "disposition": "hostile"}},
				world.PerceptionChanged{NPC: t.ID, From: x.w.Perception(t.ID), To: world.ClampOpinion(x.w.Perception(t.ID) - 40), Reason: "attacked"},
			}})
	}
	return nil
}

func titleWord(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
