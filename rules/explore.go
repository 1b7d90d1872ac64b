package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/dice"
	"github.com/hearth-rpg/hearth/world"
)

// Time that ordinary actions take.
const (
	moveTime   = 10 * world.Minute
	searchTime = 10 * world.Minute
	shortRest  = world.Hour
	longRest   = 8 * world.Hour
)

// opinionBonus is the modifier an NPC's opinion gives social checks aimed at
// them (seed 001 §4.2.3: ±1 to ±3 beyond ±30; the 2d6 bands use ±1).
func (x *resolver) opinionBonus(npc string) int {
	p := x.w.Perception(npc)
	b := 0
	switch {
	case p > 90:
		b = 3
	case p > 60:
		b = 2
	case p > 30:
		b = 1
	case p < -90:
		b = -3
	case p < -60:
		b = -2
	case p < -30:
		b = -1
	}
	if x.e.sys.Name() == world.System2d6 {
		b = max(-1, min(1, b))
	}
	return b
}

func (x *resolver) check(v Check) error {
	c, err := x.actor(v, v.Character)
	if err != nil {
		return err
	}
	if v.Ability == "" && v.Skill == "" {
		return reject(v, "a check needs an ability (e.g. strength) or a skill (e.g. athletics)")
	}
	if v.Skill != "" && x.e.sys.Name() == world.SystemD20 {
		if _, ok := skillAbility[normalSkill(v.Skill)]; !ok && v.Ability == "" {
			return reject(v, "unknown skill %q; name the ability too, or use one of: %s", v.Skill, strings.Join(world.SortedKeys(skillAbility), ", "))
		}
	}
	adv, err := ParseAdvantage(v.Advantage)
	if err != nil {
		return reject(v, "%v", err)
	}
	if conditionAdvantage(c, hampering) {
		adv--
	}
	q := roll{Kind: "check", Ability: v.Ability, Skill: v.Skill, Target: v.DC, Advantage: clampAdv(adv)}
	if v.Target != "" {
		t, err := present(x.w, v, v.Target)
		if err != nil {
			return err
		}
		q.Bonus += x.opinionBonus(t.ID)
	}
	var because string
	if fn := x.e.situational; fn != nil && c.ID == x.w.Player {
		for _, m := range fn(x.ctx, x.w, v) {
			q.Bonus += m.Bonus
			because += fmt.Sprintf(" (%+d: %s)", m.Bonus, m.Reason)
		}
	}
	chk, err := x.roll(c, q)
	if err != nil {
		return err
	}
	label := chk.Skill
	if label == "" {
		label = chk.Ability
	}
	x.res.add(Outcome{Actor: c.ID, Action: "check", Target: v.Target, Check: &chk,
		Text: fmt.Sprintf("%s's %s check%s: %d against %d, %s.%s", c.Name, label, forText(v.Reason), chk.Total, chk.Target, degreeWord(chk.Degree), because)})
	return nil
}

func forText(reason string) string {
	if reason == "" {
		return ""
	}
	return " to " + strings.TrimPrefix(reason, "to ")
}

func degreeWord(d Degree) string {
	return strings.ReplaceAll(string(d), "_", " ")
}

func (x *resolver) save(v SavingThrow) error {
	c, err := anyCharacter(x.w, v, v.Character)
	if err != nil {
		return err
	}
	if v.Ability == "" {
		return reject(v, "a saving throw needs an ability: strength, dexterity, constitution, intelligence, wisdom or charisma")
	}
	adv, err := ParseAdvantage(v.Advantage)
	if err != nil {
		return reject(v, "%v", err)
	}
	chk, err := x.roll(c, roll{Kind: "save", Ability: v.Ability, Target: v.DC, Advantage: adv})
	if err != nil {
		return err
	}
	x.res.add(Outcome{Actor: c.ID, Action: "save", Check: &chk,
		Text: fmt.Sprintf("%s's %s saving throw%s: %d against %d, %s.", c.Name, chk.Ability, forText(v.Reason), chk.Total, chk.Target, degreeWord(chk.Degree))})
	return nil
}

