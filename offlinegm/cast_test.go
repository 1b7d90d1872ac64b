package offlinegm

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// spellWorld is a wizard, Wren, with Bram the cleric, facing two goblins
// and a wolf in a ruined chapel with a lamp.
func spellWorld() *world.State {
	w := world.New(world.SystemD20)
	w.Player = "wren"
	w.Locations = map[string]*world.Location{
		"chapel": {ID: "chapel", Name: "the Ruined Chapel", Items: map[string]int{"lamp": 1},
			Exits: []world.Exit{{To: "yard", Direction: "north"}}},
		"yard": {ID: "yard", Name: "the Yard", Exits: []world.Exit{{To: "chapel", Direction: "south"}}},
	}
	w.Items = map[string]*world.Item{"lamp": {ID: "lamp", Name: "Oil Lamp", Fixed: true}}
	foe := func(id, name string) *world.Character {
		return &world.Character{ID: id, Kind: world.Creature, Name: name, Location: "chapel", Hostile: true,
			Sheet:   world.Sheet{HP: 7, MaxHP: 7, AC: 13, Abilities: map[string]int{"dexterity": 14, "wisdom": 8}},
			Attacks: []world.Attack{{Name: "bite", Bonus: 3, Damage: "1d4", DamageType: "piercing"}}}
	}
	w.Characters = map[string]*world.Character{
		"wren": {ID: "wren", Kind: world.PC, Name: "Wren", Location: "chapel",
			Sheet: world.Sheet{Class: "wizard", Level: 5, HP: 60, MaxHP: 60, AC: 12, ProficiencyBonus: 3,
				Abilities:  map[string]int{"intelligence": 16, "constitution": 14, "dexterity": 14},
				SpellSlots: map[int]int{1: 4, 2: 3, 3: 2}}},
		"bram": {ID: "bram", Kind: world.NPC, Name: "Bram", Location: "chapel", Sheet: world.Sheet{HP: 4, MaxHP: 12}},
		"gob1": foe("gob1", "Goblin Archer"),
		"gob2": foe("gob2", "Goblin Cutter"),
		"wolf": foe("wolf", "Grey Wolf"),
	}
	return w
}

func TestInterpretCasting(t *testing.T) {
	w := spellWorld()
	for _, tc := range []struct {
		input string
		want  rules.Intent
	}{
		{"cast fireball at the goblins", rules.CastSpell{Spell: "Fireball", Targets: []string{"the goblins"}}},
		{"cast magic missile on the wolf", rules.CastSpell{Spell: "Magic Missile", Targets: []string{"the wolf"}}},
		{"I cast cure wounds on Bram", rules.CastSpell{Spell: "Cure Wounds", Targets: []string{"bram"}}},
		{"cast shield", rules.CastSpell{Spell: "Shield"}},
		{"fire bolt the goblin archer", rules.CastSpell{Spell: "Fire Bolt", Targets: []string{"the goblin archer"}}},
		{"Fire Bolt at the wolf!", rules.CastSpell{Spell: "Fire Bolt", Targets: []string{"the wolf"}}},
		{"cast magic missile at 2nd level at the wolf", rules.CastSpell{Spell: "Magic Missile", Targets: []string{"the wolf"}, SlotLevel: 2}},
		{"cast hold person on the archer and the cutter using a 3rd-level slot", rules.CastSpell{Spell: "Hold Person", Targets: []string{"the archer", "the cutter"}, SlotLevel: 3}},
		{"cast fireblast at the wolf", rules.CastSpell{Spell: "fireblast", Targets: []string{"the wolf"}}},
		{"cast sacred flame", rules.CastSpell{Spell: "Sacred Flame"}},
	} {
		got, _ := interpret(w, tc.input)
		if len(got.Intents) != 1 || !reflect.DeepEqual(got.Intents[0], tc.want) {
			t.Errorf("%q: %#v, want %#v", tc.input, got.Intents, tc.want)
		}
	}
	// Spell names that are also plain verbs keep their plain meaning.
	for _, input := range []string{"light the lamp", "knock on the door", "sleep", "shatter"} {
		got, _ := interpret(w, input)
		for _, in := range got.Intents {
			if in.Type() == "cast_spell" {
				t.Errorf("%q became %#v", input, in)
			}
		}
	}
}

// Casting played through: the slot goes, the goblin burns; an unknown
// spell is refused by name and the goblins do not get a turn.
func TestPlayCasting(t *testing.T) {
	w := spellWorld()
	r := rand.New(rand.NewPCG(1, 2))
	text, _ := play(t, w, r, "cast magic missile on the wolf")
	if w.PC().SlotsLeft(1) != 3 || !strings.Contains(text, "Magic Missile") || w.Characters["wolf"].HP == 7 {
		t.Fatalf("magic missile: slots %d, wolf HP %d: %q", w.PC().SlotsLeft(1), w.Characters["wolf"].HP, text)
	}
	hp, round := w.PC().HP, w.Combat.Round
	text, _ = play(t, w, r, "cast fireblast at the goblin archer")
	if !strings.Contains(text, "fireblast") || !strings.Contains(strings.ToLower(text), "fire bolt") {
		t.Errorf("the refusal should name the spell and what was meant: %q", text)
	}
	if w.Combat.Round != round || w.PC().HP != hp {
		t.Errorf("a refused spell took a turn: round %d→%d, HP %d→%d", round, w.Combat.Round, hp, w.PC().HP)
	}
	text, _ = play(t, w, r, "fire bolt the goblin archer")
	if w.PC().SlotsLeft(1) != 3 || !strings.Contains(text, "Fire Bolt") {
		t.Errorf("fire bolt: slots %d: %q", w.PC().SlotsLeft(1), text)
	}
}
