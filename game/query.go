package game

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/offlinegm"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/spell"
	"github.com/hearth-rpg/hearth/world"
)

// Query answers a question about the game that takes no turn: inventory,
// sheet, quests or help.
func Query(w *world.State, what string) string {
	switch what {
	case "inventory":
		return Inventory(w)
	case "sheet":
		return Sheet(w)
	case "quests":
		return Quests(w)
	case "help":
		return offlinegm.Help()
	}
	return fmt.Sprintf("I can tell you about your inventory, sheet or quests, not %q.", what)
}

// Inventory lists what the player carries.
func Inventory(w *world.State) string {
	pc := w.PC()
	if pc == nil {
		return "You have no character."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You carry:\n")
	if len(pc.Inventory) == 0 {
		b.WriteString("  nothing\n")
	}
	for _, id := range world.SortedKeys(pc.Inventory) {
		it := w.Items[id]
		name := id
		if it != nil {
			name = it.Name
		}
		line := "  " + name
		if n := pc.Inventory[id]; n > 1 {
			line = fmt.Sprintf("  %d × %s", n, name)
		}
		if slices.Contains(pc.Equipped, id) {
			line += " (equipped)"
		}
		if it != nil && it.Damage != "" {
			line += fmt.Sprintf(" — %s %s", it.Damage, it.DamageType)
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "Gold: %d", pc.Gold)
	return b.String()
}

// Sheet renders the player's character sheet, without hidden stats.
func Sheet(w *world.State) string {
	pc := w.PC()
	if pc == nil {
		return "You have no character."
	}
	var b strings.Builder
	title := strings.TrimSpace(strings.Join([]string{pc.Race, pc.Class}, " "))
	fmt.Fprintf(&b, "%s", pc.Name)
	if title != "" {
		fmt.Fprintf(&b, " — %s", title)
	}
	if pc.Level > 0 {
		fmt.Fprintf(&b, ", level %d", pc.Level)
	}
	b.WriteString("\n")
	var line []string
	if pc.MaxHP > 0 { // a character without hit points shows none, not 0/0
		hp := fmt.Sprintf("HP %d/%d", pc.HP, pc.MaxHP)
		if pc.TempHP > 0 {
			hp += fmt.Sprintf(" (+%d temporary)", pc.TempHP)
		}
		line = append(line, hp)
	}
	if pc.AC > 0 {
		line = append(line, fmt.Sprintf("AC %d", pc.AC))
	}
	if pc.ProficiencyBonus > 0 {
		line = append(line, fmt.Sprintf("proficiency +%d", pc.ProficiencyBonus))
	}
	line = append(line, fmt.Sprintf("XP %d", pc.XP), fmt.Sprintf("gold %d", pc.Gold))
	fmt.Fprintf(&b, "%s\n", strings.Join(line, " · "))
	if rules.Down(pc) {
		fmt.Fprintf(&b, "Dying: death saves %d successes, %d failures\n", pc.DeathSaves.Successes, pc.DeathSaves.Failures)
	}
	order := []string{"strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"}
	for _, k := range world.SortedKeys(pc.Abilities) {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	sys, err := rules.NewSystem(w.System)
	if err != nil {
		sys, _ = rules.NewSystem(world.SystemD20)
	}
	var abil []string
	for _, k := range order {
		if v, ok := pc.Abilities[k]; ok {
			abil = append(abil, fmt.Sprintf("%s %d (%+d)", strings.ToUpper(k[:min(3, len(k))]), v, sys.AbilityModifier(v)))
		}
	}
	if len(abil) > 0 {
		b.WriteString(strings.Join(abil, "  ") + "\n")
	}
	if len(pc.Skills) > 0 {
		var sk []string
		for _, k := range world.SortedKeys(pc.Skills) {
			// The bonus the rolls use, ability modifier included.
			sk = append(sk, fmt.Sprintf("%s %+d", strings.ReplaceAll(k, "_", " "), rules.SkillBonus(sys, pc, k)))
		}
		fmt.Fprintf(&b, "Skills: %s\n", strings.Join(sk, ", "))
	}
	if len(pc.SavingThrows) > 0 {
		fmt.Fprintf(&b, "Saving throws: %s\n", strings.Join(pc.SavingThrows, ", "))
	}
	if len(pc.SpellSlots) > 0 {
		var slots []string
		for _, l := range slices.Sorted(maps.Keys(pc.SpellSlots)) {
			slots = append(slots, fmt.Sprintf("%s %d/%d", spell.Ordinal(l), pc.SlotsLeft(l), pc.SpellSlots[l]))
		}
		fmt.Fprintf(&b, "Spell slots: %s (a long rest restores them)\n", strings.Join(slots, ", "))
	}
	if cc := pc.Concentration; cc != nil {
		held := ""
		if cc.Condition != "" && len(cc.Targets) > 0 {
			var who []string
			for _, id := range cc.Targets {
				if c := w.Characters[id]; c != nil {
					who = append(who, c.Name)
				}
			}
			held = fmt.Sprintf(", holding %s %s", rules.List(who, "and"), cc.Condition)
		}
		fmt.Fprintf(&b, "Concentrating on %s%s\n", cc.Spell, held)
	}
	var stats []string
	for _, k := range world.SortedKeys(pc.Stats) {
		def := w.StatDefs[k]
		if def != nil && (def.Hidden || def.Display == "hidden") {
			continue
		}
		label := k
		if def != nil && def.Label != "" {
			label = def.Label
		}
		if def != nil {
			stats = append(stats, fmt.Sprintf("%s %d/%d", label, pc.Stats[k], def.Max))
		} else {
			stats = append(stats, fmt.Sprintf("%s %d", label, pc.Stats[k]))
		}
	}
	if len(stats) > 0 {
		fmt.Fprintf(&b, "Stats: %s\n", strings.Join(stats, ", "))
	}
	if len(pc.Conditions) > 0 {
		fmt.Fprintf(&b, "Conditions: %s\n", strings.Join(pc.Conditions, ", "))
	}
	if l := w.Locations[pc.Location]; l != nil {
		fmt.Fprintf(&b, "At %s, %s (%s).", l.Name, w.Time, w.Time.PartOfDay())
	}
	return strings.TrimRight(b.String(), "\n")
}

// Quests lists the quests the player knows of.
func Quests(w *world.State) string {
	var b strings.Builder
	for _, id := range world.SortedKeys(w.Quests) {
		q := w.Quests[id]
		if q.Status == world.QuestAvailable {
			continue
		}
		fmt.Fprintf(&b, "%s (%s)\n", q.Name, q.Status)
		for _, o := range q.Objectives {
			mark := "[ ]"
			if o.Done {
				mark = "[x]"
			}
			opt := ""
			if o.Optional {
				opt = " (optional)"
			}
			fmt.Fprintf(&b, "  %s %s%s\n", mark, o.Text, opt)
		}
	}
	if b.Len() == 0 {
		return "You have no quests yet. Someone here may need help."
	}
	return strings.TrimRight(b.String(), "\n")
}

// Status is a one-line summary for the bottom of a turn.
func Status(w *world.State, turn int, branch string) string {
	pc := w.PC()
	if pc == nil {
		return ""
	}
	where := pc.Location
	if l := w.Locations[pc.Location]; l != nil {
		where = l.Name
	}
	var parts []string
	if pc.MaxHP > 0 {
		parts = append(parts, fmt.Sprintf("HP %d/%d", pc.HP, pc.MaxHP))
	}
	parts = append(parts, where, w.Time.String())
	if w.Combat != nil {
		parts = append(parts, fmt.Sprintf("combat round %d", w.Combat.Round))
	}
	parts = append(parts, fmt.Sprintf("turn %d", turn))
	if branch != "" && branch != "main" {
		parts = append(parts, "branch "+branch)
	}
	return strings.Join(parts, " · ")
}
