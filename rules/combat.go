package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/world"
)

// Conditions that hamper the one who has them, or help those who attack
// them (5e).
var (
	hampering = []string{"poisoned", "frightened", "blinded", "exhausted"}
	exposing  = []string{"prone", "restrained", "stunned", "paralyzed", "unconscious", "blinded"}
)

func conditionAdvantage(c *world.Character, list []string) bool {
	return slices.ContainsFunc(list, c.HasCondition)
}

func clampAdv(a Advantage) Advantage { return max(-1, min(1, a)) }

// characterAt finds a character at a location, the player included.
func characterAt(w *world.State, in Intent, ref, location string) (*world.Character, error) {
	if isSelf(ref) {
		return pcOrReject(w, in)
	}
	var here []*world.Character
	if pc := w.PC(); pc != nil && pc.Location == location {
		here = append(here, pc)
	}
	here = append(here, w.CharactersAt(location)...)
	hits := match(ref, characterCands(here))
	switch len(hits) {
	case 1:
		return w.Characters[hits[0].id], nil
	case 0:
		return nil, reject(in, "there is no %q at %s; present: %s", ref, locationName(w, location), List(nameList(here), "and"))
	}
	return nil, reject(in, "%q could mean %s; say which", ref, names(hits))
}

// actor resolves who performs an intent: empty means the player.
func (x *resolver) actor(in Intent, ref string) (*world.Character, error) {
	c, err := anyCharacter(x.w, in, ref)
	if err != nil {
		return nil, err
	}
	if !c.Alive() || c.HasCondition("unconscious") || c.HasCondition("dead") {
		if c.ID == x.w.Player {
			if Down(c) {
				return nil, reject(in, "you are unconscious at 0 hit points: each turn you make a death saving throw (type wait), until you are stable, healed or an ally tends you")
			}
			return nil, reject(in, "you are dead; restore an earlier turn (/restore N, or /restore N --reroll to let the dice fall anew)")
		}
		return nil, reject(in, "%s cannot act: %s", c.Name, stateWord(c))
	}
	return c, nil
}

func stateWord(c *world.Character) string {
	switch {
	case c.HasCondition("dead"):
		return "dead"
	case !c.Alive() || c.HasCondition("unconscious"):
		return "unconscious"
	}
	return "able"
}

// weapon is what an attack is made with.
type weapon struct {
	name, damage, damageType, item string
	bonus                          int
}

func (x *resolver) weaponOf(in Intent, a *world.Character, ref string) (weapon, error) {
	sys := x.e.sys
	pcStyle := func(it *world.Item) weapon {
		best := "strength"
		for i, ab := range it.Ability {
			ab = normalAbility(ab)
			if i == 0 || a.Abilities[ab] > a.Abilities[best] {
				best = ab
			}
		}
		mod := 0
		if score, ok := a.Abilities[best]; ok {
			mod = sys.AbilityModifier(score)
		}
		bonus := mod
		if sys.Name() == world.SystemD20 {
			bonus += a.ProficiencyBonus
		} else {
			bonus += max(a.Skills["melee"], a.Skills["ranged"], a.Skills["combat"])
		}
		dmg := it.Damage
		if mod != 0 {
			dmg = fmt.Sprintf("%s%+d", dmg, mod)
		}
		return weapon{name: it.Name, damage: dmg, damageType: it.DamageType, item: it.ID, bonus: bonus}
	}
	if ref != "" {
		for _, at := range a.Attacks {
			if len(match(ref, []named{{at.Name, at.Name, nil}})) == 1 {
				return weapon{name: at.Name, damage: at.Damage, damageType: at.DamageType, bonus: at.Bonus}, nil
			}
		}
		it, err := holding(x.w, in, a.Inventory, ref, a.Name)
		if err != nil {
			if len(a.Attacks) > 0 {
				var opts []string
				for _, at := range a.Attacks {
					opts = append(opts, at.Name)
				}
				return weapon{}, reject(in, "%s has no weapon or attack %q; attacks: %s", a.Name, ref, List(opts, "and"))
			}
			return weapon{}, err
		}
		if it.Damage == "" {
			return weapon{}, reject(in, "%s is not a weapon", it.Name)
		}
		return pcStyle(it), nil
	}
	for _, id := range a.Equipped {
		if it := x.w.Items[id]; it != nil && it.Damage != "" && a.Inventory[id] > 0 {
			return pcStyle(it), nil
		}
	}
	if len(a.Attacks) > 0 {
		at := a.Attacks[0]
		return weapon{name: at.Name, damage: at.Damage, damageType: at.DamageType, bonus: at.Bonus}, nil
	}
	for _, id := range world.SortedKeys(a.Inventory) {
		if it := x.w.Items[id]; it != nil && it.Damage != "" && it.Type == "weapon" {
			return pcStyle(it), nil
		}
	}
	mod := 0
	if s, ok := a.Abilities["strength"]; ok {
		mod = sys.AbilityModifier(s)
	}
	return weapon{name: "bare fists", damage: fmt.Sprintf("1%+d", mod), damageType: "bludgeoning",
		bonus: mod + a.ProficiencyBonus}, nil
}