func (x *resolver) move(v Move) error {
	c, err := x.actor(v, v.Character)
	if err != nil {
		return err
	}
	if strings.TrimSpace(v.Destination) == "" {
		return reject(v, "go where? exits: %s", ExitList(x.w, x.w.Locations[c.Location]))
	}
	here := x.w.Locations[c.Location]
	if here == nil {
		return reject(v, "%s is nowhere; place them first", c.Name)
	}
	if c.HasCondition("grappled") {
		return reject(v, "%s is grappled and cannot move (speed 0); break free first", c.Name)
	}
	if x.w.Combat != nil && c.ID == x.w.Player {
		return reject(v, "you are in a fight; attack, use an item, or flee")
	}
	exit, err := findExit(x.w, v, here, v.Destination)
	if err != nil {
		return err
	}
	to := x.w.Locations[exit.To]
	if to == nil {
		return fmt.Errorf("exit from %q leads to missing location %q", here.ID, exit.To)
	}
	if exit.Locked {
		if exit.Key == "" || c.Inventory[exit.Key] == 0 {
			need := ""
			if it := x.w.Items[exit.Key]; it != nil {
				need = "; you need " + it.Name
			}
			return reject(v, "the way to %s is locked%s", to.Name, need)
		}
		key := x.w.Items[exit.Key]
		o := Outcome{Actor: c.ID, Action: "unlock", Target: to.ID, Item: key.ID,
			Text:    fmt.Sprintf("%s unlocks the way to %s with %s.", c.Name, to.Name, key.Name),
			Effects: world.Effects{world.ExitChanged{Location: here.ID, To: to.ID}}}
		if back, ok := to.Exit(here.ID); ok && back.Locked && back.Key == exit.Key {
			o.Effects = append(o.Effects, world.ExitChanged{Location: to.ID, To: here.ID})
		}
		x.res.add(o)
	}
	// A grappler drags whoever they hold along, at half speed (5e): the
	// way takes twice as long. To leave them, let go first.
	held := x.w.HeldBy(c.ID)
	took := world.GameTime(moveTime)
	text := fmt.Sprintf("%s goes %s to %s.", c.Name, exitWord(exit), to.Name)
	if len(held) > 0 {
		took *= 2
		text = fmt.Sprintf("%s goes %s to %s, dragging %s along.", c.Name, exitWord(exit), to.Name, List(x.names(held), "and"))
	}
	o := Outcome{Actor: c.ID, Action: "move", Target: to.ID,
		Text:    text,
		Details: map[string]any{"from": here.ID, "first_visit": !to.Visited},
		Effects: world.Effects{
			world.CharacterMoved{Character: c.ID, From: here.ID, To: to.ID, With: held},
			world.TimeAdvanced{From: x.w.Time, To: x.w.Time + took},
		}}
	if len(held) > 0 {
		o.Details["dragging"] = held
	}
	if c.ID == x.w.Player || slices.Contains(held, x.w.Player) {
		var met []string
		for _, n := range x.w.CharactersAt(to.ID) {
			met = append(met, n.ID)
		}
		if len(met) > 0 {
			o.Effects = append(o.Effects, world.EntitiesMentioned{IDs: met})
		}
		o.Effects = append(o.Effects, world.SceneChanged{Scene: world.Scene{
			Number: x.w.Scene.Number + 1, Title: to.Name, Location: to.ID,
			Started: x.w.Turn, StartAt: x.w.Time + took}})
	}
	x.res.add(o)
	return nil
}

func exitWord(e world.Exit) string {
	if e.Direction == "" {
		return "on"
	}
	return e.Direction
}

