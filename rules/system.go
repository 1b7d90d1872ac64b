package rules

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/hearth-rpg/hearth/dice"
	"github.com/hearth-rpg/hearth/world"
)

// Degree grades a resolved roll.
type Degree string

// Degrees, worst first.
const (
	CriticalFailure Degree = "critical_failure"
	Failure         Degree = "failure"
	Partial         Degree = "partial" // success at a cost (2d6 bands 7–9)
	Success         Degree = "success"
	CriticalSuccess Degree = "critical_success"
)

// Succeeded reports whether the roll achieved its aim, fully or partly.
func (d Degree) Succeeded() bool { return d == Partial || d == Success || d == CriticalSuccess }

// CheckResult is a resolved check, save, attack roll or initiative.
type CheckResult struct {
	System    string      `json:"system"`
	Kind      string      `json:"kind"` // check, save, attack, initiative
	Character string      `json:"character"`
	Ability   string      `json:"ability,omitempty"`
	Skill     string      `json:"skill,omitempty"`
	Roll      dice.Result `json:"roll"`
	Modifier  int         `json:"modifier"`
	Total     int         `json:"total"`
	Target    int         `json:"target"` // DC, AC or target number
	Degree    Degree      `json:"degree"`
	// Effect is Total − Target: Traveller's Effect, the margin elsewhere.
	Effect int `json:"effect"`
}

// Succeeded reports whether the check achieved its aim, fully or partly.
func (c CheckResult) Succeeded() bool { return c.Degree.Succeeded() }

// Advantage: +1 advantage, −1 disadvantage, 0 neither (they cancel).
type Advantage int

// ParseAdvantage reads "advantage", "adv", "disadvantage", "dis" or "".
func ParseAdvantage(s string) (Advantage, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "none", "normal":
		return 0, nil
	case "advantage", "adv":
		return 1, nil
	case "disadvantage", "dis":
		return -1, nil
	}
	return 0, fmt.Errorf("advantage %q: use advantage, disadvantage or leave it empty", s)
}

// roll is one request to a System.
type roll struct {
	Kind      string // check, save, attack, initiative
	Ability   string
	Skill     string
	Target    int // DC, AC or target number; 0 means the system's default
	Advantage Advantage
	Bonus     int // situational modifiers already decided (perception, proficiency for attacks)
}

// System is a resolution system. Implementations are stateless.
type System interface {
	Name() string
	// Resolve rolls for c and grades the result.
	Resolve(r *rand.Rand, c *world.Character, q roll) (CheckResult, error)
	// AbilityModifier is what an ability score adds to a roll.
	AbilityModifier(score int) int
	// CriticalDamage reports whether a hit's damage dice are doubled.
	CriticalDamage(hit CheckResult) bool
	// DamageBonus is added to the damage of a hit (Traveller adds Effect).
	DamageBonus(hit CheckResult) int
	// Armor is what the target's armour subtracts from damage.
	Armor(target *world.Character) int
	// DefaultDC is the target of an unspecified check.
	DefaultDC() int
}

// NewSystem returns the named resolution system.
func NewSystem(name string) (System, error) {
	switch strings.ToLower(name) {
	case world.SystemD20, "", "5e", "dnd5e":
		return d20{}, nil
	case world.System2d6, "2d6-bands", "pbta":
		return bands{}, nil
	case world.SystemTraveller, "mgt2e", "2d6-traveller":
		return traveller{}, nil
	}
	return nil, fmt.Errorf("unknown resolution system %q: use d20, 2d6 or traveller", name)
}

func modifierFor(s System, c *world.Character, q roll) (mod int, ability, skill string) {
	skill = normalSkill(q.Skill)
	ability = normalAbility(q.Ability)
	if ability == "" && skill != "" {
		ability = skillAbility[skill]
	}
	if score, ok := c.Abilities[ability]; ok {
		mod += s.AbilityModifier(score)
	}
	return mod, ability, skill
}

