package chargen

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
)

// array assigns the standard array in the order given.
func array(order ...string) map[string]int {
	m := map[string]int{}
	for i, a := range order {
		m[a] = StandardArray[i]
	}
	return m
}

// Every class at level 1, checked by hand against the SRD 5.1 tables:
// hit die max + CON, armor formulas, saves, slots, DC = 8 + prof + mod.
func TestBuildEveryClassLevel1(t *testing.T) {
	tests := []struct {
		name                   string
		in                     Choices
		hp, ac, speed, dc, atk int
		saves                  []string
		slots                  map[int]int
		skill                  string // a skill and its total modifier
		skillMod               int
	}{
		{"barbarian", Choices{Race: "half_orc", Class: "barbarian", Background: "soldier",
			Scores: array("strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"), Skills: []string{"survival", "perception"}},
			14, 14, 30, 0, 0, []string{"strength", "constitution"}, nil, "intimidation", 1},
		{"bard", Choices{Race: "half-elf", Class: "bard", Background: "acolyte", Armor: "leather",
			Scores: array("charisma", "dexterity", "constitution", "intelligence", "wisdom", "strength"), AbilityBonuses: []string{"dexterity", "constitution"},
			Skills: []string{"deception", "performance", "persuasion"}, RaceSkills: []string{"perception", "stealth"}},
			10, 13, 30, 13, 5, []string{"dexterity", "charisma"}, map[int]int{1: 2}, "persuasion", 5},
		{"cleric", Choices{Race: "dwarf", Subrace: "hill_dwarf", Class: "cleric", Background: "acolyte", Armor: "chain_mail", Shield: true,
			Scores: array("wisdom", "constitution", "strength", "charisma", "dexterity", "intelligence"), Skills: []string{"medicine", "persuasion"}},
			12, 18, 25, 13, 5, []string{"wisdom", "charisma"}, map[int]int{1: 2}, "religion", 1},
		{"druid", Choices{Race: "human", Class: "druid", Background: "folk_hero", Armor: "leather", Shield: true,
			Scores: array("wisdom", "constitution", "dexterity", "intelligence", "charisma", "strength"), Skills: []string{"nature", "medicine"}},
			10, 15, 30, 13, 5, []string{"intelligence", "wisdom"}, map[int]int{1: 2}, "survival", 5},
		{"fighter", Choices{Race: "human", Class: "fighter", Background: "soldier", Armor: "chain_mail", FightingStyle: "defense", Weapon: "longsword",
			Scores: array("strength", "constitution", "dexterity", "wisdom", "charisma", "intelligence"), Skills: []string{"perception", "survival"}},
			12, 17, 30, 0, 0, []string{"strength", "constitution"}, nil, "athletics", 5},
		{"monk", Choices{Race: "human", Class: "monk", Background: "acolyte",
			Scores: array("dexterity", "wisdom", "constitution", "strength", "intelligence", "charisma"), Skills: []string{"acrobatics", "stealth"}},
			10, 15, 30, 0, 0, []string{"strength", "dexterity"}, nil, "stealth", 5},
		{"paladin", Choices{Race: "dragonborn", Class: "paladin", Background: "noble", Armor: "chain_mail", Shield: true,
			Scores: array("strength", "charisma", "constitution", "wisdom", "dexterity", "intelligence"), Skills: []string{"athletics", "insight"}},
			11, 18, 30, 0, 0, []string{"wisdom", "charisma"}, nil, "persuasion", 4},
		{"ranger", Choices{Race: "high elf", Class: "ranger", Background: "folk_hero", Armor: "leather", Weapon: "longbow",
			Scores: array("dexterity", "wisdom", "constitution", "strength", "intelligence", "charisma"), Skills: []string{"stealth", "nature", "athletics"}},
			11, 14, 30, 0, 0, []string{"strength", "dexterity"}, nil, "perception", 4},
		{"rogue", Choices{Race: "halfling", Subrace: "lightfoot_halfling", Class: "rogue", Background: "criminal", Armor: "leather", Weapon: "rapier",
			Scores: array("dexterity", "constitution", "intelligence", "wisdom", "charisma", "strength"), Skills: []string{"acrobatics", "investigation", "perception", "sleight_of_hand"},
			Expertise: []string{"stealth", "perception"}},
			10, 14, 25, 0, 0, []string{"dexterity", "intelligence"}, nil, "stealth", 7},
		{"sorcerer", Choices{Race: "tiefling", Class: "sorcerer", Background: "sage",
			Scores: array("charisma", "constitution", "dexterity", "wisdom", "intelligence", "strength"), Skills: []string{"deception", "persuasion"}},
			9, 14, 30, 13, 5, []string{"constitution", "charisma"}, map[int]int{1: 2}, "arcana", 2},
		{"warlock", Choices{Race: "tiefling", Class: "warlock", Background: "sage", Armor: "leather",
			Scores: array("charisma", "dexterity", "constitution", "wisdom", "intelligence", "strength"), Skills: []string{"deception", "intimidation"}},
			9, 13, 30, 13, 5, []string{"wisdom", "charisma"}, map[int]int{1: 1}, "intimidation", 5},
		{"wizard", Choices{Race: "gnome", Subrace: "rock gnome", Class: "wizard", Background: "sage",
			Scores: array("intelligence", "constitution", "dexterity", "wisdom", "charisma", "strength"), Skills: []string{"investigation", "medicine"}},
			8, 11, 25, 13, 5, []string{"intelligence", "wisdom"}, map[int]int{1: 2}, "arcana", 5},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Name, in.Method = "Tester", StandardArrayMethod
			ch, err := Build(in)
			if err != nil {
				t.Fatal(err)
			}
			seen[ch.Class] = true
			if ch.MaxHP != tt.hp || ch.AC != tt.ac || ch.Speed != tt.speed || ch.ProficiencyBonus != 2 {
				t.Errorf("hp %d ac %d speed %d prof %d; want %d %d %d 2", ch.MaxHP, ch.AC, ch.Speed, ch.ProficiencyBonus, tt.hp, tt.ac, tt.speed)
			}
			if ch.SpellSaveDC != tt.dc || ch.SpellAttackBonus != tt.atk || !maps.Equal(ch.SpellSlots, tt.slots) {
				t.Errorf("spell dc %d attack %d slots %v; want %d %d %v", ch.SpellSaveDC, ch.SpellAttackBonus, ch.SpellSlots, tt.dc, tt.atk, tt.slots)
			}
			if !slices.Equal(ch.SavingThrows, tt.saves) {
				t.Errorf("saves %v, want %v", ch.SavingThrows, tt.saves)
			}
			for _, a := range tt.saves {
				if ch.Saves[a] != ch.Modifiers[a]+2 {
					t.Errorf("save %s %d, want modifier %d + 2", a, ch.Saves[a], ch.Modifiers[a])
				}
			}
			if got := ch.SkillModifiers[tt.skill]; got != tt.skillMod {
				t.Errorf("%s %+d, want %+d", tt.skill, got, tt.skillMod)
			}
			if len(ch.ClassFeatures) == 0 || ch.HitDie == 0 {
				t.Errorf("features %v hit die %d", ch.ClassFeatures, ch.HitDie)
			}
		})
	}
	if len(seen) != len(classes) {
		t.Errorf("tested %d classes of %d", len(seen), len(classes))
	}
}