func (x *resolver) rest(v Rest) error {
	c, err := anyCharacter(x.w, v, v.Character)
	if err != nil {
		return err
	}
	if c.HasCondition("dead") {
		return reject(v, "%s is dead", c.Name)
	}
	if x.w.Combat != nil {
		return reject(v, "you cannot rest in the middle of a fight; attack, flee (a check to break away), or use a potion instead")
	}
	for _, n := range x.w.CharactersAt(c.Location) {
		if n.Hostile && n.Alive() && !n.HasCondition("dead") {
			return reject(v, "you cannot rest with %s here, hostile and watching you; fight, flee, talk them down or go somewhere safe first", n.Name)
		}
	}
	kind := strings.ToLower(strings.TrimSpace(v.Rest))
	if kind == "" {
		kind = "short"
	}
	o := Outcome{Actor: c.ID, Action: "rest", Details: map[string]any{"rest": kind}}
	// An hour or more of rest outlasts the spells a caster concentrates on.
	o.Effects = endConcentration(x.w, c, "rested")
	switch kind {
	case "short":
		spent, healed := 0, 0
		size, total := hitDie(c.HitDice, c.Level)
		for c.HP+healed < c.MaxHP && c.HitDiceUsed+spent < total {
			con := 0
			if s, ok := c.Abilities["constitution"]; ok {
				con = x.e.sys.AbilityModifier(s)
			}
			res, err := x.dice(fmt.Sprintf("1d%d%+d", size, con), "hit die")
			if err != nil {
				return err
			}
			spent++
			healed += max(1, res.Total)
		}
		es, gained := healEffects(c, healed, "short rest")
		o.Amount = gained
		o.Effects = append(append(o.Effects, es...), world.Rested{Character: c.ID, Rest: "short", HitDiceSpent: spent},
			world.TimeAdvanced{From: x.w.Time, To: x.w.Time + shortRest})
		o.Text = fmt.Sprintf("%s rests for an hour, spends %d hit dice and regains %d hit points.", c.Name, spent, gained)
	case "long":
		es, gained := healEffects(c, c.MaxHP, "long rest")
		o.Amount = gained
		o.Effects = append(append(o.Effects, es...), world.Rested{Character: c.ID, Rest: "long"},
			world.TimeAdvanced{From: x.w.Time, To: x.w.Time + longRest})
		o.Text = fmt.Sprintf("%s sleeps for eight hours and wakes restored (%d hit points regained).", c.Name, gained)
		if len(c.SpellSlotsUsed) > 0 {
			o.Text += " Every spell slot is back."
		}
	default:
		return reject(v, "rest %q: a rest is short or long", v.Rest)
	}
	x.res.add(o)
	return nil
}

// hitDie reads "3d8" as size 8, three dice; missing data defaults to one
// d8 per level.
func hitDie(s string, level int) (size, count int) {
	size, count = 8, max(1, level)
	if n, d, ok := strings.Cut(strings.ToLower(s), "d"); ok {
		if v, err := strconv.Atoi(d); err == nil && v > 0 {
			size = v
		}
		if v, err := strconv.Atoi(n); err == nil && v > 0 {
			count = v
		}
	}
	return size, count
}

// itemEffect patterns: "heal 2d4+2", "health +25", "remove poisoned".
var (
	healRe   = regexp.MustCompile(`^heal(?:s)?\s+(.+)$`)
	statRe   = regexp.MustCompile(`^([a-z_][a-z0-9_.]*)\s*([+-]\s*\d+)$`)
	removeRe = regexp.MustCompile(`^(?:remove|cure)s?\s+([a-z]+)$`)
)

