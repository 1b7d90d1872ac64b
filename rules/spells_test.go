package rules

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/world"
)

// cryptWorld is a fight waiting to happen: Wren, a 3rd-level wizard
// (Intelligence 16, so spell save DC 13 and spell attack +5), with Bram, a
// cleric, against a bandit captain and two goblins; the Camp next door is
// safe to rest in.
func cryptWorld() *world.State {
	w := world.New(world.SystemD20)
	w.Player = "wren"
	w.Locations = map[string]*world.Location{
		"crypt": {ID: "crypt", Name: "the Crypt", Exits: []world.Exit{{To: "camp", Direction: "up"}}},
		"camp":  {ID: "camp", Name: "the Camp", Exits: []world.Exit{{To: "crypt", Direction: "down"}}},
	}
	foe := func(id, name string, hp, ac, wis int) *world.Character {
		return &world.Character{ID: id, Kind: world.NPC, Name: name, Location: "crypt", Hostile: true,
			Sheet:   world.Sheet{HP: hp, MaxHP: hp, AC: ac, Abilities: map[string]int{"dexterity": 12, "wisdom": wis, "constitution": 12}},
			Attacks: []world.Attack{{Name: "scimitar", Bonus: 4, Damage: "1d6+2", DamageType: "slashing"}}}
	}
	w.Characters = map[string]*world.Character{
		"wren": {ID: "wren", Kind: world.PC, Name: "Wren", Location: "crypt",
			Sheet: world.Sheet{Class: "wizard", Level: 3, HP: 16, MaxHP: 16, AC: 12, ProficiencyBonus: 2, HitDice: "3d6",
				Abilities:  map[string]int{"strength": 8, "dexterity": 14, "constitution": 14, "intelligence": 16, "wisdom": 12, "charisma": 10},
				SpellSlots: map[int]int{1: 4, 2: 2}, SavingThrows: []string{"intelligence", "wisdom"}}},
		"bram": {ID: "bram", Kind: world.NPC, Name: "Bram", Location: "crypt",
			Sheet: world.Sheet{Class: "cleric", Level: 3, HP: 20, MaxHP: 20, AC: 16, ProficiencyBonus: 2,
				Abilities: map[string]int{"wisdom": 14}, SpellSlots: map[int]int{1: 4, 2: 2}}},
		"captain": foe("captain", "Bandit Captain", 40, 15, 10),
		"gob1":    foe("gob1", "Goblin Archer", 7, 13, 8),
		"gob2":    foe("gob2", "Goblin Cutter", 7, 13, 8),
	}
	return w
}

// react runs the world's answer to res and applies it.
func react(t *testing.T, e *Engine, w *world.State, r *rand.Rand, res *Resolution) []*Resolution {
	t.Helper()
	var steps []*Resolution
	if err := e.React(ctx, w, []*Resolution{res}, r, func(s *Resolution) error {
		steps = append(steps, s)
		return w.ApplyAll(s.Effects())
	}); err != nil {
		t.Fatal(err)
	}
	return steps
}

func rollsLabelled(res *Resolution, label string) int {
	n := 0
	for _, r := range res.Rolls {
		if r.Label == label {
			n++
		}
	}
	return n
}

func outcome(res *Resolution, action, target string) *Outcome {
	for i, o := range res.Outcomes {
		if o.Action == action && (target == "" || o.Target == target) {
			return &res.Outcomes[i]
		}
	}
	return nil
}