func TestBuildLevels(t *testing.T) {
	base := func(class string, level int, mut func(*Choices)) Choices {
		c := Choices{Name: "L", Race: "human", Class: class, Background: "sage", Level: level, Method: StandardArrayMethod,
			Scores: array("strength", "constitution", "dexterity", "intelligence", "wisdom", "charisma")}
		mut(&c)
		return c
	}
	tests := []struct {
		name     string
		in       Choices
		hp, prof int
		slots    map[int]int
		features string
	}{
		// d10: 10 + CON at 1, then 6 + CON a level (average); CON 15 → +2.
		{"fighter 5", base("fighter", 5, func(c *Choices) { c.Skills = []string{"athletics", "perception"}; c.FightingStyle = "dueling" }),
			12 + 4*8, 3, nil, "Extra Attack"},
		{"wizard 5", base("wizard", 5, func(c *Choices) { c.Skills = []string{"investigation", "insight"} }),
			8 + 4*6, 3, map[int]int{1: 4, 2: 3, 3: 2}, "Arcane Tradition (School of Evocation)"},
		{"wizard 20", base("wizard", 20, func(c *Choices) { c.Skills = []string{"investigation", "insight"} }),
			8 + 19*6, 6, map[int]int{1: 4, 2: 3, 3: 3, 4: 3, 5: 3, 6: 2, 7: 2, 8: 1, 9: 1}, "Spellcasting"},
		{"paladin 5", base("paladin", 5, func(c *Choices) { c.Skills = []string{"athletics", "insight"}; c.FightingStyle = "defense" }),
			12 + 4*8, 3, map[int]int{1: 4, 2: 2}, "Divine Smite"},
		{"ranger 2", base("ranger", 2, func(c *Choices) { c.Skills = []string{"athletics", "insight", "stealth"}; c.FightingStyle = "archery" }),
			12 + 8, 2, map[int]int{1: 2}, "Fighting Style (Archery)"},
		{"warlock 5", base("warlock", 5, func(c *Choices) { c.Skills = []string{"deception", "intimidation"} }),
			10 + 4*7, 3, map[int]int{3: 2}, "Pact Boon"},
		{"rogue 9", base("rogue", 9, func(c *Choices) {
			c.Skills = []string{"stealth", "perception", "acrobatics", "deception"}
			c.Expertise = []string{"stealth", "perception", "acrobatics", "history"}
		}), 10 + 8*7, 4, nil, "Sneak Attack (5d6)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := Build(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if ch.MaxHP != tt.hp || ch.ProficiencyBonus != tt.prof || !maps.Equal(ch.SpellSlots, tt.slots) {
				t.Errorf("hp %d prof %d slots %v; want %d %d %v", ch.MaxHP, ch.ProficiencyBonus, ch.SpellSlots, tt.hp, tt.prof, tt.slots)
			}
			if !slices.Contains(ch.ClassFeatures, tt.features) {
				t.Errorf("features %v lack %q", ch.ClassFeatures, tt.features)
			}
		})
	}
}

