package pipeline

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/ingest/systems"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// bestiary is a sourcebook page as text: a goblin, a weapon table row, a
// magic item, and an ogre whose Hit Points line the extraction lost.
const bestiary = `Goblin

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

Ogre

Large giant, chaotic evil

Armor Class 11 (hide armor)

STR | DEX | CON | INT | WIS | CHA
19 (+4) | 8 (−1) | 16 (+3) | 5 (−3) | 7 (−2) | 7 (−2)

Challenge 2 (450 XP)

Actions

Greatclub. Melee Weapon Attack: +6 to hit, reach 5 ft., one target.Hit: 13 (2d8 + 4) bludgeoning damage.

Weapons

Scimitar | 25 gp 1d6 slashing | 3 lb. | Finesse, light

Bag of Holding

Wondrous item, uncommon

This bag has an interior space considerably larger than its outside dimensions.
`

// fakeReader answers for the ogre as a model would.
type fakeReader struct{ asked []string }

func (f *fakeReader) ReadStatBlock(_ context.Context, text string, rule systems.Monster) (systems.Monster, error) {
	f.asked = append(f.asked, rule.Name)
	rule.HP, rule.HitDice = 59, "7d10+21"
	return rule, nil
}

func (f *fakeReader) Key() string { return "fake@1" }

// A book's stat blocks and items become a pack's creatures and items:
// the pack validates and counts them, and its goblin fights under the
// rules engine.
func TestSystemsToPack(t *testing.T) {
	ctx := context.Background()
	for _, withModel := range []bool{false, true} {
		e := newEnv(t)
		o := e.opts("bestiary.txt", []byte(bestiary))
		o.PackDir = filepath.Join(e.dir, "pack")
		reader := &fakeReader{}
		if withModel {
			o.StatReader = reader
		}
		res, err := Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := campaign.Validate(ctx, o.PackDir)
		if err != nil || !rep.OK() {
			t.Fatalf("pack: %v\n%s", err, rep.Text())
		}
		wantCreatures := 1 // the ogre has no hit points without a model
		if withModel {
			wantCreatures = 2
			if strings.Join(reader.asked, ",") != "Ogre" || res.StatsRead != 1 {
				t.Errorf("model asked about %v, read %d", reader.asked, res.StatsRead)
			}
		} else if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "Ogre (page 1): no hit point number") {
			t.Errorf("warnings: %v", res.Warnings)
		}
		if res.Monsters != wantCreatures || res.Items != 2 || rep.Summary.Entities["creature"] != wantCreatures || rep.Summary.Items != 2 {
			t.Errorf("model %v: result %+v; pack %s", withModel, res, rep.Text())
		}
		if !strings.Contains(rep.Text(), "items 2") {
			t.Errorf("report:\n%s", rep.Text())
		}
		p, err := campaign.LoadPack(ctx, o.PackDir)
		if err != nil {
			t.Fatal(err)
		}
		g := p.Content.Characters["goblin"]
		if g == nil || g.Kind != world.Creature || g.AC != 15 || g.HP != 7 || g.Abilities["dexterity"] != 14 ||
			len(g.Attacks) != 1 || g.Attacks[0] != (world.Attack{Name: "Scimitar", Bonus: 4, Damage: "1d6+2", DamageType: "slashing"}) {
			t.Fatalf("goblin: %+v", g)
		}
		if s := p.Content.Items["scimitar"]; s == nil || s.Type != "weapon" || s.Damage != "1d6" || s.Value != 25 {
			t.Errorf("scimitar: %+v", s)
		}
		if !withModel {
			fight(t, g)
		}
	}
}

// fight puts the extracted goblin in a yard with a hero and resolves
// attacks until the fight ends: the rules play it as it came from the
// book.
func fight(t *testing.T, gob *world.Character) {
	t.Helper()
	ctx := context.Background()
	w := world.New(world.SystemD20)
	w.Player = "hero"
	w.Locations = map[string]*world.Location{"yard": {ID: "yard", Name: "the Yard"}}
	g := *gob
	g.ID, g.Location = "goblin", "yard"
	w.Characters = map[string]*world.Character{
		"hero": {ID: "hero", Kind: world.PC, Name: "Aria", Location: "yard",
			Sheet: world.Sheet{Level: 3, HP: 30, MaxHP: 30, AC: 16, ProficiencyBonus: 2,
				Abilities: map[string]int{"strength": 16, "dexterity": 12, "constitution": 14}}},
		"goblin": &g,
	}
	e, err := rules.New(world.SystemD20)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	apply := func(res *rules.Resolution) error { return w.ApplyAll(res.Effects()) }
	res, err := e.Resolve(ctx, w, rules.StartCombat{}, r)
	if err != nil || apply(res) != nil || w.Combat == nil {
		t.Fatalf("the fight with the extracted goblin did not start: %v", err)
	}
	for round := 0; w.Combat != nil && round < 40; round++ {
		res, err := e.Resolve(ctx, w, rules.Attack{Target: "goblin"}, r)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.React(ctx, w, []*rules.Resolution{res}, r, apply); err != nil {
			t.Fatal(err)
		}
	}
	if w.Combat != nil || !(g.HasCondition("dead") || w.Characters["hero"].HasCondition("unconscious")) {
		t.Errorf("the fight did not end: goblin %d HP, hero %d HP", g.HP, w.Characters["hero"].HP)
	}
}