// Magic Missile and Fire Bolt in a fight: a slot goes for the one, none for
// the cantrip; upcasting adds a dart; a long rest brings every slot back.
func TestWizardFight(t *testing.T) {
	e := engine(t, world.SystemD20)
	w := cryptWorld()
	r := newRand()
	wren, captain := w.Characters["wren"], w.Characters["captain"]
	wren.HP, wren.MaxHP = 80, 80 // three foes at once; this fight is about slots

	mm := do(t, e, w, CastSpell{Spell: "magic missile", Targets: []string{"captain"}}, r)
	if w.Combat == nil {
		t.Fatal("a harmful spell at a foe should start the fight")
	}
	if got := wren.SlotsLeft(1); got != 3 {
		t.Errorf("1st-level slots left after Magic Missile: %d, want 3", got)
	}
	if n := rollsLabelled(mm, "Magic Missile damage"); n != 3 {
		t.Errorf("Magic Missile rolled %d darts, want 3", n)
	}
	dmg := outcome(mm, "spell_damage", "captain")
	if dmg == nil || dmg.Amount < 6 || dmg.Amount > 15 || captain.HP != 40-dmg.Amount {
		t.Fatalf("three darts of 1d4+1 should deal 6 to 15 and show on the captain: %+v, HP %d", dmg, captain.HP)
	}
	if outcome(mm, "spell_attack", "") != nil || outcome(mm, "spell_save", "") != nil {
		t.Error("Magic Missile's darts hit without an attack roll or a save")
	}
	react(t, e, w, r, mm)

	fb := do(t, e, w, CastSpell{Spell: "Fire Bolt", Targets: []string{"goblin archer"}}, r)
	if wren.SlotsLeft(1) != 3 || wren.SlotsLeft(2) != 2 {
		t.Errorf("a cantrip spent a slot: %s", slotList(wren))
	}
	atk := outcome(fb, "spell_attack", "gob1")
	if atk == nil || atk.Check == nil || atk.Check.Kind != "attack" || atk.Check.Target != 13 {
		t.Fatalf("Fire Bolt should be a spell attack against AC 13: %+v", atk)
	}
	if atk.Check.Modifier != 5 {
		t.Errorf("spell attack bonus %d, want proficiency 2 + Intelligence 3", atk.Check.Modifier)
	}
	react(t, e, w, r, fb)

	up := do(t, e, w, CastSpell{Spell: "magic missile", Targets: []string{"captain"}, SlotLevel: 2}, r)
	if n := rollsLabelled(up, "Magic Missile damage"); n != 4 {
		t.Errorf("Magic Missile with a 2nd-level slot rolled %d darts, want 4", n)
	}
	if wren.SlotsLeft(2) != 1 || wren.SlotsLeft(1) != 3 {
		t.Errorf("upcasting should spend the 2nd-level slot: %s", slotList(wren))
	}
	react(t, e, w, r, up)

	// Spend the rest: the lowest slot goes first, then a higher one.
	for range 4 {
		if captain.HasCondition("dead") || w.Combat == nil {
			break
		}
		res := do(t, e, w, CastSpell{Spell: "magic missile", Targets: []string{"captain"}}, r)
		react(t, e, w, r, res)
		if w.Combat == nil || !wren.Alive() || wren.HasCondition("unconscious") {
			break
		}
	}
	for _, id := range []string{"captain", "gob1", "gob2"} {
		if c := w.Characters[id]; c.Alive() && !c.HasCondition("dead") {
			do(t, e, w, Damage{Target: id, Amount: 100, Reason: "the crypt collapses"}, r)
		}
	}
	w.Combat = nil
	if wren.SlotsLeft(1)+wren.SlotsLeft(2) == 6 {
		t.Fatal("no slots were spent")
	}
	rest := do(t, e, w, Rest{Rest: "long"}, r)
	if wren.SlotsLeft(1) != 4 || wren.SlotsLeft(2) != 2 {
		t.Errorf("after a long rest: %s, want 1st 4/4, 2nd 2/2", slotList(wren))
	}
	if !strings.Contains(rest.Summary(), "spell slot") {
		t.Errorf("the rest should say the slots are back: %q", rest.Summary())
	}
}

