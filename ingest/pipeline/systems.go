package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/systems"
	"github.com/hearth-rpg/hearth/world"
)

// StatReader reads a stat block the rule-based extractor was unsure of,
// with a language model. rule is what the rules read, Problems saying
// what they doubt; the answer replaces it.
type StatReader interface {
	ReadStatBlock(ctx context.Context, text string, rule systems.Monster) (systems.Monster, error)
}

// mechanics is the systems checkpoint: the book's monsters and items.
type mechanics struct {
	Monsters []systems.Monster `json:"monsters"`
	Items    []systems.Item    `json:"items"`
	// Read is how many blocks a StatReader read again; Unsure how many
	// are kept with problems no model resolved; Dropped names the blocks
	// too broken to play.
	Read    int      `json:"read,omitempty"`
	Unsure  int      `json:"unsure,omitempty"`
	Dropped []string `json:"dropped,omitempty"`
}

// systemsPages gives the extractor the document's pages.
func systemsPages(doc *ingest.Document) []systems.Page {
	ps := make([]systems.Page, len(doc.Pages))
	for i, p := range doc.Pages {
		ps[i] = systems.Page{Number: p.Number, Text: p.Text}
	}
	return ps
}

// systems extracts stat blocks and items. With a StatReader, the blocks
// the rules are unsure of go to the model; a block it gives no usable
// answer for keeps the rules' reading. A block with no Armor Class or hit
// points is dropped, named in the result.
func (r *run) systems(ctx context.Context, doc *ingest.Document) (mechanics, error) {
	pages := systemsPages(doc)
	blocks := systems.StatBlocks(pages)
	var unsure []int
	for i, b := range blocks {
		if !b.Monster.Sure() {
			unsure = append(unsure, i)
		}
	}
	var mech mechanics
	if r.StatReader != nil && len(unsure) > 0 {
		answers, err := r.ask(ctx, systemsStage, "statblocks", keyOf(r.StatReader), unsure, func(ctx context.Context, i int) (string, error) {
			m, err := r.StatReader.ReadStatBlock(ctx, blocks[i].Text, blocks[i].Monster)
			if err != nil {
				return "", fmt.Errorf("read the stat block of %q: %w", blocks[i].Monster.Name, err)
			}
			if !m.Usable() {
				return "", fmt.Errorf("read the stat block of %q: the model gave no name, Armor Class or hit points", blocks[i].Monster.Name)
			}
			b, err := json.Marshal(m)
			return string(b), err
		})
		if err != nil {
			return mech, err
		}
		for i, a := range answers {
			var m systems.Monster
			if i < 0 || i >= len(blocks) || json.Unmarshal([]byte(a), &m) != nil || !m.Usable() {
				continue // a damaged journal line is no answer
			}
			m.Page, m.Problems = blocks[i].Monster.Page, nil
			blocks[i].Monster = m
			mech.Read++
		}
	}
	for _, b := range blocks {
		m := b.Monster
		switch {
		case !m.Usable():
			mech.Dropped = append(mech.Dropped, fmt.Sprintf("%s (page %d): %s", m.Name, m.Page, strings.Join(m.Problems, "; ")))
			continue
		case !m.Sure():
			mech.Unsure++
		}
		mech.Monsters = append(mech.Monsters, m)
	}
	mech.Items = systems.Items(pages)
	return mech, nil
}

// Creature is a monster as a pack's creature: the fields the rules play
// (package world's Character), hostile, with its size and type as tags.
func Creature(m systems.Monster) world.Character {
	c := world.Character{Kind: world.Creature, Name: m.Name, Hostile: true}
	for _, t := range []string{strings.ToLower(m.Size), strings.ToLower(strings.SplitN(m.Type, " ", 2)[0])} {
		if t != "" {
			c.Tags = append(c.Tags, t)
		}
	}
	c.Alignment, c.ChallengeRating, c.XP = m.Alignment, m.CR, m.XP
	c.HP, c.MaxHP, c.AC, c.HitDice, c.Speed = m.HP, m.HP, m.AC, m.HitDice, m.Walk
	if m.Scores != ([6]int{}) {
		c.Abilities = map[string]int{}
		for i, a := range systems.Abilities {
			c.Abilities[a] = m.Scores[i]
		}
	}
	if m.CR != "" {
		c.ProficiencyBonus = systems.ProficiencyBonus(m.CR)
	}
	for _, a := range systems.Abilities {
		if _, ok := m.Saves[a]; ok {
			c.SavingThrows = append(c.SavingThrows, a)
		}
	}
	// The sheet's skills are the bonus over the ability modifier; the
	// block prints totals.
	for s, total := range m.Skills {
		if c.Skills == nil {
			c.Skills = map[string]int{}
		}
		c.Skills[s] = total - systems.Modifier(m.Scores[skillAbility(s)])
	}
	if l := strings.TrimSpace(m.Languages); l != "" && l != "—" {
		for _, p := range strings.Split(l, ",") {
			if p = strings.TrimSpace(p); p != "" {
				c.Languages = append(c.Languages, p)
			}
		}
	}
	for _, f := range m.Actions {
		if f.Attack != nil && f.Attack.Damage != "" {
			c.Attacks = append(c.Attacks, world.Attack{Name: f.Name, Bonus: f.Attack.ToHit, Damage: f.Attack.Damage, DamageType: f.Attack.DamageType})
		}
	}
	return c
}