// SkillBonus is what a check with skill adds to c's roll, as Resolve adds
// it: the ability modifier plus the skill's bonus (d20, 2d6), so a sheet
// shows the number the dice use. Traveller shows the skill level.
func SkillBonus(s System, c *world.Character, skill string) int {
	if s.Name() == world.SystemTraveller {
		return c.Skills[normalSkill(skill)]
	}
	mod, _, sk := modifierFor(s, c, roll{Kind: "check", Skill: skill})
	return mod + c.Skills[sk]
}

func rollDice(r *rand.Rand, notation string) (dice.Result, error) {
	res, err := dice.Roll(r, notation, nil)
	if err != nil {
		return dice.Result{}, fmt.Errorf("roll %s: %w", notation, err)
	}
	return res, nil
}

// d20 is 5e-style resolution.
type d20 struct{}

func (d20) Name() string                        { return world.SystemD20 }
func (d20) AbilityModifier(score int) int       { return floorDiv(score-10, 2) }
func (d20) CriticalDamage(hit CheckResult) bool { return hit.Degree == CriticalSuccess }
func (d20) DamageBonus(CheckResult) int         { return 0 }
func (d20) Armor(*world.Character) int          { return 0 }
func (d20) DefaultDC() int                      { return 10 }

func (s d20) Resolve(r *rand.Rand, c *world.Character, q roll) (CheckResult, error) {
	mod, ability, skill := modifierFor(s, c, q)
	switch q.Kind {
	case "check":
		mod += c.Skills[skill]
	case "save":
		if containsFold(c.SavingThrows, ability) || containsFold(c.SavingThrows, abbrev(ability)) {
			mod += c.ProficiencyBonus
		}
	case "initiative":
		mod += c.InitiativeBonus
	}
	mod += q.Bonus
	notation := "1d20"
	switch {
	case q.Advantage > 0:
		notation = "2d20kh1"
	case q.Advantage < 0:
		notation = "2d20kl1"
	}
	res, err := rollDice(r, fmt.Sprintf("%s%+d", notation, mod))
	if err != nil {
		return CheckResult{}, err
	}
	target := q.Target
	if target == 0 && q.Kind != "initiative" {
		target = s.DefaultDC()
	}
	out := CheckResult{System: s.Name(), Kind: q.Kind, Character: c.ID, Ability: ability, Skill: skill,
		Roll: res, Modifier: mod, Total: res.Total, Target: target, Effect: res.Total - target}
	out.Degree = Failure
	if res.Total >= target {
		out.Degree = Success
	}
	if q.Kind == "attack" {
		// 5e: a natural 20 always hits and is critical; a natural 1 always misses.
		if nat, ok := res.Natural(); ok {
			switch nat {
			case 20:
				out.Degree = CriticalSuccess
			case 1:
				out.Degree = CriticalFailure
			}
		}
	}
	return out, nil
}

// bands is the 2d6 system of seed 001 §7.4: 2–6 failure, 7–9 partial
// success, 10+ success. Ability scores small enough to be modifiers (−4..4)
// are used as they are; 5e-sized scores become 5e modifiers.
type bands struct{}

func (bands) Name() string { return world.System2d6 }
func (bands) AbilityModifier(score int) int {
	if score >= -4 && score <= 4 {
		return score
	}
	return floorDiv(score-10, 2)
}
func (bands) CriticalDamage(CheckResult) bool { return false }
func (bands) DamageBonus(CheckResult) int     { return 0 }
func (bands) Armor(*world.Character) int      { return 0 }
func (bands) DefaultDC() int                  { return 10 }

func (s bands) Resolve(r *rand.Rand, c *world.Character, q roll) (CheckResult, error) {
	mod, ability, skill := modifierFor(s, c, q)
	if q.Kind == "check" || q.Kind == "attack" {
		mod += c.Skills[skill]
	}
	mod += q.Bonus
	res, err := rollDice(r, fmt.Sprintf("%s%+d", twoD6(q.Advantage), mod))
	if err != nil {
		return CheckResult{}, err
	}
	out := CheckResult{System: s.Name(), Kind: q.Kind, Character: c.ID, Ability: ability, Skill: skill,
		Roll: res, Modifier: mod, Total: res.Total, Target: 10, Effect: res.Total - 10}
	switch {
	case q.Kind == "initiative":
		out.Degree, out.Target, out.Effect = Success, 0, res.Total
	case res.Total >= 10:
		out.Degree = Success
	case res.Total >= 7:
		out.Degree = Partial
	default:
		out.Degree = Failure
	}
	return out, nil
}