func TestAbilityMethods(t *testing.T) {
	pb := Choices{Name: "P", Race: "human", Class: "fighter", Background: "soldier", Method: "point buy", FightingStyle: "archery",
		Scores: map[string]int{"strength": 15, "dexterity": 15, "constitution": 15, "intelligence": 8, "wisdom": 8, "charisma": 8},
		Skills: []string{"perception", "survival"}}
	ch, err := Build(pb)
	if err != nil {
		t.Fatal(err)
	}
	if ch.PointsSpent != 27 || ch.Abilities["strength"] != 16 || ch.Abilities["intelligence"] != 9 {
		t.Errorf("point buy: spent %d abilities %v", ch.PointsSpent, ch.Abilities)
	}

	rolls := Roll(42)
	if !slices.Equal(rolls, Roll(42)) || slices.Equal(rolls, Roll(43)) && slices.Equal(rolls, Roll(44)) {
		t.Fatalf("rolls are not a function of the seed: %v", rolls)
	}
	for _, r := range rolls {
		if r < 3 || r > 18 {
			t.Fatalf("4d6 drop lowest gave %d", r)
		}
	}
	rolled := pb
	rolled.Method, rolled.Seed, rolled.Scores = RolledMethod, 42, nil
	ch, err = Build(rolled)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Scores["strength"] != rolls[0] || ch.Scores["charisma"] != rolls[5] {
		t.Errorf("rolled in order: %v from %v", ch.Scores, rolls)
	}
	// Rearranged rolls are accepted; someone else's numbers are not.
	rolled.Scores = map[string]int{"strength": rolls[5], "dexterity": rolls[4], "constitution": rolls[3],
		"intelligence": rolls[2], "wisdom": rolls[1], "charisma": rolls[0]}
	if _, err := Build(rolled); err != nil {
		t.Errorf("rearranged rolls: %v", err)
	}
	rolled.Scores["strength"] = 99
	if _, err := Build(rolled); err == nil || !strings.Contains(err.Error(), "rolled scores assign the rolls of seed 42") {
		t.Errorf("foreign rolls: %v", err)
	}
}