func (x *resolver) attack(v Attack) error {
	a, err := x.actor(v, v.Attacker)
	if err != nil {
		return err
	}
	if v.Target == "" {
		return reject(v, "attack whom? present: %s", List(nameList(x.w.CharactersAt(a.Location)), "and"))
	}
	t, err := characterAt(x.w, v, v.Target, a.Location)
	if err != nil {
		return err
	}
	if t.ID == a.ID {
		return reject(v, "%s cannot attack themselves", a.Name)
	}
	if t.HasCondition("dead") {
		return reject(v, "%s is already dead", t.Name)
	}
	wp, err := x.weaponOf(v, a, v.Weapon)
	if err != nil {
		return err
	}
	adv, err := ParseAdvantage(v.Advantage)
	if err != nil {
		return reject(v, "%v", err)
	}
	if err := x.engage(v, a, t); err != nil {
		return err
	}
	return x.strike(a, t, wp, adv)
}

// strike resolves one attack roll and its damage.
func (x *resolver) strike(a, t *world.Character, wp weapon, adv Advantage) error {
	sys := x.e.sys
	if conditionAdvantage(a, hampering) {
		adv--
	}
	if conditionAdvantage(t, exposing) || !t.Alive() {
		adv++
	}
	target := sys.DefaultDC()
	if sys.Name() == world.SystemD20 {
		target = armourClass(t)
	}
	hit, err := x.roll(a, roll{Kind: "attack", Target: target, Bonus: wp.bonus, Advantage: clampAdv(adv)})
	if err != nil {
		return err
	}
	o := Outcome{Actor: a.ID, Action: "attack", Target: t.ID, Item: wp.item, Check: &hit,
		Details: map[string]any{"weapon": wp.name}}
	if !hit.Succeeded() {
		o.Text = fmt.Sprintf("%s attacks %s with %s and misses (%d against %d).", a.Name, t.Name, wp.name, hit.Total, hit.Target)
		x.res.add(o)
		return nil
	}
	dmg, err := x.dice(wp.damage, wp.name+" damage")
	if err != nil {
		return fmt.Errorf("damage of %s (%s): %w", wp.name, wp.damage, err)
	}
	amount := dmg.Total
	if sys.CriticalDamage(hit) {
		extra, err := x.dice(wp.damage, wp.name+" critical damage")
		if err != nil {
			return err
		}
		for _, term := range extra.Terms {
			if len(term.Dice) > 0 {
				amount += term.Value
			}
		}
	}
	amount += sys.DamageBonus(hit)
	amount -= sys.Armor(t)
	if hit.Degree == Partial {
		amount = (amount + 1) / 2
	}
	amount = max(amount, 1) // a hit always hurts a little
	o.Amount = amount
	o.Details["damage_type"] = wp.damageType
	crit := ""
	if hit.Degree == CriticalSuccess && sys.Name() == world.SystemD20 {
		crit = " A critical hit!"
		o.Details["critical"] = true
	}
	effects, fate, err := x.harm(t, amount, fmt.Sprintf("%s's %s", a.Name, wp.name), crit != "")
	if err != nil {
		return err
	}
	o.Effects = effects
	o.Text = fmt.Sprintf("%s hits %s with %s for %d damage.%s%s", a.Name, t.Name, wp.name, amount, crit, fate)
	x.res.add(o)
	return nil
}

