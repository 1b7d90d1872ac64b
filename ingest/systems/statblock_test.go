package systems

import (
	"strings"
	"testing"
)

func TestStatBlockFields(t *testing.T) {
	blocks := StatBlocks([]Page{{Number: 12, Text: "Goblins\n\n" + goblin + "\nHobgoblins\n\nHobgoblins are tall."}})
	if len(blocks) != 1 {
		t.Fatalf("%d blocks, want 1", len(blocks))
	}
	m := blocks[0].Monster
	if !m.Sure() {
		t.Errorf("unsure: %v", m.Problems)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"name", m.Name, "Goblin"},
		{"page", m.Page, 12},
		{"size", m.Size, "Small"},
		{"type", m.Type, "humanoid (goblinoid)"},
		{"alignment", m.Alignment, "neutral evil"},
		{"ac", m.AC, 15},
		{"ac note", m.ACNote, "leather armor, shield"},
		{"hp", m.HP, 7},
		{"dice", m.HitDice, "2d6"},
		{"walk", m.Walk, 30},
		{"scores", m.Scores, [6]int{8, 14, 10, 10, 8, 8}},
		{"stealth", m.Skills["stealth"], 6},
		{"passive", m.PassivePerception, 9},
		{"cr", m.CR, "1/4"},
		{"xp", m.XP, 50},
		{"traits", len(m.Traits), 1},
		{"actions", len(m.Actions), 2},
		{"bow", *m.Actions[1].Attack, Attack{Kind: "ranged weapon", ToHit: 4, Range: "80/320", Average: 5, Damage: "1d6+2", DamageType: "piercing"}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if strings.Contains(blocks[0].Text, "Hobgoblins") {
		t.Errorf("the block ran into the next heading:\n%s", blocks[0].Text)
	}
}

// Blocks the rules cannot be sure of say why.
func TestStatBlockProblems(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"no hit points", strings.Replace(goblin, "Hit Points 7 (2d6)", "", 1), "no hit point number"},
		{"bad modifier", strings.Replace(goblin, "14 (+2)", "14 (+5)", 1), "dexterity 14 is printed with modifier +5"},
		{"hp not the average", strings.Replace(goblin, "7 (2d6)", "9 (2d6)", 1), "not the average"},
		{"scores lost", strings.Replace(goblin, "8 (−1) | 14 (+2) | 10 (+0) | 10 (+0) | 8 (−1) | 8 (−1)", "", 1), "0 ability scores"},
		{"no challenge", strings.Replace(goblin, "Challenge 1/4 (50 XP)", "", 1), "no Challenge"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bs := StatBlocks([]Page{{Text: c.text}})
			if len(bs) != 1 {
				t.Fatalf("%d blocks", len(bs))
			}
			if p := strings.Join(bs[0].Monster.Problems, "; "); !strings.Contains(p, c.want) {
				t.Errorf("problems %q, want %q", p, c.want)
			}
		})
	}
}

func TestContentType(t *testing.T) {
	cases := []struct{ text, label, want string }{
		{goblin, "systems", StatBlock},
		{"Fireball\n\n3rd-level evocation\n\nCasting Time: 1 action", "systems", Spell},
		{"Bag of Holding\n\nWondrous item, uncommon\n\nThis bag has an interior space.", "lore", ItemType},
		{"d6 | Result\n1 | A\n2 | B\n3 | C", "systems", Table},
		{"Hit Dice: 1d12 per barbarian level", "systems", CharacterOption},
		{"Area 1. When the characters enter the hall, read aloud the text.", "lore", Adventure},
		{"Roll a d20 and add your modifier.", "systems", Rules},
		{"The kingdom fell long ago.", "lore", Lore},
	}
	for _, c := range cases {
		if got := ContentType(c.text, c.label); got != c.want {
			t.Errorf("ContentType(%.30q) = %s, want %s", c.text, got, c.want)
		}
	}
}