// Slots run out, and then only cantrips are left; a short rest gives none
// back.
func TestSlotsRunOut(t *testing.T) {
	e := engine(t, world.SystemD20)
	w := cryptWorld()
	wren := w.Characters["wren"]
	wren.SpellSlots = map[int]int{1: 1}
	r := newRand()
	do(t, e, w, CastSpell{Spell: "magic missile", Targets: []string{"captain"}}, r)
	_, err := e.Resolve(ctx, w, CastSpell{Spell: "magic missile", Targets: []string{"captain"}}, r)
	var rej *Rejection
	if !errors.As(err, &rej) || !strings.Contains(rej.Reason, "long rest") || !strings.Contains(rej.Reason, "1st 0/1") {
		t.Fatalf("casting without a slot: %v", err)
	}
	if _, err := e.Resolve(ctx, w, CastSpell{Spell: "fire bolt", Targets: []string{"captain"}}, r); err != nil {
		t.Errorf("a cantrip needs no slot: %v", err)
	}
}

// Hold Person: the captain saves or is paralyzed, by the dice; paralyzed,
// he loses his turns and tries the save again at the end of each.
func TestHoldPersonSave(t *testing.T) {
	e := engine(t, world.SystemD20)
	held, resisted, freed := 0, 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		w := cryptWorld()
		// The captain alone, so no goblin's blow breaks Wren's concentration.
		w.Characters["gob1"].Location, w.Characters["gob2"].Location = "camp", "camp"
		w.Characters["wren"].HP = 60
		r := rand.New(rand.NewPCG(seed, 5))
		res := do(t, e, w, CastSpell{Spell: "hold person", Targets: []string{"captain"}}, r)
		wren, captain := w.Characters["wren"], w.Characters["captain"]
		save := outcome(res, "spell_save", "captain")
		if save == nil || save.Check == nil || save.Check.Ability != "wisdom" || save.Check.Target != 13 {
			t.Fatalf("seed %d: Hold Person needs a Wisdom save against DC 13: %+v", seed, save)
		}
		if wren.SlotsLeft(2) != 1 {
			t.Fatalf("seed %d: Hold Person is 2nd level; slots %s", seed, slotList(wren))
		}
		if save.Check.Succeeded() {
			resisted++
			if captain.HasCondition("paralyzed") || wren.Concentration != nil {
				t.Errorf("seed %d: the captain saved but is held (%v, %+v)", seed, captain.Conditions, wren.Concentration)
			}
			continue
		}
		held++
		if !captain.HasCondition("paralyzed") {
			t.Fatalf("seed %d: a failed save should paralyze", seed)
		}
		cc := wren.Concentration
		if cc == nil || cc.Spell != "Hold Person" || cc.Save != "wisdom" || cc.DC != 13 || len(cc.Targets) != 1 || cc.EndsRound != 11 {
			t.Fatalf("seed %d: concentration %+v", seed, cc)
		}
		for round := 0; round < 10 && captain.HasCondition("paralyzed"); round++ {
			// Wren dodges about; the captain's turn passes in place.
			steps := react(t, e, w, r, do(t, e, w, Check{Skill: "acrobatics", DC: 5}, r))
			sawHeld, sawSave := false, false
			for _, s := range steps {
				if o := outcome(s, "enemy_held", ""); o != nil && o.Actor == "captain" {
					sawHeld = true
				}
				if o := outcome(s, "spell_save", "wren"); o != nil && o.Actor == "captain" {
					sawSave = true
				}
				if o := outcome(s, "enemy_attack", ""); o != nil && o.Actor == "captain" {
					t.Fatalf("seed %d: a paralyzed captain attacked", seed)
				}
			}
			if !sawHeld || !sawSave {
				t.Fatalf("seed %d round %d: held %v, repeat save %v", seed, round, sawHeld, sawSave)
			}
			if !wren.Alive() || w.Combat == nil {
				break
			}
		}
		if !captain.HasCondition("paralyzed") {
			freed++
			if wren.Concentration != nil {
				t.Errorf("seed %d: the last target broke free but the spell goes on: %+v", seed, wren.Concentration)
			}
		}
	}
	if held == 0 || resisted == 0 || freed == 0 {
		t.Errorf("over 40 seeds: %d held, %d resisted, %d broke free later; each should happen", held, resisted, freed)
	}
}