// hurt returns the effects of amount damage to c and a sentence on their
// fate, if it changed.
// A critical hit on a dying player counts as two failed death saves.
func hurt(w *world.State, c *world.Character, amount int, reason string, crit bool) (world.Effects, string) {
	var es world.Effects
	if c.TempHP > 0 {
		absorbed := min(c.TempHP, amount)
		es = append(es, world.TempHPChanged{Target: c.ID, From: c.TempHP, To: c.TempHP - absorbed})
		amount -= absorbed
	}
	if amount <= 0 {
		return es, ""
	}
	if c.HP == 0 {
		if Down(c) {
			more, fate := deathSaveEffects(c, amount, crit)
			return append(es, more...), fate
		}
		return es, ""
	}
	to := max(0, c.HP-amount)
	es = append(es, world.HPChanged{Target: c.ID, From: c.HP, To: to, Reason: reason})
	if to > 0 {
		return es, ""
	}
	if c.ID == w.Player || w.InParty(c.ID) {
		if c.MaxHP > 0 && amount-c.HP >= c.MaxHP {
			// Massive damage (5e): what is left over reaches the maximum.
			es = append(es, world.ConditionApplied{Target: c.ID, Condition: "dead", Reason: "massive damage"})
			return es, fmt.Sprintf(" %s is killed outright.", c.Name)
		}
		es = append(es, world.ConditionApplied{Target: c.ID, Condition: "unconscious", Reason: "dropped to 0 hit points"})
		if c.DeathSaves != (world.DeathSaves{}) {
			es = append(es, world.DeathSavesChanged{Target: c.ID, From: c.DeathSaves})
		}
		return es, fmt.Sprintf(" %s falls unconscious and is dying.", c.Name)
	}
	es = append(es, world.ConditionApplied{Target: c.ID, Condition: "dead", Reason: "dropped to 0 hit points"})
	return es, fmt.Sprintf(" %s falls and does not rise.", c.Name)
}

func (x *resolver) damage(v Damage) error {
	t, err := anyCharacter(x.w, v, v.Target)
	if err != nil {
		return err
	}
	amount := v.Amount
	if v.Dice != "" {
		res, err := x.dice(v.Dice, "damage")
		if err != nil {
			return reject(v, "bad damage dice: %v", err)
		}
		amount = res.Total
	}
	if amount <= 0 {
		return reject(v, "damage needs a positive amount or dice such as 2d6")
	}
	effects, fate, err := x.harm(t, amount, v.Reason, false)
	if err != nil {
		return err
	}
	x.res.add(Outcome{Action: "damage", Target: t.ID, Amount: amount, Effects: effects,
		Text:    fmt.Sprintf("%s takes %d %sdamage%s.%s", t.Name, amount, suffixSpace(v.DamageType), reasonText(v.Reason), fate),
		Details: map[string]any{"damage_type": v.DamageType}})
	return nil
}

func suffixSpace(s string) string {
	if s == "" {
		return ""
	}
	return s + " "
}

func reasonText(r string) string {
	if r == "" {
		return ""
	}
	return " from " + r
}

// healEffects returns the effects of healing c by amount (capped at the
// maximum), waking them if they were down.
func healEffects(c *world.Character, amount int, reason string) (world.Effects, int) {
	to := c.HP + amount
	if c.MaxHP > 0 {
		to = min(to, c.MaxHP)
	}
	gained := to - c.HP
	var es world.Effects
	if gained > 0 {
		es = append(es, world.HPChanged{Target: c.ID, From: c.HP, To: to, Reason: reason})
	}
	if c.HasCondition("unconscious") && to > 0 {
		es = append(es, world.ConditionRemoved{Target: c.ID, Condition: "unconscious"})
	}
	if c.HasCondition("stable") && to > 0 {
		es = append(es, world.ConditionRemoved{Target: c.ID, Condition: "stable"})
	}
	if c.DeathSaves != (world.DeathSaves{}) && to > 0 {
		es = append(es, world.DeathSavesChanged{Target: c.ID, From: c.DeathSaves})
	}
	return es, gained
}

