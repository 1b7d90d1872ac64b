package rules

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/world"
)

// downedWorld is the tavern with the hero dying at 0 hit points.
func downedWorld(saves world.DeathSaves, conds ...string) *world.State {
	w := tavernWorld()
	h := w.Characters["hero"]
	h.HP, h.DeathSaves = 0, saves
	h.Conditions = append([]string{"unconscious"}, conds...)
	return w
}

// seedRolling finds dice whose death saving throw shows d20, so each case
// states its roll rather than a seed that happens to give it.
func seedRolling(t *testing.T, e *Engine, d20 int) *rand.Rand {
	t.Helper()
	for seed := uint64(1); seed < 2000; seed++ {
		res, err := e.Resolve(ctx, downedWorld(world.DeathSaves{}), DeathSave{}, rand.New(rand.NewPCG(seed, 3)))
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcomes[0].Amount == d20 {
			return rand.New(rand.NewPCG(seed, 3))
		}
	}
	t.Fatalf("no seed rolls %d", d20)
	return nil
}

func TestDeathSavingThrows(t *testing.T) {
	e := engine(t, world.SystemD20)
	tests := []struct {
		name      string
		from      world.DeathSaves
		d20       int
		want      world.DeathSaves
		hp        int
		conscious bool
		dead      bool
		stable    bool
	}{
		{name: "10 succeeds", d20: 10, want: world.DeathSaves{Successes: 1}},
		{name: "9 fails", d20: 9, want: world.DeathSaves{Failures: 1}},
		{name: "natural 1 is two failures", d20: 1, want: world.DeathSaves{Failures: 2}},
		{name: "natural 1 on one failure dies", from: world.DeathSaves{Failures: 1}, d20: 1, want: world.DeathSaves{Failures: 3}, dead: true},
		{name: "third failure dies", from: world.DeathSaves{Successes: 2, Failures: 2}, d20: 4, want: world.DeathSaves{Successes: 2, Failures: 3}, dead: true},
		{name: "third success stabilises", from: world.DeathSaves{Successes: 2, Failures: 2}, d20: 15, stable: true},
		{name: "natural 20 regains 1 hit point", from: world.DeathSaves{Failures: 2}, d20: 20, hp: 1, conscious: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := downedWorld(tc.from)
			res := do(t, e, w, DeathSave{}, seedRolling(t, e, tc.d20))
			h := w.Characters["hero"]
			if got := res.Outcomes[0].Amount; got != tc.d20 {
				t.Fatalf("rolled %d, want %d", got, tc.d20)
			}
			if h.DeathSaves != tc.want || h.HP != tc.hp || h.HasCondition("unconscious") == tc.conscious ||
				h.HasCondition("dead") != tc.dead || h.HasCondition("stable") != tc.stable {
				t.Errorf("after %d: saves %+v HP %d conditions %v; want saves %+v HP %d conscious %v dead %v stable %v",
					tc.d20, h.DeathSaves, h.HP, h.Conditions, tc.want, tc.hp, tc.conscious, tc.dead, tc.stable)
			}
		})
	}
}

func TestDamageWhileDying(t *testing.T) {
	tests := []struct {
		name   string
		from   world.DeathSaves
		conds  []string
		amount int
		crit   bool
		want   world.DeathSaves
		dead   bool
	}{
		{name: "a hit is a failure", amount: 3, want: world.DeathSaves{Failures: 1}},
		{name: "a critical hit is two", amount: 3, crit: true, want: world.DeathSaves{Failures: 2}},
		{name: "it ends stability", conds: []string{"stable"}, amount: 2, want: world.DeathSaves{Failures: 1}},
		{name: "the third failure kills", from: world.DeathSaves{Failures: 2}, amount: 1, want: world.DeathSaves{Failures: 3}, dead: true},
		{name: "massive damage kills", amount: 18, want: world.DeathSaves{Failures: 1}, dead: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := downedWorld(tc.from, tc.conds...)
			h := w.Characters["hero"]
			es, _ := hurt(w, h, tc.amount, "test", tc.crit)
			if err := w.ApplyAll(es); err != nil {
				t.Fatal(err)
			}
			if h.DeathSaves != tc.want || h.HasCondition("dead") != tc.dead || h.HasCondition("stable") {
				t.Errorf("saves %+v conditions %v; want %+v dead %v", h.DeathSaves, h.Conditions, tc.want, tc.dead)
			}
		})
	}
	// Dropping from full health by more than the maximum kills outright.
	w := tavernWorld()
	h := w.Characters["hero"]
	es, _ := hurt(w, h, 36, "a falling anchor", false)
	if err := w.ApplyAll(es); err != nil {
		t.Fatal(err)
	}
	if !h.HasCondition("dead") {
		t.Errorf("36 damage to 18 HP: conditions %v, want dead", h.Conditions)
	}
}

