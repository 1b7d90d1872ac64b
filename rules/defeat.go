package rules

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/world"
)

// What a foe does with a player it has beaten (world.Character.OnDefeat).
const (
	FateCapture = "capture"
	FateRob     = "rob"
	FateLeave   = "leave"
)

// Down reports whether c is at 0 hit points and unconscious but not dead:
// their turns are death saving throws.
func Down(c *world.Character) bool {
	return c != nil && c.HasCondition("unconscious") && !c.HasCondition("dead") && c.HP <= 0
}

func (x *resolver) deathSave(v DeathSave) error {
	c, err := anyCharacter(x.w, v, v.Character)
	if err != nil {
		return err
	}
	if c.HasCondition("dead") {
		return reject(v, "%s is dead; restore an earlier turn (/restore N, or /restore N --reroll to let the dice fall anew)", c.Name)
	}
	if !Down(c) {
		return reject(v, "%s is not dying", c.Name)
	}
	o := Outcome{Actor: c.ID, Action: "death_save", Target: c.ID, Details: map[string]any{}}
	if c.HasCondition("stable") {
		es, hours, err := x.comeTo(c, "came to")
		if err != nil {
			return err
		}
		o.Action, o.Effects = "came_to", es
		o.Text = fmt.Sprintf("%d hours pass. %s comes to with 1 hit point.", hours, c.Name)
		x.res.add(o)
		return nil
	}
	d, err := x.dice("1d20", "death saving throw")
	if err != nil {
		return err
	}
	n := d.Total
	o.Amount = n
	saves := c.DeathSaves
	switch {
	case n == 20:
		o.Details["result"] = "revived"
		o.Effects, _ = healEffects(c, 1, "a natural 20 on a death saving throw")
		o.Text = fmt.Sprintf("Death saving throw: a natural 20! %s regains 1 hit point and wakes.", c.Name)
		x.res.add(o)
		return nil
	case n == 1:
		saves.Failures += 2
	case n >= 10:
		saves.Successes++
	default:
		saves.Failures++
	}
	o.Effects = world.Effects{world.DeathSavesChanged{Target: c.ID, From: c.DeathSaves, To: saves}}
	word := "success"
	if n < 10 {
		word = "failure"
	}
	o.Text = fmt.Sprintf("Death saving throw: %d, a %s (%d successes, %d failures).", n, word, saves.Successes, min(saves.Failures, 3))
	switch {
	case saves.Failures >= 3:
		o.Details["result"] = "dead"
		o.Effects = append(o.Effects, world.ConditionApplied{Target: c.ID, Condition: "dead", Reason: "three failed death saving throws"})
		o.Text += fmt.Sprintf(" %s dies.", c.Name)
	case saves.Successes >= 3:
		o.Details["result"] = "stable"
		o.Effects = append(o.Effects, world.ConditionApplied{Target: c.ID, Condition: "stable", Reason: "three successful death saving throws"},
			world.DeathSavesChanged{Target: c.ID, From: saves})
		o.Text += fmt.Sprintf(" %s is stable.", c.Name)
	default:
		o.Details["result"] = word
	}
	x.res.add(o)
	return nil
}

// comeTo is the effects of a stable character waking 1d4 hours later with
// 1 hit point (5e), and the hours.
func (x *resolver) comeTo(c *world.Character, reason string) (world.Effects, int, error) {
	d, err := x.dice("1d4", "hours until waking")
	if err != nil {
		return nil, 0, err
	}
	es := world.Effects{world.TimeAdvanced{From: x.w.Time, To: x.w.Time + world.GameTime(d.Total)*world.Hour}}
	heal, _ := healEffects(c, 1, reason)
	return append(es, heal...), d.Total, nil
}

// deathSaveEffects is what damage to a character already at 0 hit points
// does (5e): a failed death save, two on a critical hit, death when the
// damage reaches their maximum.
func deathSaveEffects(c *world.Character, amount int, crit bool) (world.Effects, string) {
	var es world.Effects
	if c.HasCondition("stable") {
		es = append(es, world.ConditionRemoved{Target: c.ID, Condition: "stable"})
	}
	saves := c.DeathSaves
	saves.Failures++
	if crit {
		saves.Failures++
	}
	es = append(es, world.DeathSavesChanged{Target: c.ID, From: c.DeathSaves, To: saves})
	if saves.Failures >= 3 || (c.MaxHP > 0 && amount >= c.MaxHP) {
		es = append(es, world.ConditionApplied{Target: c.ID, Condition: "dead", Reason: "struck while dying"})
		return es, fmt.Sprintf(" %s dies.", c.Name)
	}
	return es, fmt.Sprintf(" %s is struck while dying (%d failed death saves).", c.Name, saves.Failures)
}