// skillAbility is the index in systems.Abilities of a skill's ability.
func skillAbility(skill string) int {
	switch skill {
	case "athletics":
		return 0
	case "acrobatics", "sleight of hand", "stealth":
		return 1
	case "arcana", "history", "investigation", "nature", "religion":
		return 3
	case "animal handling", "insight", "medicine", "perception", "survival":
		return 4
	case "deception", "intimidation", "performance", "persuasion":
		return 5
	}
	return 0
}

// Described is a monster's stat block as prose, for a creature file's
// body: what the fields do not hold (senses, defences, traits, the
// actions' full text).
func Described(m systems.Monster) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n*%s %s, %s*\n\n", m.Name, m.Size, m.Type, m.Alignment)
	ac := fmt.Sprint(m.AC)
	if m.ACNote != "" {
		ac += " (" + m.ACNote + ")"
	}
	hp := fmt.Sprint(m.HP)
	if m.HitDice != "" {
		hp += " (" + m.HitDice + ")"
	}
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "**%s** %s  \n", k, v)
		}
	}
	line("Armor Class", ac)
	line("Hit Points", hp)
	line("Speed", m.Speed)
	var scores []string
	for i, a := range systems.Abilities {
		scores = append(scores, fmt.Sprintf("%s %d (%+d)", strings.ToUpper(a[:3]), m.Scores[i], systems.Modifier(m.Scores[i])))
	}
	line("Abilities", strings.Join(scores, ", "))
	line("Damage Vulnerabilities", m.Vulnerabilities)
	line("Damage Resistances", m.Resistances)
	line("Damage Immunities", m.Immunities)
	line("Condition Immunities", m.ConditionImmunities)
	line("Senses", m.Senses)
	line("Languages", m.Languages)
	if m.CR != "" {
		line("Challenge", fmt.Sprintf("%s (%d XP)", m.CR, m.XP))
	}
	for _, sec := range []struct {
		title string
		list  []systems.Feature
	}{{"", m.Traits}, {"Actions", m.Actions}, {"Reactions", m.Reactions}, {"Legendary Actions", m.Legendary}} {
		if len(sec.list) == 0 {
			continue
		}
		if sec.title != "" {
			fmt.Fprintf(&b, "\n## %s\n", sec.title)
		}
		for _, f := range sec.list {
			if f.Name == "" {
				fmt.Fprintf(&b, "\n%s\n", f.Text)
			} else {
				fmt.Fprintf(&b, "\n***%s.*** %s\n", f.Name, f.Text)
			}
		}
	}
	return b.String()
}

// PackItem is an item as a pack's item: type, damage, cost in gold,
// weight, armor's shield bonus, and the description.
func PackItem(it systems.Item) world.Item {
	w := world.Item{Name: it.Name, Damage: it.Damage, DamageType: it.DamageType, Weight: it.Weight, Value: it.CostCP / 100}
	switch it.Category {
	case "weapon", "armor":
		w.Type = it.Category
	case "potion":
		w.Type = "consumable"
	default:
		w.Type = "treasure"
	}
	if strings.HasPrefix(it.AC, "+") { // a shield
		fmt.Sscanf(it.AC, "+%d", &w.ACBonus)
	}
	for _, p := range it.Properties {
		if p == "finesse" {
			w.Ability = []string{"strength", "dexterity"}
		}
	}
	var desc []string
	if it.Rarity != "" {
		desc = append(desc, fmt.Sprintf("%s, %s.", strings.ToUpper(it.Category[:1])+it.Category[1:], it.Rarity))
	}
	if it.AC != "" {
		desc = append(desc, "Armor Class "+it.AC+".")
	}
	if len(it.Properties) > 0 {
		desc = append(desc, "Properties: "+strings.Join(it.Properties, ", ")+".")
	}
	if it.Text != "" {
		desc = append(desc, it.Text)
	}
	w.Description = strings.Join(desc, " ")
	if w.Damage != "" && w.Type == "weapon" && len(w.Ability) == 0 {
		w.Ability = []string{"strength"}
		for _, p := range it.Properties {
			if strings.HasPrefix(p, "ammunition") {
				w.Ability = []string{"dexterity"}
			}
		}
	}
	return w
}
