package systems

import (
	"strings"
	"testing"
)

const goblin = `Goblin

Small humanoid (goblinoid), neutral evil

Armor Class 15 (leather armor, shield)

Hit Points 7 (2d6)

Speed 30 ft.

STR | DEX | CON | INT | WIS | CHA
8 (−1) | 14 (+2) | 10 (+0) | 10 (+0) | 8 (−1) | 8 (−1)

Skills Stealth +6

Senses darkvision 60 ft., passive Perception 9

Languages Common, Goblin

Challenge 1/4 (50 XP)

Nimble Escape. The goblin can take the Disengage or Hide action as a bonus action on each of its turns.

Actions

Scimitar. Melee Weapon Attack: +4 to hit, reach 5 ft., one target.Hit: 5 (1d6 + 2) slashing damage.

Shortbow. Ranged Weapon Attack: +4 to hit, range 80/320 ft., one target.Hit: 5 (1d6 + 2) piercing damage.
`

// FuzzStatBlocks feeds the parser any text: it must not panic, and what
// it returns must hold together.
func FuzzStatBlocks(f *testing.F) {
	f.Add(goblin)
	f.Add(strings.Replace(goblin, "Hit Points 7 (2d6)", "", 1))
	f.Add("A\n\nTiny x, y\n\nArmor Class 1\n\nChallenge 1/4 (50 XP)\n\nB. Melee Weapon Attack: +1 to hit, Hit: 1 piercing damage.")
	f.Add("Armor Class 9\nHit Points 3\nArmor Class 9")
	f.Fuzz(func(t *testing.T, text string) {
		for _, b := range StatBlocks([]Page{{Number: 1, Text: text}}) {
			m := b.Monster
			if m.Name == "" || !strings.Contains(text, m.Name) {
				t.Fatalf("name %q is not in the text", m.Name)
			}
			if m.Sure() && (m.AC <= 0 || m.HP <= 0 || m.CR == "") {
				t.Fatalf("sure of a block without AC, HP or CR: %+v", m)
			}
		}
		Items([]Page{{Text: text}})
		ContentType(text, "lore")
	})
}