// defeat is what happens when the player drops in a fight: it ends as a
// defeat and the foe who leads decides, by its campaign data and the dice,
// to capture, rob or leave them.
func (e *Engine) defeat(ctx context.Context, w *world.State, r *rand.Rand, step Step) error {
	pc := w.PC()
	var foes []*world.Character
	for _, cb := range w.Combat.Order {
		c := w.Characters[cb.ID]
		if c != nil && c.ID != pc.ID && c.Hostile && c.Alive() && !c.HasCondition("dead") &&
			!c.HasCondition("unconscious") && c.Location == pc.Location {
			foes = append(foes, c)
		}
	}
	x := &resolver{ctx: ctx, e: e, w: w, r: r, res: &Resolution{}}
	x.res.add(Outcome{Action: "combat_ended", Text: "You have been defeated.", Details: map[string]any{"outcome": world.Defeat},
		Effects: world.Effects{world.CombatEnded{Outcome: world.Defeat}}})
	if len(foes) == 0 || pc.HasCondition("dead") {
		return step(x.res)
	}
	// People lead beasts: a smuggler decides what his dog does.
	lead := foes[0]
	if i := slices.IndexFunc(foes, func(c *world.Character) bool { return c.Kind != world.Creature }); i >= 0 {
		lead = foes[i]
	}
	fate, err := x.fateOf(lead)
	if err != nil {
		return err
	}
	o := Outcome{Actor: lead.ID, Action: "defeat", Target: pc.ID, Details: map[string]any{"fate": fate}}
	switch fate {
	case FateCapture:
		to := pc.Location
		if l := w.Locations[lead.CaptureAt]; l != nil {
			to = l.ID
		}
		if to != pc.Location {
			o.Effects = append(o.Effects, world.CharacterMoved{Character: pc.ID, From: pc.Location, To: to})
		}
		es, hours, err := x.comeTo(pc, "captured and kept alive")
		if err != nil {
			return err
		}
		o.Effects = append(o.Effects, es...)
		o.Target, o.Details["location"] = to, to
		o.Text = fmt.Sprintf("%s binds your wounds: you are worth more alive. You wake %d hours later in %s, with 1 hit point.",
			lead.Name, hours, locationName(w, to))
	case FateRob:
		var taken []string
		if pc.Gold > 0 {
			o.Effects = append(o.Effects, world.GoldChanged{Character: pc.ID, From: pc.Gold, To: 0, Reason: "robbed by " + lead.Name},
				world.GoldChanged{Character: lead.ID, From: lead.Gold, To: lead.Gold + pc.Gold, Reason: "robbed " + pc.Name})
			taken = append(taken, fmt.Sprintf("%d gold", pc.Gold))
		}
		for _, id := range world.SortedKeys(pc.Inventory) {
			if slices.Contains(pc.Equipped, id) || pc.Inventory[id] <= 0 {
				continue // what you hold in your hand stays there
			}
			o.Effects = append(o.Effects, world.ItemTransferred{Item: id, Qty: pc.Inventory[id], From: pc.ID, To: lead.ID})
			taken = append(taken, itemName(w, id))
		}
		o.Details["taken"] = taken
		what := "finds nothing worth taking"
		if len(taken) > 0 {
			what = "takes " + List(taken, "and")
		}
		o.Text = fmt.Sprintf("%s goes through your pockets, %s, and leaves you for dead.", lead.Name, what)
		o.Effects = append(o.Effects, x.withdraw(foes)...)
	default:
		o.Details["fate"] = FateLeave
		o.Text = fmt.Sprintf("%s leaves you where you fell.", lead.Name)
		o.Effects = append(o.Effects, x.withdraw(foes)...)
	}
	x.res.add(o)
	return step(x.res)
}

