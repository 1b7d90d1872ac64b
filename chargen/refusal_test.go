package chargen

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/i18n"
)

// refusalIDs are the catalog ids the package's code passes to refuse.
func refusalIDs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var ids []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "refuse" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: refuse's id must be a string literal, so that this test sees it", fset.Position(call.Pos()))
				return true
			}
			id, _ := strconv.Unquote(lit.Value)
			ids = append(ids, id)
			return true
		})
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// Every refusal the code makes has its message in the English and the
// German catalog, and neither catalog keeps a message no code makes.
func TestRefusalsHaveCatalogMessages(t *testing.T) {
	ids := refusalIDs(t)
	if len(ids) < 40 {
		t.Fatalf("found %d refusal ids in the code; the scan is broken", len(ids))
	}
	for _, lang := range []string{"en", "de"} {
		var cat map[string]string
		if _, err := toml.DecodeFile(filepath.Join("..", "i18n", "locales", "chargen."+lang+".toml"), &cat); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			t.Run(lang+"/"+id, func(t *testing.T) {
				if strings.TrimSpace(cat[id]) == "" {
					t.Errorf("chargen.%s.toml has no message %q", lang, id)
				}
			})
		}
		for id := range cat {
			if !slices.Contains(ids, id) {
				t.Errorf("chargen.%s.toml has %q, which no refusal uses", lang, id)
			}
		}
	}
}