func TestBuildRefuses(t *testing.T) {
	ok := Choices{Name: "R", Race: "human", Class: "fighter", Background: "soldier", Method: PointBuyMethod, FightingStyle: "defense",
		Scores: map[string]int{"strength": 15, "dexterity": 14, "constitution": 13, "intelligence": 10, "wisdom": 10, "charisma": 8},
		Skills: []string{"perception", "survival"}}
	if _, err := Build(ok); err != nil {
		t.Fatalf("the base build: %v", err)
	}
	tests := []struct {
		name string
		mut  func(*Choices)
		want string
		// field is the Choices field the refusal names, for a form.
		field string
	}{
		{"point buy 29", func(c *Choices) {
			c.Scores = map[string]int{"strength": 15, "dexterity": 15, "constitution": 15, "intelligence": 10, "wisdom": 8, "charisma": 8}
		}, "point buy spends 29 points; the budget is 27", "scores"},
		{"point buy 16", func(c *Choices) { c.Scores["strength"] = 16 }, "point buy scores are 8–15 before racial increases; strength is 16", "scores"},
		{"missing score", func(c *Choices) { delete(c.Scores, "wisdom") }, "missing wisdom", "scores"},
		{"bad standard array", func(c *Choices) { c.Method = StandardArrayMethod }, "the standard array assigns 15, 14, 13, 12, 10 and 8 once each", "scores"},
		{"unknown method", func(c *Choices) { c.Method = "wishes" }, `unknown ability score method "wishes"`, "scores"},
		{"skill twice", func(c *Choices) { c.Skills = []string{"athletics", "athletics"} }, "athletics is already granted by the soldier background", "skills"},
		{"chosen twice", func(c *Choices) { c.Skills = []string{"perception", "perception"} }, "a fighter chooses 2 skills from acrobatics, animal_handling, athletics, history, insight, intimidation, perception, survival; perception was chosen twice", "skills"},
		{"not a class skill", func(c *Choices) { c.Skills = []string{"arcana", "perception"} }, "arcana is not one of them", "skills"},
		{"too few skills", func(c *Choices) { c.Skills = []string{"perception"} }, "a fighter chooses 2 skills (skills)", "skills"},
		{"unknown class", func(c *Choices) { c.Class = "necromancer" }, `unknown class "necromancer"`, "class"},
		{"subrace needed", func(c *Choices) { c.Race = "elf" }, "an elf chooses a subrace: high_elf", "race"},
		{"wrong subrace", func(c *Choices) { c.Race, c.Subrace = "dwarf", "high_elf" }, `"high_elf" is not a dwarf subrace`, "race"},
		{"no fighting style", func(c *Choices) { c.FightingStyle = "" }, "a fighter chooses a fighting style", "fighting_style"},
		{"wizard in chain mail", func(c *Choices) {
			c.Class, c.Skills, c.FightingStyle, c.Armor = "wizard", []string{"arcana", "history"}, "", "chain_mail"
		}, "a wizard is not proficient with heavy armor (armor: none)", "armor"},
		{"monk shield", func(c *Choices) {
			c.Class, c.Skills, c.FightingStyle, c.Shield = "monk", []string{"acrobatics", "stealth"}, "", true
		}, "a monk is not proficient with shields", "shield"},
		{"rogue without expertise", func(c *Choices) {
			c.Class, c.FightingStyle, c.Skills = "rogue", "", []string{"stealth", "perception", "acrobatics", "deception"}
		}, "a rogue of level 1 chooses 2 skills for expertise; 0 were chosen", "expertise"},
		{"half-elf bonus on charisma", func(c *Choices) {
			c.Race, c.AbilityBonuses, c.RaceSkills = "half_elf", []string{"charisma", "wisdom"}, []string{"arcana", "history"}
		}, "charisma is raised already", "ability_bonuses"},
		{"half-elf no skills", func(c *Choices) {
			c.Race, c.AbilityBonuses = "half_elf", []string{"strength", "wisdom"}
		}, "a half-elf chooses 2 skills (race_skills)", "race_skills"},
		{"too many languages", func(c *Choices) { c.ExtraLanguages = []string{"Elvish", "Orc"} }, "give 1 extra languages; 2 were chosen", "extra_languages"},
		{"known language", func(c *Choices) { c.ExtraLanguages = []string{"common"} }, "Common is already known", "extra_languages"},
		{"level 21", func(c *Choices) { c.Level = 21 }, "level 21 is outside 1–20", "level"},
		{"no name", func(c *Choices) { c.Name = " " }, "a character needs a name", "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			c.Scores = maps.Clone(ok.Scores)
			tt.mut(&c)
			_, err := Build(c)
			if err == nil {
				t.Fatalf("accepted; want %q", tt.want)
			}
			if hearth.ErrorCode(err) != hearth.Invalid || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v (%s); want Invalid naming %q", err, hearth.ErrorCode(err), tt.want)
			}
			if got := Field(err); got != tt.field {
				t.Errorf("the refusal names field %q, want %q", got, tt.field)
			}
		})
	}
}