func TestStableComesTo(t *testing.T) {
	e := engine(t, world.SystemD20)
	w := downedWorld(world.DeathSaves{}, "stable")
	before := w.Time
	res := do(t, e, w, DeathSave{}, newRand())
	h := w.Characters["hero"]
	if res.Outcomes[0].Action != "came_to" || h.HP != 1 || h.HasCondition("unconscious") || h.HasCondition("stable") {
		t.Fatalf("outcome %q HP %d conditions %v", res.Outcomes[0].Action, h.HP, h.Conditions)
	}
	if d := w.Time - before; d < world.Hour || d > 4*world.Hour {
		t.Errorf("came to after %v, want 1d4 hours", d)
	}
	if _, err := e.Resolve(ctx, w, DeathSave{}, newRand()); err == nil {
		t.Error("a death save for someone awake should be refused")
	}
}

// An ally with a healer's kit stabilises without a roll; without one, a
// Medicine check decides.
func TestAllyStabilises(t *testing.T) {
	e := engine(t, world.SystemD20)
	w := downedWorld(world.DeathSaves{Failures: 1})
	w.Items["kit"] = &world.Item{ID: "kit", Name: "Healer's Kit"}
	w.Characters["gareth"].Disposition = "friendly"
	w.Characters["gareth"].Inventory = map[string]int{"kit": 1}
	var steps []*Resolution
	apply := func(res *Resolution) error { steps = append(steps, res); return w.ApplyAll(res.Effects()) }
	if err := e.React(ctx, w, nil, newRand(), apply); err != nil {
		t.Fatal(err)
	}
	h := w.Characters["hero"]
	if !h.HasCondition("stable") || h.DeathSaves != (world.DeathSaves{}) {
		t.Fatalf("conditions %v saves %+v, want stable", h.Conditions, h.DeathSaves)
	}
	if o := steps[0].Outcomes[0]; o.Actor != "gareth" || o.Check != nil || o.Item != "kit" {
		t.Errorf("stabilised by %+v, want Gareth with the kit and no roll", o)
	}

	stabilised, failed := 0, 0
	for seed := uint64(1); seed <= 30; seed++ {
		w := downedWorld(world.DeathSaves{})
		w.Characters["gareth"].Disposition = "friendly"
		var got []Outcome
		apply := func(res *Resolution) error { got = append(got, res.Outcomes...); return w.ApplyAll(res.Effects()) }
		if err := e.React(ctx, w, nil, rand.New(rand.NewPCG(seed, 5)), apply); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Check == nil || got[0].Check.Skill != "medicine" {
			t.Fatalf("seed %d: %+v, want one Medicine check", seed, got)
		}
		if got[0].Check.Succeeded() != w.Characters["hero"].HasCondition("stable") {
			t.Fatalf("seed %d: check %v but stable %v", seed, got[0].Check.Succeeded(), w.Characters["hero"].HasCondition("stable"))
		}
		if got[0].Check.Succeeded() {
			stabilised++
		} else {
			failed++
		}
	}
	if stabilised == 0 || failed == 0 {
		t.Errorf("Medicine checks: %d stabilised, %d failed in 30; both should happen", stabilised, failed)
	}
}