// heldCaptain is the crypt with Wren concentrating on Hold Person and the
// captain paralyzed by it, in a fight.
func heldCaptain() *world.State {
	w := cryptWorld()
	w.Combat = &world.Combat{Round: 1, Location: "crypt", Order: []world.Combatant{{ID: "wren", Initiative: 15}, {ID: "captain", Initiative: 10}}}
	w.Characters["captain"].Conditions = []string{"paralyzed"}
	w.Characters["wren"].Concentration = &world.Concentration{Spell: "Hold Person", Targets: []string{"captain"},
		Condition: "paralyzed", Save: "wisdom", DC: 13, EndsRound: 11}
	return w
}

// Damage makes a concentrating caster save (Constitution, DC 10 or half the
// damage); failing ends the spell and frees its target. Dropping ends it
// without a save.
func TestConcentrationBrokenByDamage(t *testing.T) {
	e := engine(t, world.SystemD20)
	kept, broken := 0, 0
	for seed := uint64(1); seed <= 30; seed++ {
		w := heldCaptain()
		r := rand.New(rand.NewPCG(seed, 9))
		res := do(t, e, w, Damage{Target: "wren", Amount: 8, Reason: "a thrown dagger"}, r)
		text := res.Summary()
		wren, captain := w.Characters["wren"], w.Characters["captain"]
		switch {
		case strings.Contains(text, "holds concentration"):
			kept++
			if wren.Concentration == nil || !captain.HasCondition("paralyzed") {
				t.Errorf("seed %d: concentration held but the spell ended", seed)
			}
		case strings.Contains(text, "loses concentration"):
			broken++
			if wren.Concentration != nil || captain.HasCondition("paralyzed") {
				t.Errorf("seed %d: concentration lost but the captain is still held (%+v, %v)", seed, wren.Concentration, captain.Conditions)
			}
		default:
			t.Fatalf("seed %d: no concentration save after damage: %q", seed, text)
		}
		if !strings.Contains(text, "against 10") {
			t.Errorf("seed %d: 8 damage is a DC 10 save: %q", seed, text)
		}
	}
	if kept == 0 || broken == 0 {
		t.Errorf("over 30 seeds %d kept and %d lost concentration; both should happen", kept, broken)
	}

	w := heldCaptain()
	res := do(t, e, w, Damage{Target: "wren", Amount: 30}, newRand())
	if w.Characters["wren"].Concentration != nil || w.Characters["captain"].HasCondition("paralyzed") {
		t.Error("a caster knocked out keeps concentrating")
	}
	if strings.Contains(res.Summary(), "Constitution save") {
		t.Errorf("no save when the caster drops: %q", res.Summary())
	}
}

// A new concentration spell ends the old one, and its hold.
func TestNewConcentrationEndsTheOld(t *testing.T) {
	e := engine(t, world.SystemD20)
	w := heldCaptain()
	res := do(t, e, w, CastSpell{Spell: "hold person", Targets: []string{"goblin cutter"}}, newRand())
	if w.Characters["captain"].HasCondition("paralyzed") {
		t.Error("the captain is still held after Wren cast Hold Person anew")
	}
	if !strings.Contains(res.Summary(), "lets Hold Person go") {
		t.Errorf("the casting should say the old spell ends: %q", res.Summary())
	}
}