// Each refusal carries its catalog id and the data its German message
// needs, while its English message stays chargen's own.
func TestRefusalsInGerman(t *testing.T) {
	fighter := Choices{Name: "R", Race: "human", Class: "fighter", Background: "soldier", Method: PointBuyMethod, FightingStyle: "defense",
		Scores: map[string]int{"strength": 15, "dexterity": 14, "constitution": 13, "intelligence": 10, "wisdom": 10, "charisma": 8},
		Skills: []string{"perception", "survival"}}
	rogue := func(c *Choices) {
		c.Class, c.FightingStyle, c.Skills = "rogue", "", []string{"stealth", "perception", "acrobatics", "deception"}
	}
	halfElf := func(c *Choices) {
		c.Race, c.AbilityBonuses, c.RaceSkills = "half_elf", []string{"strength", "wisdom"}, []string{"arcana", "history"}
	}
	tests := []struct {
		id  string
		mut func(*Choices)
		de  string // the German message, when the case pins it whole
	}{
		{"chargen.name_missing", func(c *Choices) { c.Name = "" }, "Ein Charakter braucht einen Namen."},
		{"chargen.name_too_long", func(c *Choices) { c.Name = strings.Repeat("x", 101) }, ""},
		{"chargen.level_range", func(c *Choices) { c.Level = 21 }, "Stufe 21 liegt nicht zwischen 1 und 20."},
		{"chargen.unknown_class", func(c *Choices) { c.Class = "necromancer" }, ""},
		{"chargen.unknown_background", func(c *Choices) { c.Background = "pirate" }, ""},
		{"chargen.unknown_race", func(c *Choices) { c.Race = "vampire" }, ""},
		{"chargen.no_subraces", func(c *Choices) { c.Subrace = "x" }, `Volk „Human“ hat keine Untervölker; „x“ ist keines.`},
		{"chargen.subrace_needed", func(c *Choices) { c.Race = "elf" }, "Für Volk „Elf“ wählen Sie ein Untervolk: high_elf."},
		{"chargen.wrong_subrace", func(c *Choices) { c.Race, c.Subrace = "dwarf", "high_elf" }, ""},
		{"chargen.unknown_ability", func(c *Choices) { c.Scores["luck"] = 10 }, ""},
		{"chargen.ability_twice", func(c *Choices) { c.Scores["Strength"] = 15 }, ""},
		{"chargen.scores_missing", func(c *Choices) { delete(c.Scores, "wisdom") }, ""},
		{"chargen.standard_array", func(c *Choices) { c.Method = StandardArrayMethod }, ""},
		{"chargen.point_buy_range", func(c *Choices) { c.Scores["strength"] = 16 }, ""},
		{"chargen.point_buy_budget", func(c *Choices) {
			c.Scores = map[string]int{"strength": 15, "dexterity": 15, "constitution": 15, "intelligence": 10, "wisdom": 8, "charisma": 8}
		},
			"Der Punktekauf gibt 29 Punkte aus; das Budget ist 27."},
		{"chargen.rolled_scores", func(c *Choices) { c.Method = RolledMethod }, ""},
		{"chargen.unknown_method", func(c *Choices) { c.Method = "wishes" }, ""},
		{"chargen.bonus_unknown_ability", func(c *Choices) { c.AbilityBonuses = []string{"luck"} }, ""},
		{"chargen.bonus_twice", func(c *Choices) { halfElf(c); c.AbilityBonuses = []string{"strength", "strength"} }, ""},
		{"chargen.bonus_raised_already", func(c *Choices) { halfElf(c); c.AbilityBonuses = []string{"charisma", "wisdom"} }, ""},
		{"chargen.bonus_count", func(c *Choices) { halfElf(c); c.AbilityBonuses = []string{"strength"} }, ""},
		{"chargen.unknown_skill", func(c *Choices) { c.Skills = []string{"juggling", "perception"} }, ""},
		{"chargen.skill_twice", func(c *Choices) { c.Skills = []string{"perception", "perception"} }, ""},
		{"chargen.skill_not_offered", func(c *Choices) { c.Skills = []string{"arcana", "perception"} }, ""},
		{"chargen.skill_granted", func(c *Choices) { c.Skills = []string{"athletics", "perception"} },
			"athletics ist bereits durch den Hintergrund „Soldier“ gegeben. Wählen Sie eine andere Fertigkeit (eine Übung zählt nur einmal)."},
		{"chargen.skill_count", func(c *Choices) { c.Skills = []string{"perception"} }, ""},
		{"chargen.skill_count", func(c *Choices) { halfElf(c); c.RaceSkills = nil },
			"Volk „Half-Elf“ wählt 2 Fertigkeiten (race_skills) aus " + list(sortedKeys(SkillAbility)) + "; gewählt: 0."},
		{"chargen.expertise_tools", func(c *Choices) { rogue(c); c.Expertise = []string{"thieves' tools"} }, ""},
		{"chargen.expertise_not_proficient", func(c *Choices) { rogue(c); c.Expertise = []string{"arcana"} }, ""},
		{"chargen.expertise_twice", func(c *Choices) { rogue(c); c.Expertise = []string{"stealth", "stealth"} }, ""},
		{"chargen.expertise_count", rogue, "Klasse „Rogue“ wählt auf Stufe 1 für Expertise 2 Fertigkeiten; gewählt: 0."},
		{"chargen.unknown_language", func(c *Choices) { c.ExtraLanguages = []string{"Klingon"} }, ""},
		{"chargen.language_known", func(c *Choices) { c.ExtraLanguages = []string{"common"} }, ""},
		{"chargen.language_count", func(c *Choices) { c.ExtraLanguages = []string{"Elvish", "Orc"} }, ""},
		{"chargen.no_fighting_style", func(c *Choices) { c.Class, c.Skills = "wizard", []string{"arcana", "history"} }, ""},
		{"chargen.fighting_style", func(c *Choices) { c.FightingStyle = "" }, ""},
		{"chargen.no_shields", func(c *Choices) {
			c.Class, c.Skills, c.FightingStyle, c.Shield = "monk", []string{"acrobatics", "stealth"}, "", true
		}, "Klasse „Monk“ ist im Umgang mit Schilden nicht geübt (Rüstung: keine)."},
		{"chargen.unknown_armor", func(c *Choices) { c.Armor = "mithril" }, ""},
		{"chargen.armor_category", func(c *Choices) {
			c.Class, c.Skills, c.FightingStyle, c.Armor = "wizard", []string{"arcana", "history"}, "", "chain_mail"
		}, ""},
		{"chargen.unknown_weapon", func(c *Choices) { c.Weapon = "lightsaber" }, ""},
	}
	cat := i18n.MustLoad()
	de, en := cat.For("de"), cat.For("en")
	check := func(t *testing.T, err error, id, wantDE string) {
		t.Helper()
		var rf *Refusal
		if !errors.As(err, &rf) {
			t.Fatalf("got %v; want a Refusal", err)
		}
		if rf.ID != id {
			t.Errorf("id %q; want %q (%v)", rf.ID, id, err)
		}
		if hearth.ErrorCode(err) != hearth.Invalid || hearth.ErrorMessage(err) != rf.Error() {
			t.Errorf("code %s, message %q; want Invalid with the English %q", hearth.ErrorCode(err), hearth.ErrorMessage(err), rf.Error())
		}
		got := de.T(rf.ID, rf.Data)
		for _, bad := range []string{"<no value>", rf.ID, "%!"} {
			if strings.Contains(got, bad) {
				t.Errorf("German %q has %q; data %v", got, bad, rf.Data)
			}
		}
		if got == en.T(rf.ID, rf.Data) || got == rf.Error() {
			t.Errorf("German %q is the English", got)
		}
		if wantDE != "" && got != wantDE {
			t.Errorf("German\n got %q\nwant %q", got, wantDE)
		}
		if s := en.T(rf.ID, rf.Data); strings.Contains(s, "<no value>") {
			t.Errorf("English catalog %q lacks data; data %v", s, rf.Data)
		}
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			c := fighter
			c.Scores = maps.Clone(fighter.Scores)
			tt.mut(&c)
			_, err := Build(c)
			if err == nil {
				t.Fatal("accepted")
			}
			check(t, err, tt.id, tt.de)
			seen[tt.id] = true
		})
	}
	t.Run("chargen.story_background", func(t *testing.T) {
		_, err := Templates{}.Story(context.Background(), &Character{Choices: Choices{Background: "pirate"}}, 1)
		check(t, err, "chargen.story_background", "Hintergrund „pirate“ ist unbekannt.")
		seen["chargen.story_background"] = true
	})
	t.Run("chargen.sheet_id", func(t *testing.T) {
		_, err := (&Character{}).Sheet(" ")
		check(t, err, "chargen.sheet_id", "Ein Charakterbogen braucht eine ID.")
		seen["chargen.sheet_id"] = true
	})
	// score_over_20 guards what level-1 creation cannot reach (at most
	// 18 rolled + 2); the catalog test still holds its messages.
	seen["chargen.score_over_20"] = true
	for _, id := range refusalIDs(t) {
		if !seen[id] {
			t.Errorf("no case makes refusal %q", id)
		}
	}
}