func (x *resolver) useItem(v UseItem) error {
	c, err := x.actor(v, v.Character)
	if err != nil {
		return err
	}
	it, err := holding(x.w, v, c.Inventory, v.Item, c.Name)
	if err != nil {
		// Using a fixed thing in the room (a lever, the lantern) is allowed.
		here := x.w.Locations[c.Location]
		if here != nil {
			if fixed, ferr := holding(x.w, v, here.Items, v.Item, here.Name); ferr == nil && fixed.Fixed {
				it = fixed
				err = nil
			}
		}
		if err != nil {
			return err
		}
	}
	o := Outcome{Actor: c.ID, Action: "use_item", Item: it.ID, Target: v.Target}
	// Keys open locked exits here.
	if here := x.w.Locations[c.Location]; here != nil {
		for _, e := range here.Exits {
			if e.Locked && e.Key == it.ID && !e.Hidden {
				o.Text = fmt.Sprintf("%s unlocks the way to %s with %s.", c.Name, locationName(x.w, e.To), it.Name)
				o.Effects = append(o.Effects, world.ExitChanged{Location: here.ID, To: e.To})
				if to := x.w.Locations[e.To]; to != nil {
					if back, ok := to.Exit(here.ID); ok && back.Locked && back.Key == it.ID {
						o.Effects = append(o.Effects, world.ExitChanged{Location: to.ID, To: here.ID})
					}
				}
				x.res.add(o)
				return nil
			}
		}
	}
	target := c
	if v.Target != "" {
		if t, err := present(x.w, v, v.Target); err == nil {
			target = t
		}
	}
	effect := strings.ToLower(strings.TrimSpace(it.Effect))
	consumed := it.Type == "consumable"
	switch {
	case healRe.MatchString(effect):
		notation := healRe.FindStringSubmatch(effect)[1]
		res, err := x.dice(notation, it.Name)
		if err != nil {
			return fmt.Errorf("item %q has a bad effect %q: %w", it.ID, it.Effect, err)
		}
		es, gained := healEffects(target, res.Total, it.Name)
		o.Effects, o.Amount, o.Target = es, gained, target.ID
		o.Text = fmt.Sprintf("%s uses %s; %s regains %d hit points (%d/%d).", c.Name, it.Name, target.Name, gained, target.HP+gained, target.MaxHP)
	case statRe.MatchString(effect):
		m := statRe.FindStringSubmatch(effect)
		stat := m[1]
		delta, _ := strconv.Atoi(strings.ReplaceAll(m[2], " ", ""))
		if stat == "hp" || stat == "hit_points" {
			es, gained := healEffects(target, delta, it.Name)
			o.Effects, o.Amount = es, gained
			o.Text = fmt.Sprintf("%s uses %s and regains %d hit points.", c.Name, it.Name, gained)
			break
		}
		from := target.Stats[stat]
		to := x.w.StatDef(target.ID, stat).Clamp(from + delta)
		o.Effects = world.Effects{world.StatChanged{Character: target.ID, Stat: stat, From: from, To: to, Reason: it.Name}}
		o.Amount = to - from
		o.Text = fmt.Sprintf("%s uses %s: %s %d → %d.", c.Name, it.Name, stat, from, to)
	case removeRe.MatchString(effect):
		cond := removeRe.FindStringSubmatch(effect)[1]
		if target.HasCondition(cond) {
			o.Effects = world.Effects{world.ConditionRemoved{Target: target.ID, Condition: cond}}
			o.Text = fmt.Sprintf("%s uses %s; %s is no longer %s.", c.Name, it.Name, target.Name, cond)
		} else {
			return reject(v, "%s is not %s; save %s for when it helps", target.Name, cond, it.Name)
		}
	default:
		if it.Type == "weapon" {
			return reject(v, "to use %s, attack someone with it", it.Name)
		}
		// No mechanical effect: the use still counts (consequences can
		// listen for it), and the narrator describes it.
		o.Text = fmt.Sprintf("%s uses %s%s.", c.Name, it.Name, onText(v.Target))
		consumed = consumed && effect != ""
	}
	if consumed && !it.Fixed {
		o.Effects = append(o.Effects, world.ItemTransferred{Item: it.ID, Qty: 1, From: c.ID})
	}
	x.res.add(o)
	return nil
}

func onText(target string) string {
	if target == "" {
		return ""
	}
	return " on " + target
}

