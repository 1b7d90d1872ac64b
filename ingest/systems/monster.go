package systems

import "strconv"

// Abilities lists the six ability scores in stat block order.
var Abilities = [6]string{"strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"}

// Monster is one stat block as printed.
type Monster struct {
	Name      string `json:"name"`
	Page      int    `json:"page,omitempty"` // where its name is printed
	Size      string `json:"size"`           // Tiny … Gargantuan
	Type      string `json:"type"`           // beast, humanoid (goblinoid), swarm of Tiny beasts
	Alignment string `json:"alignment"`

	AC      int    `json:"armor_class"`
	ACNote  string `json:"armor_class_note,omitempty"` // "natural armor", "chain shirt, shield"
	HP      int    `json:"hit_points"`
	HitDice string `json:"hit_dice,omitempty"` // "2d6", "18d10+36"
	Speed   string `json:"speed"`              // as printed: "30 ft., fly 60 ft."
	Walk    int    `json:"walk,omitempty"`     // the walking speed in feet

	// Scores in Abilities order.
	Scores [6]int `json:"scores"`
	// Saves and Skills are the printed totals: "Dex +4" is dexterity 4.
	Saves  map[string]int `json:"saves,omitempty"`
	Skills map[string]int `json:"skills,omitempty"`

	Vulnerabilities     string `json:"damage_vulnerabilities,omitempty"`
	Resistances         string `json:"damage_resistances,omitempty"`
	Immunities          string `json:"damage_immunities,omitempty"`
	ConditionImmunities string `json:"condition_immunities,omitempty"`
	Senses              string `json:"senses,omitempty"`
	PassivePerception   int    `json:"passive_perception,omitempty"`
	Languages           string `json:"languages,omitempty"`
	CR                  string `json:"challenge"` // "1/4", "10"
	XP                  int    `json:"xp"`

	Traits    []Feature `json:"traits,omitempty"`
	Actions   []Feature `json:"actions,omitempty"`
	Reactions []Feature `json:"reactions,omitempty"`
	Legendary []Feature `json:"legendary_actions,omitempty"`

	// Problems says what the parser could not read or found
	// inconsistent; empty for a block it is sure of.
	Problems []string `json:"problems,omitempty"`
}

// Feature is a trait, action, reaction or legendary action: its name and
// text, and for an attack what the rules need.
type Feature struct {
	Name string `json:"name"`
	Text string `json:"text"`
	// Attack is set for "Melee Weapon Attack: +4 to hit, …".
	Attack *Attack `json:"attack,omitempty"`
}

// Attack is an attack action's numbers.
type Attack struct {
	Kind       string `json:"kind"` // "melee weapon", "ranged spell", "melee or ranged weapon"
	ToHit      int    `json:"to_hit"`
	Reach      int    `json:"reach,omitempty"` // feet
	Range      string `json:"range,omitempty"` // "80/320"
	Average    int    `json:"average,omitempty"`
	Damage     string `json:"damage,omitempty"` // dice: "1d6+2"; a fixed amount: "1"
	DamageType string `json:"damage_type,omitempty"`
}

// Sure reports whether the parser read every field it checks and found
// them consistent.
func (m Monster) Sure() bool { return len(m.Problems) == 0 }

// Usable reports whether the block has what a fight needs: a name,
// Armor Class and hit points.
func (m Monster) Usable() bool { return m.Name != "" && m.AC > 0 && m.HP > 0 }

// Modifier is a score's ability modifier: (score − 10) / 2, rounded down.
func Modifier(score int) int {
	d := score - 10
	if d < 0 {
		return (d - 1) / 2
	}
	return d / 2
}

// ProficiencyBonus is the bonus for a challenge rating: +2 up to CR 4,
// one more every four ratings after.
func ProficiencyBonus(cr string) int {
	n, err := strconv.Atoi(cr)
	if err != nil || n < 1 { // 0, 1/8, 1/4, 1/2
		return 2
	}
	return 2 + (n-1)/4
}
