package chargen

import (
	"slices"
	"strings"
)

// Catalog is everything a creation wizard offers, from the same tables
// Build validates against.
type Catalog struct {
	Races          []Race       `json:"races"` // base races; Subraces name the entries in Subraces
	Subraces       []Race       `json:"subraces"`
	Classes        []Class      `json:"classes"`
	Backgrounds    []Background `json:"backgrounds"`
	Skills         []Skill      `json:"skills"`
	Abilities      []string     `json:"abilities"`
	Methods        []string     `json:"methods"`
	StandardArray  []int        `json:"standard_array"`
	PointBuyBudget int          `json:"point_buy_budget"`
	PointBuyCosts  map[int]int  `json:"point_buy_costs"`
	Armor          []Armor      `json:"armor"`
	Weapons        []Weapon     `json:"weapons"`
	Languages      []string     `json:"languages"`
	MaxLevel       int          `json:"max_level"`
	Attribution    string       `json:"attribution"`
}

// Skill is a skill and its ability.
type Skill struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Ability string `json:"ability"`
}

// Attribution credits the SRD, whose data the catalog carries.
const Attribution = "Races, classes, the Acolyte background, armor, weapons and spell slot tables are from the System Reference Document 5.1 by Wizards of the Coast LLC, licensed under CC-BY-4.0 (https://creativecommons.org/licenses/by/4.0/)."

// Options returns the catalog, sorted by ID.
func Options() Catalog {
	c := Catalog{Abilities: slices.Clone(Abilities), Methods: []string{StandardArrayMethod, PointBuyMethod, RolledMethod},
		StandardArray: slices.Clone(StandardArray), PointBuyBudget: PointBuyBudget, PointBuyCosts: map[int]int{},
		Languages: slices.Clone(Languages), MaxLevel: MaxLevel, Attribution: Attribution}
	for k, v := range PointBuyCost {
		c.PointBuyCosts[k] = v
	}
	for _, id := range sortedKeys(races) {
		if races[id].parent == "" {
			c.Races = append(c.Races, races[id])
		} else {
			c.Subraces = append(c.Subraces, races[id])
		}
	}
	for _, id := range sortedKeys(classes) {
		cl := classes[id]
		if len(cl.SkillChoices) == 0 {
			cl.SkillChoices = sortedKeys(SkillAbility)
		}
		c.Classes = append(c.Classes, cl)
	}
	for _, id := range sortedKeys(backgrounds) {
		c.Backgrounds = append(c.Backgrounds, backgrounds[id])
	}
	for _, id := range sortedKeys(SkillAbility) {
		c.Skills = append(c.Skills, Skill{ID: id, Name: skillName(id), Ability: SkillAbility[id]})
	}
	for _, id := range sortedKeys(armors) {
		c.Armor = append(c.Armor, armors[id])
	}
	for _, id := range sortedKeys(weapons) {
		c.Weapons = append(c.Weapons, weapons[id])
	}
	return c
}

func skillName(id string) string {
	words := strings.Split(id, "_")
	for i, w := range words {
		if w != "of" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}