func (x *resolver) takeItem(v TakeItem) error {
	c, err := x.actor(v, v.Character)
	if err != nil {
		return err
	}
	qty := max(1, v.Qty)
	here := x.w.Locations[c.Location]
	if here == nil {
		return reject(v, "%s is nowhere", c.Name)
	}
	if v.From != "" {
		src, err := present(x.w, v, v.From)
		if err != nil {
			return err
		}
		if src.Alive() && !src.HasCondition("dead") && !src.HasCondition("unconscious") {
			return reject(v, "%s will not simply hand things over; talk to them, or trade", src.Name)
		}
		if isGold(v.Item) {
			if src.Gold == 0 {
				return reject(v, "%s has no gold", src.Name)
			}
			x.res.add(Outcome{Actor: c.ID, Action: "take_gold", Target: src.ID, Amount: src.Gold,
				Text: fmt.Sprintf("%s takes %d gold from %s.", c.Name, src.Gold, src.Name),
				Effects: world.Effects{
					world.GoldChanged{Character: src.ID, From: src.Gold, To: 0, Reason: "looted"},
					world.GoldChanged{Character: c.ID, From: c.Gold, To: c.Gold + src.Gold, Reason: "looted"},
				}})
			return nil
		}
		if Normalise(v.Item) == "all" || Normalise(v.Item) == "everything" {
			return x.lootAll(v, c, src)
		}
		it, err := holding(x.w, v, src.Inventory, v.Item, src.Name)
		if err != nil {
			return err
		}
		qty = min(qty, src.Inventory[it.ID])
		x.res.add(Outcome{Actor: c.ID, Action: "take_item", Item: it.ID, Target: src.ID, Amount: qty,
			Text:    fmt.Sprintf("%s takes %s from %s.", c.Name, quantity(qty, it.Name), src.Name),
			Effects: world.Effects{world.ItemTransferred{Item: it.ID, Qty: qty, From: src.ID, To: c.ID}}})
		return nil
	}
	it, err := holding(x.w, v, here.Items, v.Item, here.Name)
	if err != nil {
		// Perhaps it is on a fallen foe.
		for _, n := range x.w.CharactersAt(here.ID) {
			if (!n.Alive() || n.HasCondition("dead")) && n.Inventory != nil {
				if found, ferr := holding(x.w, v, n.Inventory, v.Item, n.Name); ferr == nil {
					return x.takeItem(TakeItem{Character: v.Character, Item: found.ID, Qty: v.Qty, From: n.ID})
				}
			}
		}
		if isGold(v.Item) {
			for _, n := range x.w.CharactersAt(here.ID) {
				if (!n.Alive() || n.HasCondition("dead")) && n.Gold > 0 {
					return x.takeItem(TakeItem{Character: v.Character, Item: "gold", From: n.ID})
				}
			}
		}
		return err
	}
	if it.Fixed {
		return reject(v, "%s cannot be carried off", it.Name)
	}
	qty = min(qty, here.Items[it.ID])
	x.res.add(Outcome{Actor: c.ID, Action: "take_item", Item: it.ID, Target: here.ID, Amount: qty,
		Text:    fmt.Sprintf("%s picks up %s.", c.Name, quantity(qty, it.Name)),
		Effects: world.Effects{world.ItemTransferred{Item: it.ID, Qty: qty, From: here.ID, To: c.ID}}})
	return nil
}

func (x *resolver) lootAll(v TakeItem, c, src *world.Character) error {
	o := Outcome{Actor: c.ID, Action: "loot", Target: src.ID}
	var got []string
	for _, id := range world.SortedKeys(src.Inventory) {
		if n := src.Inventory[id]; n > 0 && x.w.Items[id] != nil {
			o.Effects = append(o.Effects, world.ItemTransferred{Item: id, Qty: n, From: src.ID, To: c.ID})
			got = append(got, quantity(n, x.w.Items[id].Name))
		}
	}
	if src.Gold > 0 {
		o.Effects = append(o.Effects,
			world.GoldChanged{Character: src.ID, From: src.Gold, To: 0, Reason: "looted"},
			world.GoldChanged{Character: c.ID, From: c.Gold, To: c.Gold + src.Gold, Reason: "looted"})
		got = append(got, fmt.Sprintf("%d gold", src.Gold))
	}
	if len(got) == 0 {
		return reject(v, "%s has nothing worth taking", src.Name)
	}
	o.Text = fmt.Sprintf("%s takes from %s: %s.", c.Name, src.Name, List(got, "and"))
	x.res.add(o)
	return nil
}

func isGold(ref string) bool {
	switch Normalise(ref) {
	case "gold", "coins", "coin", "money", "gold coins", "purse":
		return true
	}
	return false
}

func quantity(n int, name string) string {
	if n == 1 {
		return name
	}
	return fmt.Sprintf("%d × %s", n, name)
}