// traveller is Mongoose Traveller 2e task resolution: 2D + characteristic
// DM + skill level (−3 unskilled) against 8+ by default; Effect = total − 8.
// Sheet.AC is the target's armour, subtracted from damage.
type traveller struct{}

func (traveller) Name() string { return world.SystemTraveller }

// AbilityModifier is the Traveller characteristic DM table.
func (traveller) AbilityModifier(score int) int {
	switch {
	case score <= 0:
		return -3
	case score <= 2:
		return -2
	case score <= 5:
		return -1
	case score <= 8:
		return 0
	case score <= 11:
		return 1
	case score <= 14:
		return 2
	}
	return 3
}
func (traveller) CriticalDamage(CheckResult) bool { return false }
func (traveller) DamageBonus(hit CheckResult) int { return max(0, hit.Effect) }
func (traveller) Armor(t *world.Character) int    { return t.AC }
func (traveller) DefaultDC() int                  { return 8 }

func (s traveller) Resolve(r *rand.Rand, c *world.Character, q roll) (CheckResult, error) {
	mod, ability, skill := modifierFor(s, c, q)
	if skill != "" && q.Kind != "initiative" {
		if lvl, ok := c.Skills[skill]; ok {
			mod += lvl
		} else {
			mod -= 3 // unskilled
		}
	}
	mod += q.Bonus
	res, err := rollDice(r, fmt.Sprintf("%s%+d", twoD6(q.Advantage), mod))
	if err != nil {
		return CheckResult{}, err
	}
	target := q.Target
	if target == 0 {
		target = s.DefaultDC()
	}
	out := CheckResult{System: s.Name(), Kind: q.Kind, Character: c.ID, Ability: ability, Skill: skill,
		Roll: res, Modifier: mod, Total: res.Total, Target: target, Effect: res.Total - target}
	switch {
	case q.Kind == "initiative":
		out.Degree, out.Target, out.Effect = Success, 0, res.Total
	case out.Effect >= 6:
		out.Degree = CriticalSuccess
	case out.Effect >= 0:
		out.Degree = Success
	case out.Effect <= -6:
		out.Degree = CriticalFailure
	default:
		out.Degree = Failure
	}
	return out, nil
}

// twoD6 is the 2D6 roll with advantage: a third die, keeping the best two
// (Traveller's boon) or the worst two (its bane).
func twoD6(adv Advantage) string {
	switch {
	case adv > 0:
		return "3d6kh2"
	case adv < 0:
		return "3d6kl2"
	}
	return "2d6"
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// skillAbility maps 5e skills to their abilities.
var skillAbility = map[string]string{
	"athletics":  "strength",
	"acrobatics": "dexterity", "sleight_of_hand": "dexterity", "stealth": "dexterity",
	"arcana": "intelligence", "history": "intelligence", "investigation": "intelligence",
	"nature": "intelligence", "religion": "intelligence",
	"animal_handling": "wisdom", "insight": "wisdom", "medicine": "wisdom",
	"perception": "wisdom", "survival": "wisdom",
	"deception": "charisma", "intimidation": "charisma", "performance": "charisma",
	"persuasion": "charisma",
}

var abilityNames = map[string]string{
	"str": "strength", "dex": "dexterity", "con": "constitution",
	"int": "intelligence", "wis": "wisdom", "cha": "charisma",
	"end": "endurance", "edu": "education", "soc": "social",
}

func normalAbility(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if full, ok := abilityNames[s]; ok {
		return full
	}
	return s
}

func abbrev(ability string) string {
	for k, v := range abilityNames {
		if v == ability {
			return k
		}
	}
	return ability
}

func normalSkill(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), " ", "_")
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
