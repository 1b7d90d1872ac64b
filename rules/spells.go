package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/spell"
	"github.com/hearth-rpg/hearth/world"
)

// SetSpells installs the spell book cast_spell reads; without one the
// engine uses the bundled SRD's.
func (e *Engine) SetSpells(b *spell.Book) { e.book = b }

// Spells returns the engine's spell book.
func (e *Engine) Spells() (*spell.Book, error) {
	if e.book != nil {
		return e.book, nil
	}
	return spell.SRD()
}

// held are the conditions under which a character can take no turn.
var held = []string{"paralyzed", "stunned", "incapacitated", "petrified"}

// shielded is the condition a Shield-like spell (a 1-round bonus to AC)
// leaves until the caster's next turn: +5 AC, the SRD Shield's figure.
const shielded = "shielded"

// casterAbility is the class's spellcasting ability (SRD), unless the
// sheet names one.
func casterAbility(c *world.Character) string {
	if a := normalAbility(c.SpellcastingAbility); a != "" {
		return a
	}
	switch strings.ToLower(c.Class) {
	case "wizard":
		return "intelligence"
	case "cleric", "druid", "ranger":
		return "wisdom"
	case "bard", "paladin", "sorcerer", "warlock":
		return "charisma"
	}
	return ""
}

// spellNumbers are a caster's spell save DC, spell attack bonus and
// spellcasting modifier: 8 + proficiency + modifier, proficiency +
// modifier. A sheet without a casting ability keeps its own figures.
func (x *resolver) spellNumbers(c *world.Character) (dc, attack, mod int) {
	ab := casterAbility(c)
	score, ok := c.Abilities[ab]
	if ab == "" || !ok {
		if c.SpellSaveDC > 0 {
			return c.SpellSaveDC, c.SpellAttackBonus, c.SpellAttackBonus - c.ProficiencyBonus
		}
		return 8 + c.ProficiencyBonus, c.ProficiencyBonus, 0
	}
	mod = x.e.sys.AbilityModifier(score)
	return 8 + c.ProficiencyBonus + mod, c.ProficiencyBonus + mod, mod
}

// knows checks that c may cast s: a sheet that lists spells or cantrips
// must list it; otherwise the spell must be on the class's list; a
// character without a class (a monster) may cast any spell it is told to.
func knows(in Intent, c *world.Character, s *spell.Spell) error {
	listed := slices.Concat(c.Cantrips, c.SpellsKnown)
	if len(listed) > 0 {
		for _, n := range listed {
			if spell.Key(n) == spell.Key(s.Name) {
				return nil
			}
		}
		return reject(in, "%s does not know %s; they know %s", c.Name, s.Name, List(listed, "and"))
	}
	class := strings.ToLower(c.Class)
	if len(c.SpellSlots) == 0 && casterAbility(c) == "" && c.SpellSaveDC == 0 {
		if class != "" {
			return reject(in, "%s is a %s and casts no spells; attack, use an item or try something else", c.Name, class)
		}
		return reject(in, "%s casts no spells", c.Name)
	}
	if class != "" && len(s.Classes) > 0 && !slices.Contains(s.Classes, class) {
		return reject(in, "%s is not a %s spell (it is on the %s lists)", s.Name, class, List(s.Classes, "and"))
	}
	return nil
}

// slotFor picks the slot a spell is cast with: the one asked for, or the
// lowest left at the spell's level or above. 0 is a cantrip.
func slotFor(in Intent, c *world.Character, s *spell.Spell, asked int) (int, error) {
	if s.Level == 0 {
		return 0, nil
	}
	if asked > 0 {
		if asked < s.Level || asked > 9 {
			return 0, reject(in, "%s is %s; cast it with a slot of level %d to 9", s.Name, s.LevelName(), s.Level)
		}
		if c.SlotsLeft(asked) == 0 {
			return 0, reject(in, "%s has no %s-level spell slot left (%s); a long rest restores them", c.Name, spell.Ordinal(asked), slotList(c))
		}
		return asked, nil
	}
	for l := s.Level; l <= 9; l++ {
		if c.SlotsLeft(l) > 0 {
			return l, nil
		}
	}
	if len(c.SpellSlots) == 0 {
		return 0, reject(in, "%s has no spell slots, so only cantrips; %s is %s", c.Name, s.Name, s.LevelName())
	}
	return 0, reject(in, "%s has no spell slot of %s level or higher left (%s); a long rest restores them, and cantrips need none",
		c.Name, spell.Ordinal(s.Level), slotList(c))
}