func (x *resolver) giveItem(v GiveItem) error {
	c, err := x.actor(v, v.Character)
	if err != nil {
		return err
	}
	if v.To == "" {
		return reject(v, "give it to whom?")
	}
	to, err := present(x.w, v, v.To)
	if err != nil {
		return err
	}
	if to.ID == c.ID {
		return reject(v, "you already have it")
	}
	if isGold(v.Item) {
		n := max(1, v.Qty)
		if c.Gold < n {
			return reject(v, "%s has only %d gold", c.Name, c.Gold)
		}
		x.res.add(Outcome{Actor: c.ID, Action: "give_gold", Target: to.ID, Amount: n,
			Text: fmt.Sprintf("%s gives %d gold to %s.", c.Name, n, to.Name),
			Effects: world.Effects{
				world.GoldChanged{Character: c.ID, From: c.Gold, To: c.Gold - n, Reason: "gift"},
				world.GoldChanged{Character: to.ID, From: to.Gold, To: to.Gold + n, Reason: "gift"},
			}})
		return nil
	}
	it, err := holding(x.w, v, c.Inventory, v.Item, c.Name)
	if err != nil {
		return err
	}
	qty := min(max(1, v.Qty), c.Inventory[it.ID])
	x.res.add(Outcome{Actor: c.ID, Action: "give_item", Item: it.ID, Target: to.ID, Amount: qty,
		Text:    fmt.Sprintf("%s gives %s to %s.", c.Name, quantity(qty, it.Name), to.Name),
		Effects: world.Effects{world.ItemTransferred{Item: it.ID, Qty: qty, From: c.ID, To: to.ID}}})
	return nil
}

func (x *resolver) dropItem(v DropItem) error {
	c, err := x.actor(v, v.Character)
	if err != nil {
		return err
	}
	it, err := holding(x.w, v, c.Inventory, v.Item, c.Name)
	if err != nil {
		return err
	}
	qty := min(max(1, v.Qty), c.Inventory[it.ID])
	x.res.add(Outcome{Actor: c.ID, Action: "drop_item", Item: it.ID, Target: c.Location, Amount: qty,
		Text:    fmt.Sprintf("%s drops %s.", c.Name, quantity(qty, it.Name)),
		Effects: world.Effects{world.ItemTransferred{Item: it.ID, Qty: qty, From: c.ID, To: c.Location}}})
	return nil
}

func (x *resolver) equipItem(v EquipItem) error {
	c, err := x.actor(v, v.Character)
	if err != nil {
		return err
	}
	it, err := holding(x.w, v, c.Inventory, v.Item, c.Name)
	if err != nil {
		return err
	}
	equipped := containsFold(c.Equipped, it.ID)
	if v.Unequip != equipped {
		if v.Unequip {
			return reject(v, "%s is not equipped", it.Name)
		}
		return reject(v, "%s is already equipped", it.Name)
	}
	var es world.Effects
	if !v.Unequip && it.Damage != "" {
		// One weapon in hand at a time.
		for _, id := range c.Equipped {
			if other := x.w.Items[id]; other != nil && other.Damage != "" {
				es = append(es, world.ItemEquipped{Character: c.ID, Item: id, Equipped: false})
			}
		}
	}
	es = append(es, world.ItemEquipped{Character: c.ID, Item: it.ID, Equipped: !v.Unequip})
	verb := "readies"
	if v.Unequip {
		verb = "puts away"
	}
	x.res.add(Outcome{Actor: c.ID, Action: "equip_item", Item: it.ID, Effects: es,
		Text: fmt.Sprintf("%s %s %s.", c.Name, verb, it.Name)})
	return nil
}