func (x *resolver) heal(v Heal) error {
	t, err := anyCharacter(x.w, v, v.Target)
	if err != nil {
		return err
	}
	if t.HasCondition("dead") {
		return reject(v, "%s is dead; healing cannot help", t.Name)
	}
	amount := v.Amount
	if v.Dice != "" {
		res, err := x.dice(v.Dice, "healing")
		if err != nil {
			return reject(v, "bad healing dice: %v", err)
		}
		amount = res.Total
	}
	if amount <= 0 {
		return reject(v, "healing needs a positive amount or dice such as 2d4+2")
	}
	es, gained := healEffects(t, amount, v.Reason)
	x.res.add(Outcome{Action: "heal", Target: t.ID, Amount: gained, Effects: es,
		Text: fmt.Sprintf("%s regains %d hit points (%d/%d).", t.Name, gained, t.HP+gained, t.MaxHP)})
	return nil
}

func (x *resolver) applyCondition(v ApplyCondition) error {
	t, err := anyCharacter(x.w, v, v.Target)
	if err != nil {
		return err
	}
	if strings.TrimSpace(v.Condition) == "" {
		return reject(v, "which condition? e.g. poisoned, prone, frightened")
	}
	cond := strings.ToLower(strings.TrimSpace(v.Condition))
	if t.HasCondition(cond) {
		return reject(v, "%s is already %s", t.Name, cond)
	}
	x.res.add(Outcome{Action: "condition", Target: t.ID, Text: fmt.Sprintf("%s is now %s.", t.Name, cond),
		Effects: world.Effects{world.ConditionApplied{Target: t.ID, Condition: cond, Reason: v.Reason}}})
	return nil
}

func (x *resolver) removeCondition(v RemoveCondition) error {
	t, err := anyCharacter(x.w, v, v.Target)
	if err != nil {
		return err
	}
	if !t.HasCondition(v.Condition) {
		if len(t.Conditions) == 0 {
			return reject(v, "%s has no conditions", t.Name)
		}
		return reject(v, "%s is not %s; conditions: %s", t.Name, v.Condition, List(t.Conditions, "and"))
	}
	x.res.add(Outcome{Action: "condition_removed", Target: t.ID, Text: fmt.Sprintf("%s is no longer %s.", t.Name, v.Condition),
		Effects: world.Effects{world.ConditionRemoved{Target: t.ID, Condition: v.Condition}}})
	return nil
}