// slotList writes "1st 0/2, 2nd 1/1".
func slotList(c *world.Character) string {
	var parts []string
	for _, l := range slices.Sorted(maps.Keys(c.SpellSlots)) {
		parts = append(parts, fmt.Sprintf("%s %d/%d", spell.Ordinal(l), c.SlotsLeft(l), c.SpellSlots[l]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// areaCap is how many characters an area holds when the caster names none:
// one per 5 feet of a cone, cube or line, two per 5 feet of radius.
func areaCap(a spell.Area) int {
	switch a.Shape {
	case "sphere", "cylinder", "hemisphere":
		return max(1, 2*a.Size/5)
	}
	return max(1, a.Size/5)
}

// foesOf are the characters present who stand against c, alive.
func (x *resolver) foesOf(c *world.Character) []*world.Character {
	friendly := c.ID == x.w.Player || x.w.InParty(c.ID) || !c.Hostile
	var out []*world.Character
	here := x.w.CharactersAt(c.Location)
	if pc := x.w.PC(); pc != nil && pc.Location == c.Location && !slices.Contains(here, pc) {
		here = append([]*world.Character{pc}, here...)
	}
	for _, o := range here {
		if o.ID == c.ID || !o.Alive() || o.HasCondition("dead") {
			continue
		}
		if friendly == o.Hostile {
			out = append(out, o)
		}
	}
	return out
}

// spellTargets resolves who a spell is aimed at.
func (x *resolver) spellTargets(v CastSpell, c *world.Character, s *spell.Spell, slot int) ([]*world.Character, error) {
	refs := slices.Clone(v.Targets)
	if v.At != "" && Normalise(v.At) != Normalise(locationName(x.w, c.Location)) && Normalise(v.At) != Normalise(c.Location) {
		refs = append([]string{v.At}, refs...)
	}
	self := strings.HasPrefix(strings.ToLower(s.Range), "self") && s.Area.Size == 0
	if self {
		if len(refs) > 0 && !(len(refs) == 1 && (isSelf(refs[0]) || refs[0] == c.ID)) {
			return nil, reject(v, "%s has a range of self; it affects only %s", s.Name, c.Name)
		}
		return []*world.Character{c}, nil
	}
	var out []*world.Character
	add := func(t *world.Character) {
		if !slices.ContainsFunc(out, func(o *world.Character) bool { return o.ID == t.ID }) {
			out = append(out, t)
		}
	}
	for _, ref := range refs {
		if s.Area.Size > 0 {
			// An area may name a group: "the goblins".
			ts, err := x.charactersAt(v, ref, c.Location)
			if err != nil {
				return nil, err
			}
			for _, t := range ts {
				add(t)
			}
			continue
		}
		t, err := characterAt(x.w, v, ref, c.Location)
		if err != nil {
			return nil, err
		}
		add(t)
	}
	if len(out) == 0 {
		switch {
		case s.Area.Size > 0:
			out = x.foesOf(c)
			if len(out) == 0 {
				return nil, reject(v, "no foe is here for %s to catch; name who is in its area", s.Name)
			}
			out = out[:min(len(out), areaCap(s.Area))]
		case s.Harmful():
			foes := x.foesOf(c)
			if len(foes) != 1 {
				return nil, reject(v, "cast %s at whom? present: %s", s.Name, List(nameList(x.w.CharactersAt(c.Location)), "and"))
			}
			out = foes
		default:
			out = []*world.Character{c} // a healing or helping spell on oneself
		}
	}
	limit := 1 + s.Higher.Targets*(max(slot, s.Level)-s.Level)
	switch {
	case s.Area.Size > 0:
		limit = max(len(out), areaCap(s.Area))
	case s.Projectiles > 0:
		limit = s.Projectiles + s.Higher.Projectiles*(max(slot, s.Level)-s.Level)
	case s.Healing != "" && strings.Contains(strings.ToLower(s.Text), "creatures of your choice"):
		limit = 6
	}
	if len(out) > limit {
		return nil, reject(v, "%s at this level affects at most %d; name fewer", s.Name, limit)
	}
	for _, t := range out {
		if t.HasCondition("dead") {
			return nil, reject(v, "%s is dead", t.Name)
		}
	}
	return out, nil
}

// charactersAt finds every character at a location a reference means, so
// an area spell can take "the goblins".
func (x *resolver) charactersAt(in Intent, ref, location string) ([]*world.Character, error) {
	if isSelf(ref) {
		c, err := pcOrReject(x.w, in)
		return []*world.Character{c}, err
	}
	var here []*world.Character
	if pc := x.w.PC(); pc != nil && pc.Location == location {
		here = append(here, pc)
	}
	here = append(here, x.w.CharactersAt(location)...)
	hits := match(ref, characterCands(here))
	if len(hits) == 0 {
		return nil, reject(in, "there is no %q at %s; present: %s", ref, locationName(x.w, location), List(nameList(here), "and"))
	}
	var out []*world.Character
	for _, h := range hits {
		if c := x.w.Characters[h.id]; c != nil && !c.HasCondition("dead") {
			out = append(out, c)
		}
	}
	return out, nil
}

// castSpell resolves CastSpell.
func (x *resolver) castSpell(v CastSpell) error {
	if x.e.sys.Name() != world.SystemD20 {
		return reject(v, "this campaign's rules (%s) have no spell list; describe the magic and the game master will call for a check", x.e.sys.Name())
	}
	c, err := x.actor(v, v.Caster)
	if err != nil {
		return err
	}
	if i := slices.IndexFunc(held, c.HasCondition); i >= 0 {
		return reject(v, "%s is %s and cannot cast", c.Name, held[i])
	}
	book, err := x.e.Spells()
	if err != nil {
		return fmt.Errorf("spell book: %w", err)
	}
	if strings.TrimSpace(v.Spell) == "" {
		return reject(v, "cast which spell? e.g. fire bolt, magic missile, cure wounds")
	}
	s, ok := book.Lookup(v.Spell)
	if !ok {
		msg := fmt.Sprintf("there is no spell %q in the spell list", v.Spell)
		if near := book.Near(v.Spell, 4); len(near) > 0 {
			msg += "; did you mean " + List(near, "or") + "?"
		}
		if known := slices.Concat(c.Cantrips, c.SpellsKnown); len(known) > 0 {
			msg += " " + c.Name + " knows " + List(known, "and") + "."
		}
		return unresolved(v, "%s", msg)
	}
	if err := knows(v, c, s); err != nil {
		return err
	}
	slot, err := slotFor(v, c, s, v.SlotLevel)
	if err != nil {
		return err
	}
	targets, err := x.spellTargets(v, c, s, slot)
	if err != nil {
		return err
	}
	dc, attackBonus, mod := x.spellNumbers(c)

	// A harmful spell at someone opens a fight, as an attack does.
	round := 0
	if x.w.Combat != nil {
		round = x.w.Combat.Round
	}
	if s.Harmful() && x.w.Combat == nil && c.ID == x.w.Player {
		var foes []*world.Character
		for _, t := range targets {
			if t.ID != c.ID {
				foes = append(foes, t)
			}
		}
		if len(foes) > 0 {
			if err := x.beginCombat(v, foes, "spell"); err != nil {
				return err
			}
			round = 1
			for _, t := range foes {
				if !t.Hostile && !x.w.InParty(t.ID) {
					x.res.add(Outcome{Actor: c.ID, Action: "provoke", Target: t.ID, Text: fmt.Sprintf("%s turns hostile.", t.Name),
						Effects: world.Effects{
							world.NPCUpdated{ID: t.ID, Changes: map[string]any{"hostile": true, "disposition": "hostile"}},
							world.PerceptionChanged{NPC: t.ID, From: x.w.Perception(t.ID), To: world.ClampOpinion(x.w.Perception(t.ID) - 40), Reason: "attacked with a spell"},
						}})
				}
			}
		}
	}

	cast := Outcome{Actor: c.ID, Action: "cast_spell", Details: map[string]any{"spell": s.Name, "level": s.Level, "slot": slot}}
	how := "a cantrip"
	if slot > 0 {
		cast.Effects = append(cast.Effects, world.SpellSlotSpent{Character: c.ID, Level: slot, Spell: s.Name})
		how = fmt.Sprintf("a %s-level slot, %d left", spell.Ordinal(slot), c.SlotsLeft(slot)-1)
	}
	cast.Text = fmt.Sprintf("%s casts %s (%s).", c.Name, s.Name, how)
	// Casting a concentration spell ends the one held before.
	freed := map[string]bool{}
	if cc := c.Concentration; cc != nil && s.Concentration {
		cast.Effects = append(cast.Effects, endConcentration(x.w, c, "cast "+s.Name)...)
		cast.Text += fmt.Sprintf(" %s lets %s go.", c.Name, cc.Spell)
		for _, t := range cc.Targets {
			freed[t] = true
		}
	}
	if !s.Harmful() && s.Healing == "" && s.ACBonus == 0 {
		cast.Details["effect"] = firstSentence(s.Text)
		cast.Text += " " + firstSentence(s.Text)
	}
	at := len(x.res.Outcomes)
	x.res.add(cast)

	var holding []string // targets the spell now holds with a condition
	gain := max(slot, s.Level) - s.Level
	damage := spell.AddDice(s.Damage, s.Higher.Dice, gain)
	if s.Level == 0 {
		damage = spell.AddDice(s.Damage, s.Cantrip.Dice, cantripTier(c.Level)-1)
	}
	hurtBy := map[string]int{} // damage per target, dealt at once
	var order []*world.Character
	deal := func(t *world.Character, n int) {
		if _, ok := hurtBy[t.ID]; !ok {
			order = append(order, t)
		}
		hurtBy[t.ID] += n
	}
	switch {
	case s.Attack != "":
		n := max(1, s.Projectiles+s.Higher.Projectiles*gain)
		for i := range n {
			t := targets[i%len(targets)]
			if err := x.spellAttack(c, t, s, damage, attackBonus, deal); err != nil {
				return err
			}
		}
	case s.Save != "":
		var rolled int
		if damage != "" {
			res, err := x.dice(damage, s.Name+" damage")
			if err != nil {
				return fmt.Errorf("%s damage %q: %w", s.Name, damage, err)
			}
			rolled = res.Total
		}
		for _, t := range targets {
			chk, err := x.roll(t, roll{Kind: "save", Ability: s.Save, Target: dc})
			if err != nil {
				return err
			}
			o := Outcome{Actor: c.ID, Action: "spell_save", Target: t.ID, Check: &chk, Details: map[string]any{"spell": s.Name}}
			verdict := "resists"
			if !chk.Succeeded() {
				verdict = "fails"
			}
			o.Text = fmt.Sprintf("%s %s the %s saving throw (%d against %d).", t.Name, verdict, capitalise(s.Save), chk.Total, dc)
			amount := 0
			switch {
			case !chk.Succeeded():
				amount = rolled
				for _, cond := range s.Conditions {
					if !t.HasCondition(cond) || freed[t.ID] {
						o.Effects = append(o.Effects, world.ConditionApplied{Target: t.ID, Condition: cond, Reason: s.Name})
						o.Text += fmt.Sprintf(" %s is %s.", t.Name, cond)
					}
					if !slices.Contains(holding, t.ID) {
						holding = append(holding, t.ID)
					}
				}
			case s.SaveHalf:
				amount = rolled / 2
			}
			x.res.add(o)
			if amount > 0 {
				deal(t, amount)
			}
		}
	case damage != "":
		// No attack and no save: the darts strike home.
		n := max(1, s.Projectiles+s.Higher.Projectiles*gain)
		for i := range n {
			t := targets[i%len(targets)]
			res, err := x.dice(damage, s.Name+" damage")
			if err != nil {
				return fmt.Errorf("%s damage %q: %w", s.Name, damage, err)
			}
			deal(t, res.Total)
		}
	case len(s.Conditions) > 0:
		for _, t := range targets {
			for _, cond := range s.Conditions {
				x.res.add(Outcome{Actor: c.ID, Action: "spell_condition", Target: t.ID, Text: fmt.Sprintf("%s is %s.", t.Name, cond),
					Effects: world.Effects{world.ConditionApplied{Target: t.ID, Condition: cond, Reason: s.Name}}})
			}
			holding = append(holding, t.ID)
		}
	}
	for _, t := range order {
		amount := hurtBy[t.ID]
		es, fate, err := x.harm(t, amount, c.Name+"'s "+s.Name, false)
		if err != nil {
			return err
		}
		x.res.add(Outcome{Actor: c.ID, Action: "spell_damage", Target: t.ID, Amount: amount, Effects: es,
			Details: map[string]any{"spell": s.Name, "damage_type": s.DamageType},
			Text:    fmt.Sprintf("%s deals %s %d %sdamage.%s", s.Name, t.Name, amount, suffixSpace(s.DamageType), fate)})
	}
	if s.Healing != "" {
		heal := spell.AddDice(s.Healing, s.Higher.Dice, gain)
		if s.HealingAddsModifier && mod != 0 {
			heal = fmt.Sprintf("%s%+d", heal, mod)
		}
		for _, t := range targets {
			res, err := x.dice(heal, s.Name+" healing")
			if err != nil {
				return fmt.Errorf("%s healing %q: %w", s.Name, heal, err)
			}
			es, gained := healEffects(t, max(1, res.Total), c.Name+"'s "+s.Name)
			x.res.add(Outcome{Actor: c.ID, Action: "spell_heal", Target: t.ID, Amount: gained, Effects: es,
				Details: map[string]any{"spell": s.Name},
				Text:    fmt.Sprintf("%s regains %d hit points (%d/%d).", t.Name, gained, t.HP+gained, t.MaxHP)})
		}
	}
	if s.ACBonus > 0 && s.Rounds() == 1 && !c.HasCondition(shielded) {
		x.res.add(Outcome{Actor: c.ID, Action: "spell_ward", Target: c.ID,
			Text:    fmt.Sprintf("A barrier of force surrounds %s: +%d AC until their next turn.", c.Name, shieldBonus),
			Effects: world.Effects{world.ConditionApplied{Target: c.ID, Condition: shielded, Reason: s.Name}}})
	}
	// A spell that holds its targets and held none is over at once.
	if s.Concentration && (len(s.Conditions) == 0 || len(holding) > 0) {
		cc := world.Concentration{Spell: s.Name, Targets: holding, DC: dc}
		if len(holding) > 0 && len(s.Conditions) > 0 {
			cc.Condition = s.Conditions[0]
			if s.RepeatSave {
				cc.Save = s.Save
			}
		}
		if r := s.Rounds(); r > 0 && round > 0 {
			cc.EndsRound = round + r
		}
		x.res.Outcomes[at].Effects = append(x.res.Outcomes[at].Effects, world.ConcentrationStarted{Character: c.ID, Concentration: cc})
		x.res.Outcomes[at].Text += fmt.Sprintf(" %s concentrates on it.", c.Name)
	}
	return nil
}

// shieldBonus is what the shielded condition adds to armour class.
const shieldBonus = 5

// spellAttack rolls one spell attack and, on a hit, its damage.
func (x *resolver) spellAttack(c, t *world.Character, s *spell.Spell, damage string, bonus int, deal func(*world.Character, int)) error {
	adv := Advantage(0)
	if conditionAdvantage(c, hampering) {
		adv--
	}
	if conditionAdvantage(t, exposing) || !t.Alive() {
		adv++
	}
	hit, err := x.roll(c, roll{Kind: "attack", Target: armourClass(t), Bonus: bonus, Advantage: clampAdv(adv)})
	if err != nil {
		return err
	}
	o := Outcome{Actor: c.ID, Action: "spell_attack", Target: t.ID, Check: &hit, Details: map[string]any{"spell": s.Name}}
	if !hit.Succeeded() {
		o.Text = fmt.Sprintf("%s misses %s (%d against AC %d).", s.Name, t.Name, hit.Total, hit.Target)
		x.res.add(o)
		return nil
	}
	res, err := x.dice(damage, s.Name+" damage")
	if err != nil {
		return fmt.Errorf("%s damage %q: %w", s.Name, damage, err)
	}
	amount := res.Total
	o.Text = fmt.Sprintf("%s hits %s (%d against AC %d).", s.Name, t.Name, hit.Total, hit.Target)
	if hit.Degree == CriticalSuccess {
		extra, err := x.dice(damage, s.Name+" critical damage")
		if err != nil {
			return err
		}
		for _, term := range extra.Terms {
			if len(term.Dice) > 0 {
				amount += term.Value
			}
		}
		o.Text += " A critical hit!"
		o.Details["critical"] = true
	}
	x.res.add(o)
	deal(t, max(1, amount))
	return nil
}

// armourClass is t's AC as attacks meet it, a Shield spell included.
func armourClass(t *world.Character) int {
	ac := t.AC
	if ac == 0 {
		ac = 10
	}
	if t.HasCondition(shielded) {
		ac += shieldBonus
	}
	return ac
}

// cantripTier is how many times a cantrip's dice count at a caster level:
// 1, then 2 at 5th, 3 at 11th, 4 at 17th.
func cantripTier(level int) int {
	switch {
	case level >= 17:
		return 4
	case level >= 11:
		return 3
	case level >= 5:
		return 2
	}
	return 1
}

// harm is hurt plus what damage does to concentration: a caster who drops
// ends their spell; one still standing makes a Constitution save against
// DC 10 or half the damage, whichever is higher, and fails it to lose the
// spell and the conditions it held.
func (x *resolver) harm(t *world.Character, amount int, reason string, crit bool) (world.Effects, string, error) {
	es, fate := hurt(x.w, t, amount, reason, crit)
	cc := t.Concentration
	if cc == nil || amount <= 0 {
		return es, fate, nil
	}
	for _, e := range es {
		if ca, ok := e.(world.ConditionApplied); ok && ca.Target == t.ID && (ca.Condition == "unconscious" || ca.Condition == "dead") {
			return append(es, endConcentration(x.w, t, "fell")...), fate + fmt.Sprintf(" %s ends.", cc.Spell), nil
		}
	}
	dc := max(10, amount/2)
	chk, err := x.roll(t, roll{Kind: "save", Ability: "constitution", Target: dc})
	if err != nil {
		return nil, "", err
	}
	if chk.Succeeded() {
		return es, fate + fmt.Sprintf(" %s holds concentration on %s (Constitution save %d against %d).", t.Name, cc.Spell, chk.Total, dc), nil
	}
	return append(es, endConcentration(x.w, t, "lost concentration")...),
		fate + fmt.Sprintf(" %s loses concentration (Constitution save %d against %d): %s ends.", t.Name, chk.Total, dc, cc.Spell), nil
}

// endConcentration ends c's spell and the conditions it still holds.
func endConcentration(w *world.State, c *world.Character, reason string) world.Effects {
	cc := c.Concentration
	if cc == nil {
		return nil
	}
	es := world.Effects{world.ConcentrationEnded{Character: c.ID, Spell: cc.Spell, Reason: reason}}
	if cc.Condition == "" {
		return es
	}
	for _, id := range cc.Targets {
		if t := w.Characters[id]; t != nil && t.HasCondition(cc.Condition) {
			es = append(es, world.ConditionRemoved{Target: id, Condition: cc.Condition})
		}
	}
	return es
}

// endOfTurn is what happens as t's turn ends: each spell holding t with a
// repeatable save lets it try again, and a success frees it.
func (x *resolver) endOfTurn(t *world.Character) error {
	for _, id := range world.SortedKeys(x.w.Characters) {
		caster := x.w.Characters[id]
		cc := caster.Concentration
		if cc == nil || cc.Save == "" || !slices.Contains(cc.Targets, t.ID) || !t.HasCondition(cc.Condition) {
			continue
		}
		chk, err := x.roll(t, roll{Kind: "save", Ability: cc.Save, Target: cc.DC})
		if err != nil {
			return err
		}
		o := Outcome{Actor: t.ID, Action: "spell_save", Target: caster.ID, Check: &chk, Details: map[string]any{"spell": cc.Spell}}
		if !chk.Succeeded() {
			o.Text = fmt.Sprintf("%s strains against %s and stays %s (%s save %d against %d).", t.Name, cc.Spell, cc.Condition, capitalise(cc.Save), chk.Total, cc.DC)
			x.res.add(o)
			continue
		}
		o.Text = fmt.Sprintf("%s breaks free of %s (%s save %d against %d).", t.Name, cc.Spell, capitalise(cc.Save), chk.Total, cc.DC)
		o.Effects = world.Effects{world.ConditionRemoved{Target: t.ID, Condition: cc.Condition}, world.SpellTargetFreed{Caster: caster.ID, Target: t.ID}}
		if len(cc.Targets) == 1 {
			o.Effects = append(o.Effects, world.ConcentrationEnded{Character: caster.ID, Spell: cc.Spell, Reason: "its last target broke free"})
		}
		x.res.add(o)
	}
	return nil
}

// expireSpells ends the concentration spells whose rounds are over by
// round (every round-limited one when round is 0: the fight is over), and
// drops the Shield spell's ward, which lasts until the caster's next turn.
func expireSpells(w *world.State, round int) (world.Effects, []string) {
	var es world.Effects
	var text []string
	for _, id := range world.SortedKeys(w.Characters) {
		c := w.Characters[id]
		if cc := c.Concentration; cc != nil && cc.EndsRound > 0 && (round == 0 || cc.EndsRound <= round) {
			es = append(es, endConcentration(w, c, "its time ran out")...)
			text = append(text, fmt.Sprintf("%s's %s ends.", c.Name, cc.Spell))
		}
	}
	return es, text
}

// dropShields ends every Shield ward: its caster's next turn has come.
func dropShields(w *world.State) world.Effects {
	var es world.Effects
	for _, id := range world.SortedKeys(w.Characters) {
		if w.Characters[id].HasCondition(shielded) {
			es = append(es, world.ConditionRemoved{Target: id, Condition: shielded})
		}
	}
	return es
}

func firstSentence(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