// Fireball with no target named catches every foe present, never the ally,
// and a successful Dexterity save halves the damage.
func TestFireballArea(t *testing.T) {
	e := engine(t, world.SystemD20)
	w := cryptWorld()
	w.Characters["wren"].Level = 5
	w.Characters["wren"].SpellSlots[3] = 2
	w.Characters["captain"].HP, w.Characters["captain"].MaxHP = 200, 200
	res := do(t, e, w, CastSpell{Spell: "fireball"}, newRand())
	if n := rollsLabelled(res, "Fireball damage"); n != 1 {
		t.Fatalf("Fireball rolls its damage once for everyone, rolled %d", n)
	}
	var rolled int
	for _, r := range res.Rolls {
		if r.Label == "Fireball damage" {
			rolled = r.Total
		}
	}
	for _, id := range []string{"captain", "gob1", "gob2"} {
		save := outcome(res, "spell_save", id)
		if save == nil {
			t.Fatalf("%s made no save", id)
		}
		want := rolled
		if save.Check.Succeeded() {
			want = rolled / 2
		}
		if d := outcome(res, "spell_damage", id); d == nil || d.Amount != want {
			t.Errorf("%s took %+v, want %d (saved %v)", id, d, want, save.Check.Succeeded())
		}
	}
	if outcome(res, "spell_save", "bram") != nil || outcome(res, "spell_save", "wren") != nil {
		t.Error("Fireball with no target named caught a friend")
	}
	if w.Characters["wren"].SlotsLeft(3) != 1 {
		t.Error("Fireball spends a 3rd-level slot")
	}
}

// Cure Wounds from the cleric: 1d8 + Wisdom modifier; Shield's ward lasts
// past the enemies' turns and no longer.
func TestHealingAndShield(t *testing.T) {
	e := engine(t, world.SystemD20)
	w := cryptWorld()
	w.Characters["wren"].HP = 5
	res := do(t, e, w, CastSpell{Caster: "bram", Spell: "cure wounds", Targets: []string{"wren"}}, newRand())
	h := outcome(res, "spell_heal", "wren")
	if h == nil || h.Amount < 3 || h.Amount > 10 || w.Characters["wren"].HP != 5+h.Amount {
		t.Fatalf("Cure Wounds should heal 1d8+2: %+v", h)
	}
	if w.Characters["bram"].SlotsLeft(1) != 3 {
		t.Error("Cure Wounds spends Bram's slot")
	}

	w = heldCaptain()
	w.Characters["captain"].Conditions = nil
	w.Characters["wren"].Concentration = nil
	r := newRand()
	sh := do(t, e, w, CastSpell{Spell: "shield"}, r)
	if !w.Characters["wren"].HasCondition(shielded) || armourClass(w.Characters["wren"]) != 17 {
		t.Fatalf("Shield should raise AC to 17: %v", w.Characters["wren"].Conditions)
	}
	steps := react(t, e, w, r, sh)
	for _, s := range steps {
		if o := outcome(s, "enemy_attack", ""); o != nil && o.Check != nil && o.Check.Target != 17 {
			t.Errorf("the captain attacked AC %d through the Shield", o.Check.Target)
		}
	}
	if w.Characters["wren"].HasCondition(shielded) {
		t.Error("the Shield outlasted the enemies' turns")
	}
}

// Dice grow with the slot (Fireball, Cure Wounds) and with the caster's
// level (cantrips at 5th, 11th and 17th).
func TestSpellDiceScale(t *testing.T) {
	e := engine(t, world.SystemD20)
	for _, tc := range []struct {
		name  string
		level int
		in    CastSpell
		label string
		want  string
	}{
		{"fire bolt at 3rd level", 3, CastSpell{Spell: "fire bolt", Targets: []string{"captain"}}, "Fire Bolt damage", "1d10"},
		{"fire bolt at 5th level", 5, CastSpell{Spell: "fire bolt", Targets: []string{"captain"}}, "Fire Bolt damage", "2d10"},
		{"fire bolt at 17th level", 17, CastSpell{Spell: "fire bolt", Targets: []string{"captain"}}, "Fire Bolt damage", "4d10"},
		{"sacred flame at 11th level", 11, CastSpell{Caster: "bram", Spell: "sacred flame", Targets: []string{"captain"}}, "Sacred Flame damage", "3d8"},
		{"fireball with a 5th-level slot", 9, CastSpell{Spell: "fireball", Targets: []string{"captain"}, SlotLevel: 5}, "Fireball damage", "10d6"},
		{"cure wounds with a 2nd-level slot", 3, CastSpell{Caster: "bram", Spell: "cure wounds", Targets: []string{"wren"}, SlotLevel: 2}, "Cure Wounds healing", "2d8+2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := cryptWorld()
			for _, id := range []string{"wren", "bram"} {
				c := w.Characters[id]
				c.Level = tc.level
				c.SpellSlots = map[int]int{1: 4, 2: 3, 3: 3, 4: 3, 5: 2}
			}
			w.Characters["captain"].HP, w.Characters["captain"].MaxHP = 500, 500
			w.Characters["captain"].AC = 1 // so Fire Bolt hits and rolls its damage
			res, err := e.Resolve(ctx, w, tc.in, newRand())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res.Rolls {
				if r.Label == tc.label {
					got = append(got, r.Notation)
				}
			}
			if len(got) == 0 || got[0] != tc.want {
				t.Errorf("rolled %v, want %s", got, tc.want)
			}
		})
	}
}

