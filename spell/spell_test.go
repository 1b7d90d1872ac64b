package spell

import (
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
)

func srdBook(t testing.TB) *Book {
	t.Helper()
	b, err := SRD()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The bundled pack's real entries parse into what the rules need.
func TestSRDEntries(t *testing.T) {
	b := srdBook(t)
	for _, tc := range []struct {
		name string
		want Spell // Text, Range, Material and CastingTime are checked apart
	}{
		{"Fireball", Spell{Name: "Fireball", Level: 3, School: "evocation", Components: []string{"V", "S", "M"},
			Duration: "Instantaneous", Save: "dexterity", SaveHalf: true, Damage: "8d6", DamageType: "fire",
			Area: Area{Shape: "sphere", Size: 20}, Higher: Scaling{Dice: "1d6"}, Classes: []string{"sorcerer", "wizard"}}},
		{"Cure Wounds", Spell{Name: "Cure Wounds", Level: 1, School: "evocation", Components: []string{"V", "S"},
			Duration: "Instantaneous", Healing: "1d8", HealingAddsModifier: true, Higher: Scaling{Dice: "1d8"},
			Classes: []string{"bard", "cleric", "druid", "paladin", "ranger"}}},
		{"Magic Missile", Spell{Name: "Magic Missile", Level: 1, School: "evocation", Components: []string{"V", "S"},
			Duration: "Instantaneous", Damage: "1d4+1", DamageType: "force", Projectiles: 3,
			Higher: Scaling{Projectiles: 1}, Classes: []string{"sorcerer", "wizard"}}},
		{"Shield", Spell{Name: "Shield", Level: 1, School: "abjuration", Components: []string{"V", "S"},
			Duration: "1 round", ACBonus: 5, Classes: []string{"sorcerer", "wizard"}}},
		{"Hold Person", Spell{Name: "Hold Person", Level: 2, School: "enchantment", Components: []string{"V", "S", "M"},
			Duration: "Concentration, up to 1 minute", Concentration: true, Save: "wisdom", RepeatSave: true,
			Conditions: []string{"paralyzed"}, Higher: Scaling{Targets: 1},
			Classes: []string{"bard", "cleric", "druid", "sorcerer", "warlock", "wizard"}}},
		{"Fire Bolt", Spell{Name: "Fire Bolt", Level: 0, School: "evocation", Components: []string{"V", "S"},
			Duration: "Instantaneous", Attack: "ranged", Damage: "1d10", DamageType: "fire",
			Cantrip: Scaling{Dice: "1d10"}, Classes: []string{"sorcerer", "wizard"}}},
		{"Sacred Flame", Spell{Name: "Sacred Flame", Level: 0, School: "evocation", Components: []string{"V", "S"},
			Duration: "Instantaneous", Save: "dexterity", Damage: "1d8", DamageType: "radiant",
			Cantrip: Scaling{Dice: "1d8"}, Classes: []string{"cleric"}}},
		{"Burning Hands", Spell{Name: "Burning Hands", Level: 1, School: "evocation", Components: []string{"V", "S"},
			Duration: "Instantaneous", Save: "dexterity", SaveHalf: true, Damage: "3d6", DamageType: "fire",
			Area: Area{Shape: "cone", Size: 15}, Higher: Scaling{Dice: "1d6"}, Classes: []string{"sorcerer", "wizard"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := b.Lookup(tc.name)
			if !ok {
				t.Fatalf("%s is not in the book", tc.name)
			}
			if !s.Complete() {
				t.Errorf("%s is not complete: %+v", tc.name, s)
			}
			if s.Text == "" || s.CastingTime == "" || s.Range == "" {
				t.Errorf("%s lost its text, casting time or range: %+v", tc.name, s)
			}
			got := *s
			got.Text, got.Range, got.Material, got.CastingTime = "", "", "", ""
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
			}
		})
	}
	fb, _ := b.Lookup("fireball")
	if fb.Range != "150 feet" || fb.Material != "a tiny ball of bat guano and sulfur" || fb.CastingTime != "1 action" {
		t.Errorf("fireball header: range %q, material %q, casting time %q", fb.Range, fb.Material, fb.CastingTime)
	}
	if hp, _ := b.Lookup("hold person"); hp.Rounds() != 10 {
		t.Errorf("hold person lasts %d rounds, want 10", hp.Rounds())
	}
}

// Conditions and repeated saves, including sentences the conversion
// broke with a blank line (Web) or wrapped over lines.
func TestSRDConditions(t *testing.T) {
	b := srdBook(t)
	for _, tc := range []struct {
		name, save string
		conditions []string
		repeat     bool
	}{
		{"Web", "dexterity", []string{"restrained"}, false},
		{"Blindness/Deafness", "constitution", []string{"blinded"}, true},
		{"Fear", "wisdom", []string{"frightened"}, false},
		{"Hold Monster", "wisdom", []string{"paralyzed"}, true},
		{"Charm Person", "wisdom", []string{"charmed"}, false},
	} {
		s, ok := b.Lookup(tc.name)
		if !ok {
			t.Fatalf("no %s", tc.name)
		}
		if s.Save != tc.save || !reflect.DeepEqual(s.Conditions, tc.conditions) || s.RepeatSave != tc.repeat {
			t.Errorf("%s: save %q conditions %v repeat %v; want %q %v %v", tc.name, s.Save, s.Conditions, s.RepeatSave, tc.save, tc.conditions, tc.repeat)
		}
	}
}

// Most of the pack parses; a regression in the header parser shows here.
func TestSRDCoverage(t *testing.T) {
	b := srdBook(t)
	if b.Len() < 300 {
		t.Fatalf("the SRD has 319 spells; parsed %d", b.Len())
	}
	complete, mechanics, classes, cantrips := 0, 0, 0, 0
	for _, s := range b.Spells() {
		if s.Complete() {
			complete++
		}
		if s.Damage != "" || s.Healing != "" || s.Save != "" || s.Attack != "" || len(s.Conditions) > 0 || s.ACBonus > 0 {
			mechanics++
		}
		if len(s.Classes) > 0 {
			classes++
		}
		if s.Level == 0 {
			cantrips++
		}
	}
	n := b.Len()
	t.Logf("%d spells: %d with every header field, %d with mechanics the engine resolves, %d on a class list, %d cantrips",
		n, complete, mechanics, classes, cantrips)
	if complete*100 < n*95 {
		t.Errorf("only %d of %d spells have level, school, casting time, range, components and duration", complete, n)
	}
	if classes*100 < n*90 {
		t.Errorf("only %d of %d spells are on a class list", classes, n)
	}
	if cantrips < 20 {
		t.Errorf("%d cantrips; the SRD has 24", cantrips)
	}
}

func TestParseSkipsOtherHeadings(t *testing.T) {
	md := "# Spells (Z)\n\n#### Not a spell\n\nJust prose.\n\n#### Zap\n\n*Evocation cantrip*\n\n**Casting Time:** 1 action\n\n**Range:** 30 feet\n\n**Components:** V\n\n**Duration:** Instantaneous\n\nMake a melee spell attack. On a hit, the target takes 2d4 lightning damage.\n"
	got := Parse(md)
	if len(got) != 1 || got[0].Name != "Zap" || got[0].Attack != "melee" || got[0].Damage != "2d4" || got[0].Level != 0 {
		t.Fatalf("Parse = %+v", got)
	}
}

func TestLookupAndPrefix(t *testing.T) {
	b := srdBook(t)
	for _, tc := range []struct{ text, spell, rest string }{
		{"fire bolt the goblin", "Fire Bolt", "the goblin"},
		{"magic missile", "Magic Missile", ""},
		{"cure wounds on bram", "Cure Wounds", "on bram"},
		{"blindness/deafness the orc", "Blindness/Deafness", "the orc"},
		{"fireball", "Fireball", ""},
	} {
		s, rest, ok := b.Prefix(tc.text)
		if !ok || s.Name != tc.spell || rest != tc.rest {
			t.Errorf("Prefix(%q) = %v, %q, %v; want %s, %q", tc.text, s, rest, ok, tc.spell, tc.rest)
		}
	}
	if _, _, ok := b.Prefix("walk north"); ok {
		t.Error(`"walk north" starts with no spell`)
	}
	if near := b.Near("fireblast", 5); len(near) == 0 || !strings.HasPrefix(near[0], "Fire") {
		t.Errorf("Near(fireblast) = %v", near)
	}
}

func TestAddDice(t *testing.T) {
	for _, tc := range []struct {
		base, extra string
		n           int
		want        string
	}{
		{"8d6", "1d6", 2, "10d6"},
		{"1d8", "1d8", 0, "1d8"},
		{"1d4+1", "1d4", 1, "2d4+1"},
		{"1d8+3", "1d6", 1, "1d8+3+1d6"},
		{"1d10", "1d10", 3, "4d10"},
	} {
		if got := AddDice(tc.base, tc.extra, tc.n); got != tc.want {
			t.Errorf("AddDice(%q, %q, %d) = %q, want %q", tc.base, tc.extra, tc.n, got, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("#### Fireball\n\n*3rd-level evocation*\n\n**Casting Time:** 1 action\n\n**Range:** 150 feet\n\n**Components:** V, S, M (bat guano)\n\n**Duration:** Instantaneous\n\nEach creature in a 20-foot radius sphere must make a Dexterity saving throw. A target takes 8d6 fire damage on a failed save, or half as much damage on a successful one.\n\n***At Higher Levels***. The damage increases by 1d6 for each slot level above 3rd.\n")
	f.Add("#### X\n*Evocation cantrip*\n**Components:** (\n#### \n*")
	f.Add("## Wizard Spells\n- Fire Bolt\n#### 9th-level x (ritual)\n")
	f.Fuzz(func(t *testing.T, md string) {
		for _, s := range Parse(md) {
			if s.Name == "" || s.Level < 0 || s.Level > 9 {
				t.Fatalf("bad spell %+v", s)
			}
			_ = s.Rounds()
			_ = AddDice(s.Damage, s.Higher.Dice, 3)
		}
		_ = ParseLists(md)
	})
}

// BenchmarkLoadSRD is the one-time cost of the bundled pack's book.
func BenchmarkLoadSRD(b *testing.B) {
	sub, err := fs.Sub(hearth.Packs, "packs/srd51")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Load(sub); err != nil {
			b.Fatal(err)
		}
	}
}