// A foe that beats the player captures, robs or leaves them, by its
// campaign data and the dice.
func TestDefeatFates(t *testing.T) {
	e := engine(t, world.SystemD20)
	fates := map[string]int{}
	for seed := uint64(1); seed <= 40; seed++ {
		w := tavernWorld()
		w.Characters["elsa"].Hostile = true
		w.Characters["elsa"].CaptureAt = "cellar"
		h := w.Characters["hero"]
		h.HP = 0
		h.Conditions = []string{"unconscious"}
		w.Combat = &world.Combat{Round: 1, Order: []world.Combatant{{ID: "elsa"}, {ID: "hero"}}}
		var got []Outcome
		apply := func(res *Resolution) error { got = append(got, res.Outcomes...); return w.ApplyAll(res.Effects()) }
		if err := e.React(ctx, w, nil, rand.New(rand.NewPCG(seed, 1)), apply); err != nil {
			t.Fatal(err)
		}
		if w.Combat != nil {
			t.Fatalf("seed %d: the fight goes on after the player fell", seed)
		}
		i := slices.IndexFunc(got, func(o Outcome) bool { return o.Action == "defeat" })
		if i < 0 {
			t.Fatalf("seed %d: no fate in %+v", seed, got)
		}
		fate := got[i].Details["fate"].(string)
		fates[fate]++
		switch fate {
		case FateCapture:
			if h.Location != "cellar" || h.HP != 1 || h.HasCondition("unconscious") {
				t.Errorf("seed %d: captured but at %s, HP %d, %v", seed, h.Location, h.HP, h.Conditions)
			}
		case FateRob:
			if h.Gold != 0 || h.Inventory["potion"] != 0 || h.Inventory["sword"] != 1 || w.Characters["elsa"].Gold != 10 {
				t.Errorf("seed %d: robbed but keeps gold %d, inventory %v", seed, h.Gold, h.Inventory)
			}
			fallthrough
		case FateLeave:
			if w.Characters["elsa"].Location == h.Location || !Down(h) {
				t.Errorf("seed %d: %s, but Elsa is at %s and the hero down=%v", seed, fate, w.Characters["elsa"].Location, Down(h))
			}
		}
	}
	if len(fates) != 3 {
		t.Errorf("fates over 40 seeds: %v, want all three", fates)
	}

	// A beast leaves; campaign data names one fate.
	for _, tc := range []struct {
		onDefeat []string
		kind     world.Kind
		want     string
	}{
		{nil, world.Creature, FateLeave},
		{[]string{"Capture"}, world.NPC, FateCapture},
		{[]string{"rob"}, world.Creature, FateRob},
	} {
		x := &resolver{e: e, w: tavernWorld(), r: newRand(), res: &Resolution{}}
		got, err := x.fateOf(&world.Character{Name: "Foe", Kind: tc.kind, OnDefeat: tc.onDefeat})
		if err != nil || got != tc.want {
			t.Errorf("fate of %v %s: %q %v, want %q", tc.onDefeat, tc.kind, got, err, tc.want)
		}
	}
}

// Fleeing is a check that can succeed or fail, never a refusal.
func TestFleeingCanSucceed(t *testing.T) {
	e := engine(t, world.SystemD20)
	escaped, caught := 0, 0
	for seed := uint64(1); seed <= 30; seed++ {
		w := tavernWorld()
		w.Characters["goblin"].Location = "tankard"
		w.Combat = &world.Combat{Round: 1, Order: []world.Combatant{{ID: "hero"}, {ID: "goblin"}}}
		res := do(t, e, w, Flee{}, rand.New(rand.NewPCG(seed, 2)))
		if o := res.Outcomes[0]; o.Check.Succeeded() {
			escaped++
			if w.Combat != nil || w.Characters["hero"].Location != "street" {
				t.Errorf("seed %d: escaped but combat %v at %s", seed, w.Combat, w.Characters["hero"].Location)
			}
		} else {
			caught++
		}
	}
	if escaped == 0 || caught == 0 {
		t.Errorf("flee: %d escaped, %d caught in 30; both should happen", escaped, caught)
	}
}

// A quest giver stops offering work once it is taken, and "work" asks
// about the quest they give.
func TestQuestGiverRemembersTheQuest(t *testing.T) {
	e := engine(t, world.SystemD20)
	w := tavernWorld()
	w.Quests["brandy"].Description = "Three casks went missing from my cellar."
	r := newRand()
	tests := []struct{ topic, want string }{
		{"", "What'll it be?"},
		{"", "Back again. Any luck with the missing brandy?"},
		{"work", "Three casks went missing from my cellar."},
	}
	for _, tc := range tests {
		res := do(t, e, w, Talk{NPC: "gareth", Topic: tc.topic}, r)
		if got := res.Outcomes[0].Quote; got != tc.want {
			t.Errorf("talk about %q: %q, want %q", tc.topic, got, tc.want)
		}
	}
	w.Quests["brandy"].Status = world.QuestCompleted
	if got := do(t, e, w, Talk{NPC: "gareth"}, r).Outcomes[0].Quote; !strings.Contains(got, "did right by us") {
		t.Errorf("after the quest: %q", got)
	}
}