// fateOf chooses what foe does with a beaten player, by its campaign data
// (on_defeat) or its kind, with the game's dice.
func (x *resolver) fateOf(foe *world.Character) (string, error) {
	var opts []string
	for _, f := range foe.OnDefeat {
		if f = strings.ToLower(strings.TrimSpace(f)); slices.Contains([]string{FateCapture, FateRob, FateLeave}, f) {
			opts = append(opts, f)
		}
	}
	if len(opts) == 0 {
		opts = []string{FateCapture, FateRob, FateLeave}
		if foe.Kind == world.Creature {
			opts = []string{FateLeave}
		}
	}
	if len(opts) == 1 {
		return opts[0], nil
	}
	d, err := x.dice(fmt.Sprintf("1d%d", len(opts)), "what "+foe.Name+" does with you")
	if err != nil {
		return "", err
	}
	return opts[d.Total-1], nil
}

// withdraw moves foes out through the first way out, so the fallen player
// is left alone.
func (x *resolver) withdraw(foes []*world.Character) world.Effects {
	pc := x.w.PC()
	here := x.w.Locations[pc.Location]
	if here == nil || len(visibleExits(here)) == 0 {
		return nil
	}
	to := visibleExits(here)[0].To
	var es world.Effects
	for _, f := range foes {
		es = append(es, world.CharacterMoved{Character: f.ID, From: f.Location, To: to})
	}
	return es
}

// tend is an ally's try to stabilise the dying player: a healer's kit does
// it, else a Wisdom (Medicine) check against DC 10 (5e). Allies are party
// members and companions (an NPC tagged companion, or friendly) present.
func (e *Engine) tend(ctx context.Context, w *world.State, r *rand.Rand, step Step) error {
	pc := w.PC()
	if !Down(pc) || pc.HasCondition("stable") || w.Combat != nil {
		return nil
	}
	able := func(c *world.Character) bool {
		return c != nil && c.ID != pc.ID && c.Location == pc.Location && c.Alive() && !c.Hostile &&
			!c.HasCondition("dead") && !c.HasCondition("unconscious")
	}
	var ally *world.Character
	for _, m := range w.Members() {
		if c := w.Characters[m.Character]; able(c) {
			ally = c
			break
		}
	}
	if ally == nil {
		for _, c := range w.CharactersAt(pc.Location) {
			if able(c) && c.Kind != world.Creature && (slices.Contains(c.Tags, "companion") || c.Disposition == "friendly") {
				ally = c
				break
			}
		}
	}
	if ally == nil {
		return nil
	}
	x := &resolver{ctx: ctx, e: e, w: w, r: r, res: &Resolution{}}
	o := Outcome{Actor: ally.ID, Action: "stabilise", Target: pc.ID}
	stable := world.Effects{world.ConditionApplied{Target: pc.ID, Condition: "stable", Reason: "tended by " + ally.Name},
		world.DeathSavesChanged{Target: pc.ID, From: pc.DeathSaves}}
	if kit := healersKit(w, ally, pc); kit != "" {
		o.Item, o.Effects = kit, stable
		o.Text = fmt.Sprintf("%s kneels beside you with a healer's kit and stops the bleeding. You are stable.", ally.Name)
		x.res.add(o)
		return step(x.res)
	}
	chk, err := x.roll(ally, roll{Kind: "check", Ability: "wisdom", Skill: "medicine", Target: 10})
	if err != nil {
		return err
	}
	o.Check = &chk
	if chk.Succeeded() {
		o.Effects = stable
		o.Text = fmt.Sprintf("%s presses a cloth to your wounds and the bleeding stops (Medicine %d against 10). You are stable.", ally.Name, chk.Total)
	} else {
		o.Text = fmt.Sprintf("%s tries to stop the bleeding, but it will not stop (Medicine %d against 10).", ally.Name, chk.Total)
	}
	x.res.add(o)
	return step(x.res)
}

// healersKit is a healer's kit the ally or the patient carries.
func healersKit(w *world.State, cs ...*world.Character) string {
	for _, c := range cs {
		for _, id := range world.SortedKeys(c.Inventory) {
			it := w.Items[id]
			if c.Inventory[id] > 0 && it != nil && (strings.Contains(strings.ToLower(it.Name), "healer") || strings.Contains(id, "healer")) {
				return id
			}
		}
	}
	return ""
}

func itemName(w *world.State, id string) string {
	if it := w.Items[id]; it != nil {
		return it.Name
	}
	return id
}