func FuzzBuild(f *testing.F) {
	f.Add([]byte(`{"name":"A","race":"human","class":"fighter","background":"soldier","method":"standard_array","scores":{"strength":15,"dexterity":14,"constitution":13,"intelligence":12,"wisdom":10,"charisma":8},"skills":["perception","survival"],"fighting_style":"defense","armor":"plate","weapon":"longsword"}`))
	f.Add([]byte(`{"name":"B","race":"half_elf","class":"rogue","background":"urchin","method":"rolled","seed":7,"level":20,"ability_bonuses":["dexterity","wisdom"],"skills":["acrobatics"],"expertise":["stealth"]}`))
	f.Add([]byte(`{"name":"C","race":"dwarf","subrace":"hill dwarf","class":"monk","background":"acolyte","method":"point_buy","scores":{"Strength":8},"level":-3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Choices
		if json.Unmarshal(data, &c) != nil {
			return
		}
		ch, err := Build(c)
		if err != nil {
			if hearth.ErrorCode(err) != hearth.Invalid {
				t.Fatalf("a refused build must be Invalid: %v", err)
			}
			return
		}
		if ch.MaxHP < ch.Level || ch.AC < 5 || ch.ProficiencyBonus < 2 {
			t.Fatalf("implausible sheet: hp %d ac %d prof %d", ch.MaxHP, ch.AC, ch.ProficiencyBonus)
		}
		if _, err := ch.Sheet("pc"); err != nil {
			t.Fatalf("a valid build must become a sheet: %v", err)
		}
	})
}

// The catalog a wizard shows offers exactly what Build accepts.
func TestOptionsMatchBuild(t *testing.T) {
	c := Options()
	if len(c.Classes) != 12 || len(c.Races) != 9 || len(c.Skills) != 18 || c.PointBuyBudget != 27 || c.PointBuyCosts[15] != 9 {
		t.Fatalf("catalog: %d classes, %d races, %d skills, budget %d", len(c.Classes), len(c.Races), len(c.Skills), c.PointBuyBudget)
	}
	srd := 0
	for _, b := range c.Backgrounds {
		if b.SRD {
			srd++
		}
	}
	if srd != 1 {
		t.Errorf("%d backgrounds marked SRD; the SRD has only the acolyte", srd)
	}
	for _, cl := range c.Classes {
		if cl.SkillCount > len(cl.SkillChoices) || cl.HitDie == 0 || len(cl.Saves) != 2 {
			t.Errorf("%s: %d skills from %d, d%d, saves %v", cl.ID, cl.SkillCount, len(cl.SkillChoices), cl.HitDie, cl.Saves)
		}
	}
}