func (x *resolver) changeGold(v ChangeGold) error {
	c, err := anyCharacter(x.w, v, v.Character)
	if err != nil {
		return err
	}
	if v.Amount == 0 {
		return reject(v, "change gold by how much? a positive amount gains, a negative one spends")
	}
	if c.Gold+v.Amount < 0 {
		return reject(v, "%s has only %d gold, not %d", c.Name, c.Gold, -v.Amount)
	}
	verb := "gains"
	if v.Amount < 0 {
		verb = "spends"
	}
	x.res.add(Outcome{Actor: c.ID, Action: "gold", Amount: v.Amount,
		Text:    fmt.Sprintf("%s %s %d gold%s (now %d).", c.Name, verb, abs(v.Amount), forText(v.Reason), c.Gold+v.Amount),
		Effects: world.Effects{world.GoldChanged{Character: c.ID, From: c.Gold, To: c.Gold + v.Amount, Reason: v.Reason}}})
	return nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func (x *resolver) look(v Look) error {
	pc, err := pcOrReject(x.w, v)
	if err != nil {
		return err
	}
	here := x.w.Locations[pc.Location]
	if here == nil {
		return reject(v, "you are nowhere")
	}
	if v.Target == "" || Normalise(v.Target) == "around" || Normalise(v.Target) == "room" {
		x.res.add(Outcome{Actor: pc.ID, Action: "look", Target: here.ID, Text: here.Name + ". " + here.Description})
		return nil
	}
	if c, err := present(x.w, v, v.Target); err == nil {
		x.res.add(Outcome{Actor: pc.ID, Action: "look", Target: c.ID, Text: c.Name + ": " + c.Description,
			Effects: world.Effects{world.EntitiesMentioned{IDs: []string{c.ID}}}})
		return nil
	}
	for _, inv := range []map[string]int{pc.Inventory, here.Items} {
		if it, err := holding(x.w, v, inv, v.Target, ""); err == nil {
			x.res.add(Outcome{Actor: pc.ID, Action: "look", Item: it.ID, Text: it.Name + ": " + it.Description})
			return nil
		}
	}
	if e, err := findExit(x.w, v, here, v.Target); err == nil {
		to := x.w.Locations[e.To]
		text := e.Description
		if text == "" {
			text = "The way " + exitWord(e) + " leads to " + to.Name + "."
		}
		x.res.add(Outcome{Actor: pc.ID, Action: "look", Target: to.ID, Text: text, Details: map[string]any{"exit": true}})
		return nil
	}
	var seen []string
	for _, c := range x.w.CharactersAt(here.ID) {
		seen = append(seen, c.Name)
	}
	for _, id := range world.SortedKeys(here.Items) {
		if it := x.w.Items[id]; it != nil {
			seen = append(seen, it.Name)
		}
	}
	if len(seen) == 0 {
		return reject(v, "you see no %q here", v.Target)
	}
	return reject(v, "you see no %q here; you can see %s", v.Target, List(seen, "and"))
}

func (x *resolver) search(v Search) error {
	c, err := x.actor(v, v.Character)
	if err != nil {
		return err
	}
	here := x.w.Locations[c.Location]
	if here == nil {
		return reject(v, "%s is nowhere", c.Name)
	}
	skill := v.Skill
	if skill == "" {
		skill = "investigation"
	}
	var hidden []world.Discoverable
	for _, d := range here.Discoverables {
		if !d.Found {
			hidden = append(hidden, d)
		}
	}
	best := 0
	for _, d := range hidden {
		best = max(best, d.DC)
	}
	if best == 0 {
		best = x.e.sys.DefaultDC()
	}
	chk, err := x.roll(c, roll{Kind: "check", Skill: skill, Target: best})
	if err != nil {
		return err
	}
	o := Outcome{Actor: c.ID, Action: "search", Target: here.ID, Check: &chk,
		Effects: world.Effects{world.TimeAdvanced{From: x.w.Time, To: x.w.Time + searchTime}}}
	var found []string
	for _, d := range hidden {
		dc := d.DC
		if dc == 0 {
			dc = x.e.sys.DefaultDC()
		}
		// Bands and Traveller grade against their own scale; a partial
		// success finds the easy things.
		ok := chk.Total >= dc
		if x.e.sys.Name() != world.SystemD20 {
			ok = chk.Degree == Success || chk.Degree == CriticalSuccess || (chk.Degree == Partial && dc <= 10)
		}
		if !ok {
			continue
		}
		found = append(found, d.Text)
		o.Effects = append(o.Effects, world.DiscoveryMade{Location: here.ID, Discoverable: d.ID})
		if d.Item != "" && x.w.Items[d.Item] != nil {
			o.Effects = append(o.Effects, world.ItemTransferred{Item: d.Item, Qty: 1, To: here.ID})
		}
		if d.Exit != "" {
			if e, ok := here.Exit(d.Exit); ok {
				o.Effects = append(o.Effects, world.ExitChanged{Location: here.ID, To: d.Exit, Locked: e.Locked})
			}
		}
		o.Effects = append(o.Effects, world.FactRecorded{Fact: world.Fact{
			ID: x.newID("fact"), Subject: here.ID, Text: d.Text, Category: world.CategoryLocation,
			Visibility: access.Player, Importance: 0.6, Turn: x.w.Turn, Source: "play"}})
	}
	switch {
	case len(found) > 0:
		o.Text = fmt.Sprintf("%s searches %s and finds: %s", c.Name, here.Name, strings.Join(found, " "))
		o.Details = map[string]any{"found": found}
	case len(hidden) == 0:
		o.Text = fmt.Sprintf("%s searches %s but finds nothing new.", c.Name, here.Name)
	default:
		o.Text = fmt.Sprintf("%s searches %s but finds nothing (%d).", c.Name, here.Name, chk.Total)
	}
	x.res.add(o)
	return nil
}

// newID returns a fresh sequential ID such as fact-12. It depends only on
// the state and on what this resolution already allocated, so it is
// deterministic.
func (x *resolver) newID(prefix string) string {
	if x.ids == nil {
		x.ids = map[string]int{}
	}
	id := nextID(x.w, prefix, x.ids[prefix])
	x.ids[prefix]++
	return id
}

func nextID(w *world.State, prefix string, skip int) string {
	var n int
	var taken func(string) bool
	switch prefix {
	case "fact":
		n = len(w.Facts) + 1
		taken = func(id string) bool { return w.Facts[id] != nil }
	case "whisper":
		n = len(w.Whispers) + 1
		taken = func(id string) bool { return w.Whispers[id] != nil }
	case "event":
		n = len(w.Events) + 1
		taken = func(id string) bool { return w.Events[id] != nil }
	default:
		n = 1
		taken = func(string) bool { return false }
	}
	for {
		id := fmt.Sprintf("%s-%d", prefix, n)
		if !taken(id) {
			if skip == 0 {
				return id
			}
			skip--
		}
		n++
	}
}

func (x *resolver) rollDice(v RollDice) error {
	if strings.TrimSpace(v.Notation) == "" {
		return reject(v, "roll what? e.g. 1d20+3, 4d6kh3, 2d6")
	}
	pc := x.w.PC()
	lookup := func(name string) (int, bool) {
		if pc == nil {
			return 0, false
		}
		return characterValue(x.e.sys, pc, name)
	}
	res, err := dice.Roll(x.r, v.Notation, lookup)
	if err != nil {
		return reject(v, "%v", err)
	}
	if res.Label == "" {
		res.Label = v.Reason
	}
	x.res.Rolls = append(x.res.Rolls, res)
	x.res.add(Outcome{Action: "roll", Amount: res.Total, Text: fmt.Sprintf("Rolled %s.", res.String())})
	return nil
}

// characterValue resolves a dice reference against a character: an ability
// ("dex", "dexterity") gives its modifier, a skill its bonus with the
// ability's modifier, "prof" the proficiency bonus, "level" the level, and
// "stats.X" or "player.stats.X" a campaign stat; "X_score" the raw score.
func characterValue(sys System, c *world.Character, name string) (int, bool) {
	n := strings.ToLower(name)
	n = strings.TrimPrefix(n, "player.")
	if stat, ok := strings.CutPrefix(n, "stats."); ok {
		if v, ok := c.Stats[stat]; ok {
			return v, true
		}
		if score, ok := c.Abilities[normalAbility(stat)]; ok {
			return score, true
		}
		return 0, false
	}
	if base, ok := strings.CutSuffix(n, "_score"); ok {
		v, ok := c.Abilities[normalAbility(base)]
		return v, ok
	}
	switch n {
	case "prof", "proficiency", "proficiency_bonus", "pb":
		return c.ProficiencyBonus, true
	case "level", "lvl":
		return c.Level, true
	}
	if score, ok := c.Abilities[normalAbility(n)]; ok {
		return sys.AbilityModifier(score), true
	}
	if ab, ok := skillAbility[normalSkill(n)]; ok {
		return sys.AbilityModifier(c.Abilities[ab]) + c.Skills[normalSkill(n)], true
	}
	if v, ok := c.Stats[n]; ok {
		return v, true
	}
	return 0, false
}
