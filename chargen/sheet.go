package chargen

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/world"
)

// Sheet returns the character as the game's full player-character sheet,
// with the given entity ID: abilities, skills (the proficiency bonus the
// rules engine adds to the ability modifier), saves, HP, hit dice, spell
// slots, the chosen weapon as an attack, and the story when it has one.
// The game places it (Location) when it joins one.
func (ch *Character) Sheet(id string) (*world.Character, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, refuse("chargen.sheet_id", nil, "a character sheet needs an id")
	}
	c := &world.Character{
		ID: id, Kind: world.PC, Name: ch.Name,
		Description: fmt.Sprintf("A level %d %s %s (%s).", ch.Level, strings.ToLower(ch.RaceName), strings.ToLower(ch.ClassName), strings.ToLower(ch.BackgroundName)),
		Sheet: world.Sheet{
			Race: strings.ToLower(ch.RaceName), Class: ch.Class, Level: ch.Level, Background: ch.BackgroundName, Alignment: ch.Alignment,
			Abilities: maps.Clone(ch.Abilities),
			HP:        ch.MaxHP, MaxHP: ch.MaxHP, AC: ch.AC, Speed: ch.Speed,
			HitDice:             fmt.Sprintf("%dd%d", ch.Level, ch.HitDie),
			ProficiencyBonus:    ch.ProficiencyBonus,
			SavingThrows:        slices.Clone(ch.SavingThrows),
			Skills:              maps.Clone(ch.SkillBonus),
			Languages:           slices.Clone(ch.Languages),
			ToolProficiencies:   slices.Clone(ch.ToolProficiencies),
			Gold:                ch.Gold,
			SpellcastingAbility: ch.SpellcastingAbility,
			SpellSaveDC:         ch.SpellSaveDC,
			SpellAttackBonus:    ch.SpellAttackBonus,
			SpellSlots:          maps.Clone(ch.SpellSlots),
			ClassFeatures:       slices.Clone(ch.ClassFeatures),
			RacialTraits:        slices.Clone(ch.RacialTraits),
		},
	}
	if ch.Attack != nil {
		c.Attacks = []world.Attack{{Name: ch.Attack.Name, Bonus: ch.Attack.Bonus, Damage: ch.Attack.Damage, DamageType: ch.Attack.DamageType}}
	}
	if s := ch.Story; s != nil {
		c.PersonalityTraits = slices.Clone(s.PersonalityTraits)
		c.Ideals, c.Bonds, c.Flaws = slices.Clone(s.Ideals), slices.Clone(s.Bonds), slices.Clone(s.Flaws)
		c.Backstory = s.Backstory
		c.Personality = strings.Join(s.PersonalityTraits, " ")
	}
	return c, nil
}
