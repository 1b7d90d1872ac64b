package chargen

import (
	"context"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// A created character plays: the rules engine, reading only the sheet,
// rolls the modifiers Build derived for a skill, a save and an attack.
func TestSheetPlaysThroughTheRules(t *testing.T) {
	ch := mustBuild(t, Choices{Name: "Wren", Race: "halfling", Subrace: "lightfoot_halfling", Class: "rogue", Background: "criminal",
		Armor: "leather", Weapon: "rapier", Method: StandardArrayMethod,
		Scores: array("dexterity", "constitution", "intelligence", "wisdom", "charisma", "strength"),
		Skills: []string{"acrobatics", "investigation", "perception", "sleight_of_hand"}, Expertise: []string{"stealth", "perception"}})
	st, err := Templates{}.Story(context.Background(), ch, 1)
	if err != nil {
		t.Fatal(err)
	}
	ch.Story = &st
	pc, err := ch.Sheet("wren")
	if err != nil {
		t.Fatal(err)
	}
	if pc.Kind != world.PC || pc.HP != ch.MaxHP || pc.MaxHP != ch.MaxHP || pc.AC != 14 || pc.HitDice != "1d8" ||
		pc.Backstory == "" || len(pc.PersonalityTraits) != 2 || len(pc.Flaws) != 1 || !maps.Equal(pc.Abilities, ch.Abilities) {
		t.Fatalf("sheet: %+v", pc)
	}
	// The sheet survives the game state's JSON round trip whole.
	b, _ := json.Marshal(pc)
	var back world.Character
	if err := json.Unmarshal(b, &back); err != nil || back.Skills["stealth"] != 4 || back.Backstory != pc.Backstory {
		t.Fatalf("round trip: %v %+v", err, back)
	}

	w := world.New(world.SystemD20)
	w.Player = "wren"
	w.Locations = map[string]*world.Location{"road": {ID: "road", Name: "the Road"}}
	pc.Location = "road"
	w.Characters = map[string]*world.Character{"wren": pc,
		"bandit": {ID: "bandit", Kind: world.Creature, Name: "Bandit", Location: "road", Hostile: true,
			Sheet: world.Sheet{HP: 11, MaxHP: 11, AC: 12, Abilities: map[string]int{"dexterity": 12}}}}
	e, err := rules.New(world.SystemD20)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   rules.Intent
		want int
	}{
		{"stealth (expertise)", rules.Check{Skill: "stealth", DC: 10}, ch.SkillModifiers["stealth"]},
		{"sleight of hand", rules.Check{Skill: "sleight of hand", DC: 10}, ch.SkillModifiers["sleight_of_hand"]},
		{"athletics (not proficient)", rules.Check{Skill: "athletics", DC: 10}, ch.SkillModifiers["athletics"]},
		{"intelligence save (proficient)", rules.SavingThrow{Ability: "intelligence", DC: 10}, ch.Saves["intelligence"]},
		{"wisdom save", rules.SavingThrow{Ability: "wisdom", DC: 10}, ch.Saves["wisdom"]},
		{"rapier", rules.Attack{Target: "bandit"}, ch.Attack.Bonus},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.Resolve(t.Context(), w, tt.in, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			var check *rules.CheckResult
			for _, o := range res.Outcomes {
				if o.Check != nil {
					check = o.Check
					break
				}
			}
			if check == nil {
				t.Fatalf("no roll: %s", res.Summary())
			}
			if check.Modifier != tt.want {
				t.Errorf("the engine rolled %+d, the sheet says %+d (%s)", check.Modifier, tt.want, res.Summary())
			}
		})
	}
	if ch.SkillModifiers["stealth"] != 3+4 || ch.Attack.Bonus != 5 || ch.Attack.Damage != "1d8+3" {
		t.Errorf("SRD numbers: stealth %+d rapier %+d %s", ch.SkillModifiers["stealth"], ch.Attack.Bonus, ch.Attack.Damage)
	}
}

func TestSheetNeedsID(t *testing.T) {
	if _, err := cleric(t).Sheet(" "); err == nil {
		t.Error("a sheet without an id was made")
	}
}