func TestCastSpellRejections(t *testing.T) {
	e := engine(t, world.SystemD20)
	for _, tc := range []struct {
		name  string
		setup func(*world.State)
		in    CastSpell
		want  string
	}{
		{"unknown spell", nil, CastSpell{Spell: "fireblast", Targets: []string{"captain"}}, `no spell "fireblast"`},
		{"not on the class list", nil, CastSpell{Spell: "cure wounds"}, "not a wizard spell"},
		{"not known", func(w *world.State) { w.Characters["wren"].SpellsKnown = []string{"Magic Missile"} },
			CastSpell{Spell: "fire bolt", Targets: []string{"captain"}}, "does not know Fire Bolt"},
		{"slot too low", nil, CastSpell{Spell: "hold person", Targets: []string{"captain"}, SlotLevel: 1}, "level 2 to 9"},
		{"self only", nil, CastSpell{Spell: "shield", Targets: []string{"captain"}}, "range of self"},
		{"whom", nil, CastSpell{Spell: "fire bolt"}, "at whom"},
		{"no caster", func(w *world.State) { w.Characters["wren"].Class, w.Characters["wren"].SpellSlots = "fighter", nil },
			CastSpell{Spell: "fire bolt", Targets: []string{"captain"}}, "fighter and casts no spells"},
		{"held caster", func(w *world.State) { w.Characters["wren"].Conditions = []string{"paralyzed"} },
			CastSpell{Spell: "fire bolt", Targets: []string{"captain"}}, "paralyzed and cannot cast"},
		{"too many targets", nil, CastSpell{Spell: "hold person", Targets: []string{"captain", "goblin archer"}}, "at most 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := cryptWorld()
			if tc.setup != nil {
				tc.setup(w)
			}
			_, err := e.Resolve(ctx, w, tc.in, newRand())
			var rej *Rejection
			if !errors.As(err, &rej) || !strings.Contains(rej.Reason, tc.want) {
				t.Fatalf("got %v, want a rejection saying %q", err, tc.want)
			}
		})
	}
	w := cryptWorld()
	w.System = world.System2d6
	if _, err := engine(t, world.System2d6).Resolve(ctx, w, CastSpell{Spell: "fire bolt", Targets: []string{"captain"}}, newRand()); err == nil {
		t.Error("a 2d6 campaign cast an SRD spell")
	}
}

// BenchmarkCastFireball resolves a Fireball at three foes: the slot, four
// saves and the damage.
func BenchmarkCastFireball(b *testing.B) {
	e, err := New(world.SystemD20)
	if err != nil {
		b.Fatal(err)
	}
	w := cryptWorld()
	w.Characters["wren"].SpellSlots[3] = 2
	r := newRand()
	in := CastSpell{Spell: "fireball"}
	if _, err := e.Resolve(ctx, w, in, r); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := e.Resolve(ctx, w, in, r); err != nil {
			b.Fatal(err)
		}
	}
}