// beginCombat rolls initiative for the player and foes (and any hostile
// character present) and starts the fight.
func (x *resolver) beginCombat(in Intent, foes []*world.Character, why string) error {
	pc := x.w.PC()
	if pc == nil {
		return reject(in, "the game has no player character")
	}
	seen := map[string]bool{pc.ID: true}
	all := []*world.Character{pc}
	for _, f := range foes {
		if !seen[f.ID] {
			seen[f.ID] = true
			all = append(all, f)
		}
	}
	for _, c := range x.w.CharactersAt(pc.Location) {
		if c.Hostile && c.Alive() && !c.HasCondition("dead") && !seen[c.ID] {
			seen[c.ID] = true
			all = append(all, c)
		}
	}
	var order []world.Combatant
	for _, c := range all {
		ini, err := x.roll(c, roll{Kind: "initiative", Ability: "dexterity"})
		if err != nil {
			return err
		}
		order = append(order, world.Combatant{ID: c.ID, Initiative: ini.Total})
	}
	// Highest first; ties go to the player, then by ID, so order is stable.
	slices.SortStableFunc(order, func(a, b world.Combatant) int {
		return cmp.Or(b.Initiative-a.Initiative, boolCmp(a.ID == pc.ID, b.ID == pc.ID), strings.Compare(a.ID, b.ID))
	})
	var parts []string
	for _, cb := range order {
		parts = append(parts, fmt.Sprintf("%s %d", x.w.Characters[cb.ID].Name, cb.Initiative))
	}
	var encounter string
	if l := x.w.Locations[pc.Location]; l != nil && l.Encounter != nil && !l.Encounter.Triggered {
		encounter = l.ID
	}
	x.res.add(Outcome{Action: "combat_started", Target: pc.Location,
		Text:    "A fight breaks out! Initiative: " + strings.Join(parts, ", ") + ".",
		Effects: world.Effects{world.CombatStarted{Location: pc.Location, Order: order, Encounter: encounter}},
		Details: map[string]any{"reason": why}})
	return nil
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

func (x *resolver) startCombat(v StartCombat) error {
	if x.w.Combat != nil {
		return reject(v, "a fight is already going on (round %d)", x.w.Combat.Round)
	}
	pc, err := pcOrReject(x.w, v)
	if err != nil {
		return err
	}
	var foes []*world.Character
	for _, ref := range v.Combatants {
		c, err := characterAt(x.w, v, ref, pc.Location)
		if err != nil {
			return err
		}
		if c.ID != pc.ID {
			foes = append(foes, c)
		}
	}
	if len(foes) == 0 {
		for _, c := range x.w.CharactersAt(pc.Location) {
			if c.Hostile && c.Alive() && !c.HasCondition("dead") {
				foes = append(foes, c)
			}
		}
	}
	if len(foes) == 0 {
		return reject(v, "no one here is hostile; name who fights (present: %s)", List(nameList(x.w.CharactersAt(pc.Location)), "and"))
	}
	return x.beginCombat(v, foes, v.Reason)
}

func (x *resolver) endCombat(v EndCombat) error {
	if x.w.Combat == nil {
		return reject(v, "no fight is going on")
	}
	switch v.Outcome {
	case world.Victory, world.Defeat, world.Fled, world.Truce:
	default:
		return reject(v, "outcome %q: use victory, defeat, fled or truce", v.Outcome)
	}
	x.res.add(Outcome{Action: "combat_ended", Text: "The fight is over: " + v.Outcome + ".",
		Effects: world.Effects{world.CombatEnded{Outcome: v.Outcome}}, Details: map[string]any{"outcome": v.Outcome}})
	return nil
}

func (x *resolver) flee(v Flee) error {
	c, err := x.actor(v, v.Character)
	if err != nil {
		return err
	}
	if x.w.Combat == nil {
		return reject(v, "there is no fight to flee; just go somewhere")
	}
	if c.HasCondition("grappled") {
		return reject(v, "%s is grappled and cannot move; break free first", c.Name)
	}
	here := x.w.Locations[c.Location]
	if here == nil || len(visibleExits(here)) == 0 {
		return reject(v, "there is nowhere to run")
	}
	exit := visibleExits(here)[0]
	if v.Destination != "" {
		if exit, err = findExit(x.w, v, here, v.Destination); err != nil {
			return err
		}
	}
	if exit.Locked {
		return reject(v, "the way to %s is locked", locationName(x.w, exit.To))
	}
	foes := 0
	for _, cb := range x.w.Combat.Order {
		if f := x.w.Characters[cb.ID]; f != nil && f.ID != c.ID && f.Alive() && !f.HasCondition("dead") {
			foes++
		}
	}
	skill := "athletics"
	if c.Abilities["dexterity"] > c.Abilities["strength"] {
		skill = "acrobatics"
	}
	chk, err := x.roll(c, roll{Kind: "check", Skill: skill, Target: 8 + 2*foes})
	if err != nil {
		return err
	}
	o := Outcome{Actor: c.ID, Action: "flee", Target: exit.To, Check: &chk}
	if !chk.Succeeded() {
		o.Text = fmt.Sprintf("%s tries to break away but is cut off (%d against %d).", c.Name, chk.Total, chk.Target)
		x.res.add(o)
		return nil
	}
	o.Text = fmt.Sprintf("%s breaks away and flees to %s.", c.Name, locationName(x.w, exit.To))
	o.Effects = world.Effects{world.CombatEnded{Outcome: world.Fled}}
	// No one is dragged out of a fight at a run: a grappler who flees
	// lets go.
	if held := x.w.HeldBy(c.ID); len(held) > 0 {
		o.Text = fmt.Sprintf("%s lets go of %s, breaks away and flees to %s.", c.Name, List(x.names(held), "and"), locationName(x.w, exit.To))
		for _, id := range held {
			o.Effects = append(o.Effects, world.ConditionRemoved{Target: id, Condition: "grappled"})
		}
	}
	o.Effects = append(o.Effects, world.CharacterMoved{Character: c.ID, From: c.Location, To: exit.To})
	x.res.add(o)
	return nil
}
