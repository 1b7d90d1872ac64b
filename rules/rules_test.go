package rules

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/world"
)

// tavernWorld is a small world: the Rusty Tankard (Gareth, Elsa), the
// Street to the north, a locked Cellar below with a hidden Tunnel, and a
// Yard with a waiting goblin.
func tavernWorld() *world.State {
	w := world.New(world.SystemD20)
	w.Player = "hero"
	w.Locations = map[string]*world.Location{
		"tankard": {ID: "tankard", Name: "the Rusty Tankard", Description: "A low, smoky taproom.",
			Exits: []world.Exit{{To: "street", Direction: "north"}, {To: "cellar", Direction: "down", Locked: true, Key: "iron_key"}, {To: "yard", Direction: "east"}},
			Items: map[string]int{"mug": 1, "bar": 1}},
		"street": {ID: "street", Name: "Harbour Street", Exits: []world.Exit{{To: "tankard", Direction: "south"}}},
		"cellar": {ID: "cellar", Name: "the Cellar", Exits: []world.Exit{{To: "tankard", Direction: "up", Locked: true, Key: "iron_key"}, {To: "tunnel", Direction: "west", Hidden: true}},
			Discoverables: []world.Discoverable{{ID: "draft", Text: "A draught from behind the barrels: a hidden tunnel.", Skill: "investigation", DC: 5, Exit: "tunnel", Item: "coin"}}},
		"tunnel": {ID: "tunnel", Name: "the Tunnel", Exits: []world.Exit{{To: "cellar", Direction: "east"}}},
		"yard":   {ID: "yard", Name: "the Yard", Exits: []world.Exit{{To: "tankard", Direction: "west"}}, Encounter: &world.Encounter{Creatures: []string{"goblin"}, Text: "A goblin leaps from the woodpile!"}},
	}
	w.Items = map[string]*world.Item{
		"sword":    {ID: "sword", Name: "Short Sword", Type: "weapon", Damage: "1d6", DamageType: "piercing", Ability: []string{"strength", "dexterity"}},
		"potion":   {ID: "potion", Name: "Healing Potion", Aliases: []string{"red vial"}, Type: "consumable", Effect: "heal 2d4+2"},
		"iron_key": {ID: "iron_key", Name: "Iron Key", Type: "key"},
		"mug":      {ID: "mug", Name: "Pewter Mug", Flavor: "Dented."},
		"bar":      {ID: "bar", Name: "Oak Bar", Fixed: true},
		"coin":     {ID: "coin", Name: "Old Coin", Type: "treasure", Value: 5},
		"tonic":    {ID: "tonic", Name: "Tonic", Type: "consumable", Effect: "resolve +2"},
	}
	w.Characters = map[string]*world.Character{
		"hero": {ID: "hero", Kind: world.PC, Name: "Aria", Location: "tankard",
			Sheet: world.Sheet{Level: 2, HP: 18, MaxHP: 18, AC: 14, ProficiencyBonus: 2, HitDice: "2d10",
				Abilities:    map[string]int{"strength": 12, "dexterity": 16, "constitution": 14, "wisdom": 10, "charisma": 8},
				Skills:       map[string]int{"stealth": 2, "investigation": 2},
				SavingThrows: []string{"dexterity"}, Gold: 10},
			Inventory: map[string]int{"sword": 1, "potion": 2, "tonic": 1}, Equipped: []string{"sword"},
			Stats: map[string]int{"resolve": 3}},
		"gareth": {ID: "gareth", Kind: world.NPC, Name: "Gareth", Location: "tankard", Greeting: "What'll it be?",
			Topics: map[string]string{"cellar": "Nobody goes down there.", "elsa": "My sister. Sharp as a hook."},
			Sheet:  world.Sheet{HP: 9, MaxHP: 9, AC: 10}, Secret: "He smuggles brandy."},
		"elsa": {ID: "elsa", Kind: world.NPC, Name: "Elsa", Location: "tankard", Sheet: world.Sheet{HP: 8, MaxHP: 8}},
		"goblin": {ID: "goblin", Kind: world.Creature, Name: "Goblin", Location: "yard", Hostile: true,
			Sheet:     world.Sheet{HP: 7, MaxHP: 7, AC: 13, Abilities: map[string]int{"dexterity": 14}},
			Attacks:   []world.Attack{{Name: "scimitar", Bonus: 4, Damage: "1d6+2", DamageType: "slashing"}},
			Inventory: map[string]int{"iron_key": 1}},
	}
	w.Quests = map[string]*world.Quest{
		"brandy": {ID: "brandy", Name: "The Missing Brandy", Giver: "gareth", Status: world.QuestAvailable, RewardGold: 25, RewardItems: []string{"coin"},
			Objectives: []world.Objective{{ID: "find", Text: "Find the brandy"}, {ID: "return", Text: "Return it to Gareth"}, {ID: "bonus", Text: "Keep it quiet", Optional: true}}},
	}
	w.Factions = map[string]*world.Faction{"guild": {ID: "guild", Name: "Harbour Guild"}}
	w.StatDefs = map[string]*world.StatDef{"resolve": {ID: "resolve", Min: 0, Max: 5}}
	w.Clocks = map[string]*world.Clock{"tide": {ID: "tide", Name: "Rising Tide", Max: 2}}
	return w
}

var ctx = context.Background()

func newRand() *rand.Rand { return rand.New(rand.NewPCG(7, 11)) }

// do resolves and applies one intent.
func do(t *testing.T, e *Engine, w *world.State, in Intent, r *rand.Rand) *Resolution {
	t.Helper()
	res, err := e.Resolve(ctx, w, in, r)
	if err != nil {
		t.Fatalf("%s: %v", in.Type(), err)
	}
	if err := w.ApplyAll(res.Effects()); err != nil {
		t.Fatalf("%s: apply: %v", in.Type(), err)
	}
	return res
}

func engine(t *testing.T, system string) *Engine {
	t.Helper()
	e, err := New(system)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestRejectionsSayWhatIsValid(t *testing.T) {
	tests := []struct {
		in   Intent
		want string
	}{
		{Talk{NPC: "Mira"}, `there is no "Mira" at the Rusty Tankard; present: Elsa and Gareth`},
		{Move{Destination: "west"}, `you can't go "west" from the Rusty Tankard; exits: north to Harbour Street, down to the Cellar and east to the Yard`},
		{Move{Destination: "down"}, "the way to the Cellar is locked; you need Iron Key"},
		{Move{Destination: "tunnel"}, "the Tunnel cannot be reached directly from the Rusty Tankard"},
		{Move{Destination: "atlantis"}, `you can't go "atlantis"`},
		{TakeItem{Item: "bar"}, "Oak Bar cannot be carried off"},
		{TakeItem{Item: "anchor"}, `the Rusty Tankard has no "anchor"; the Rusty Tankard has: Oak Bar and Pewter Mug`},
		{UseItem{Item: "lute"}, `Aria has no "lute"; Aria has: Healing Potion and Iron Key`},
		{Attack{Target: "goblin"}, `there is no "goblin" at the Rusty Tankard; present: Aria, Elsa and Gareth`},
		{GiveItem{Item: "potion"}, "give it to whom?"},
		{Rest{Rest: "nap"}, "a rest is short or long"},
		{EndCombat{Outcome: "victory"}, "no fight is going on"},
		{CompleteObjective{Quest: "brandy", Objective: "dance"}, "The Missing Brandy has no single objective"},
		{ChangeReputation{Faction: "thieves", Delta: 5}, `no faction "thieves"; factions: Harbour Guild`},
		{ChangeStat{Stat: "luck", Delta: 1}, `Aria has no stat "luck"; stats: resolve`},
		{AdvanceTime{Duration: "soon"}, "want a number with m, h, d or w"},
		{Check{}, "a check needs an ability"},
		{Check{Skill: "juggling"}, `unknown skill "juggling"`},
		{StartCombat{}, "no one here is hostile"},
		{RevealSecret{Character: "Elsa"}, "Elsa has no secret"},
		{RegisterConsequence{Trigger: "x", Description: "y", On: "sneeze", Target: "x"}, "on \"sneeze\": use enter_location"},
	}
	for _, tt := range tests {
		t.Run(tt.in.Type()+"/"+tt.want[:min(20, len(tt.want))], func(t *testing.T) {
			w := tavernWorld()
			w.Characters["hero"].Inventory["iron_key"] = 0 // not carried for the lock case
			delete(w.Characters["hero"].Inventory, "iron_key")
			if tt.in.Type() == "use_item" {
				w.Characters["hero"].Inventory["iron_key"] = 1
				delete(w.Characters["hero"].Inventory, "sword")
				delete(w.Characters["hero"].Inventory, "tonic")
			}
			_, err := engine(t, world.SystemD20).Resolve(ctx, w, tt.in, newRand())
			var rej *Rejection
			if !errors.As(err, &rej) {
				t.Fatalf("Resolve(%s) = %v, want a *Rejection", tt.in.Type(), err)
			}
			if !strings.Contains(rej.Reason, tt.want) {
				t.Errorf("Resolve(%s) rejection:\n got %q\nwant it to contain %q", tt.in.Type(), rej.Reason, tt.want)
			}
			if rej.Intent != tt.in.Type() {
				t.Errorf("rejection names intent %q, want %q", rej.Intent, tt.in.Type())
			}
		})
	}
}

func TestResolveDoesNotChangeTheWorld(t *testing.T) {
	w := tavernWorld()
	w.Characters["hero"].Location = "yard"
	before, _ := json.Marshal(w)
	e := engine(t, world.SystemD20)
	for _, in := range []Intent{Attack{Target: "goblin"}, Move{Destination: "west"}, UseItem{Item: "potion"},
		Search{}, Rest{Rest: "long"}, CreateNPC{Name: "Mira"}, AssertState{Patch: map[string]any{"a": 1.0}}} {
		_, _ = e.Resolve(ctx, w, in, newRand())
	}
	after, _ := json.Marshal(w)
	if string(before) != string(after) {
		t.Error("Resolve changed the world; only Apply may")
	}
}

func TestMoveUnlockAndSearch(t *testing.T) {
	w := tavernWorld()
	w.Characters["hero"].Inventory["iron_key"] = 1
	e := engine(t, world.SystemD20)
	r := newRand()
	res := do(t, e, w, Move{Destination: "downstairs"}, r)
	if !strings.Contains(res.Summary(), "unlocks the way to the Cellar with Iron Key") {
		t.Errorf("summary %q", res.Summary())
	}
	if w.PC().Location != "cellar" || w.Locations["tankard"].Exits[1].Locked || w.Locations["cellar"].Exits[0].Locked {
		t.Fatal("key should unlock both sides and move the player")
	}
	if w.Time != moveTime || w.Scene.Location != "cellar" || !w.Locations["cellar"].Visited {
		t.Errorf("time %v scene %+v", w.Time, w.Scene)
	}
	// The tunnel is hidden until found.
	if _, err := e.Resolve(ctx, w, Move{Destination: "west"}, r); err == nil {
		t.Fatal("moved through a hidden exit")
	}
	res = do(t, e, w, Search{}, r)
	if !res.Outcomes[0].Check.Succeeded() {
		t.Fatalf("search failed against DC 5: %+v", res.Outcomes[0].Check)
	}
	if w.Locations["cellar"].Exits[1].Hidden || w.Locations["cellar"].Items["coin"] != 1 || len(w.Facts) != 1 {
		t.Errorf("search should reveal the tunnel, place the coin and note a fact: %+v", w.Locations["cellar"])
	}
	do(t, e, w, Move{Destination: "tunnel"}, r)
	if w.PC().Location != "tunnel" {
		t.Error("should be in the tunnel")
	}
	res = do(t, e, w, Search{}, r)
	if !strings.Contains(res.Summary(), "finds nothing new") {
		t.Errorf("second search: %q", res.Summary())
	}
}

func TestTalkStartsQuestAndObjectivesCompleteIt(t *testing.T) {
	w := tavernWorld()
	e := engine(t, world.SystemD20)
	r := newRand()
	res := do(t, e, w, Talk{NPC: "gareth", Topic: "the cellar"}, r)
	if res.Outcomes[0].Quote != "Nobody goes down there." {
		t.Errorf("quote %q", res.Outcomes[0].Quote)
	}
	if w.Quests["brandy"].Status != world.QuestActive {
		t.Fatal("talking to the giver should start the quest")
	}
	res = do(t, e, w, Talk{NPC: "Gareth", Topic: "Elsa"}, r)
	if res.Outcomes[0].Quote != "My sister. Sharp as a hook." {
		t.Errorf("topic by character name: %q", res.Outcomes[0].Quote)
	}
	res = do(t, e, w, Talk{NPC: "gareth", Topic: "weather"}, r)
	if !strings.Contains(res.Summary(), "nothing to say about weather") || res.Outcomes[0].Details["topics"] == nil {
		t.Errorf("unknown topic: %q %v", res.Summary(), res.Outcomes[0].Details)
	}
	do(t, e, w, CompleteObjective{Quest: "Missing Brandy", Objective: "find"}, r)
	gold := w.PC().Gold
	res = do(t, e, w, CompleteObjective{Quest: "brandy", Objective: "Return it to Gareth"}, r)
	if w.Quests["brandy"].Status != world.QuestCompleted {
		t.Fatal("the last required objective should complete the quest (the optional one does not count)")
	}
	if w.PC().Gold != gold+25 || w.PC().Inventory["coin"] != 1 {
		t.Errorf("rewards: gold %d coin %d", w.PC().Gold, w.PC().Inventory["coin"])
	}
	if !strings.Contains(res.Summary(), "Reward: 25 gold and Old Coin") {
		t.Errorf("summary %q", res.Summary())
	}
}

func TestEncounterCombatToVictory(t *testing.T) {
	acted := 0
	for seed := uint64(1); seed <= 20; seed++ {
		w := tavernWorld()
		e := engine(t, world.SystemD20)
		r := rand.New(rand.NewPCG(seed, 99))
		move := do(t, e, w, Move{Destination: "east"}, r)
		var steps []*Resolution
		apply := func(res *Resolution) error {
			steps = append(steps, res)
			return w.ApplyAll(res.Effects())
		}
		if err := e.React(ctx, w, []*Resolution{move}, r, apply); err != nil {
			t.Fatal(err)
		}
		if w.Combat == nil || !w.Locations["yard"].Encounter.Triggered {
			t.Fatalf("seed %d: arriving in the yard should start the goblin fight", seed)
		}
		if steps[0].Outcomes[0].Text != "A goblin leaps from the woodpile!" {
			t.Errorf("encounter text: %q", steps[0].Outcomes[0].Text)
		}
		for round := 0; w.Combat != nil && round < 30; round++ {
			atk := do(t, e, w, Attack{Target: "goblin"}, r)
			if err := e.React(ctx, w, []*Resolution{atk}, r, apply); err != nil {
				t.Fatal(err)
			}
		}
		if w.Combat != nil {
			t.Fatalf("seed %d: the fight did not end in 30 rounds", seed)
		}
		hero, gob := w.Characters["hero"], w.Characters["goblin"]
		switch {
		case gob.HasCondition("dead"):
			if hero.XP == 0 {
				t.Errorf("seed %d: victory without XP", seed)
			}
		case hero.HasCondition("unconscious"):
			if hero.HP != 0 {
				t.Errorf("seed %d: unconscious at %d HP", seed, hero.HP)
			}
		default:
			t.Fatalf("seed %d: fight ended with both standing", seed)
		}
		enemy := false
		for _, s := range steps {
			for _, o := range s.Outcomes {
				if o.Action == "enemy_attack" {
					enemy = true
					if o.Check == nil || o.Check.Kind != "attack" {
						t.Errorf("enemy attack without its roll: %+v", o)
					}
				}
			}
		}
		if enemy {
			acted++
		}
	}
	// A goblin killed by the first blow after losing initiative never acts;
	// most fights are longer.
	if acted < 10 {
		t.Errorf("the goblin acted in only %d of 20 fights", acted)
	}
}

func TestAttackingABystanderStartsAFight(t *testing.T) {
	w := tavernWorld()
	e := engine(t, world.SystemD20)
	res := do(t, e, w, Attack{Target: "elsa"}, newRand())
	if w.Combat == nil || !w.Characters["elsa"].Hostile || w.Perception("elsa") != -40 {
		t.Fatalf("combat %v hostile %v perception %d", w.Combat, w.Characters["elsa"].Hostile, w.Perception("elsa"))
	}
	if res.Outcomes[0].Action != "combat_started" {
		t.Errorf("first outcome %q", res.Outcomes[0].Action)
	}
	if _, err := e.Resolve(ctx, w, Move{Destination: "north"}, newRand()); err == nil || !strings.Contains(err.Error(), "you are in a fight") {
		t.Errorf("moving in a fight: %v", err)
	}
}

func TestCriticalHitDoublesDice(t *testing.T) {
	// Find a seed whose first d20 is a natural 20.
	for seed := uint64(0); seed < 500; seed++ {
		w := tavernWorld()
		w.Characters["goblin"].Location = "tankard"
		e := engine(t, world.SystemD20)
		res, err := e.Resolve(ctx, w, Attack{Target: "goblin"}, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		var o *Outcome
		for i := range res.Outcomes {
			if res.Outcomes[i].Action == "attack" {
				o = &res.Outcomes[i]
			}
		}
		if o.Check.Degree != CriticalSuccess {
			continue
		}
		// 1d6+3 with the dice twice: 2..12 + 3.
		damageRolls := 0
		for _, r := range res.Rolls {
			if strings.Contains(r.Label, "damage") {
				damageRolls++
			}
		}
		if damageRolls != 2 || o.Amount < 5 || o.Amount > 15 || o.Details["critical"] != true {
			t.Fatalf("critical: %d damage rolls, amount %d, details %v", damageRolls, o.Amount, o.Details)
		}
		return
	}
	t.Fatal("no natural 20 in 500 seeds")
}

func TestSystems(t *testing.T) {
	c := &world.Character{ID: "c", Name: "C", Sheet: world.Sheet{
		Abilities: map[string]int{"strength": 14, "dexterity": 7, "education": 12, "social": 2},
		Skills:    map[string]int{"athletics": 2, "admin": 1}, ProficiencyBonus: 2, SavingThrows: []string{"str"}}}
	tests := []struct {
		system string
		q      roll
		mod    int
	}{
		{world.SystemD20, roll{Kind: "check", Skill: "athletics", Target: 12}, 2 + 2},
		{world.SystemD20, roll{Kind: "check", Ability: "dex", Target: 12}, -2},
		{world.SystemD20, roll{Kind: "save", Ability: "strength", Target: 12}, 2 + 2},
		{world.SystemD20, roll{Kind: "save", Ability: "dexterity", Target: 12}, -2},
		{world.System2d6, roll{Kind: "check", Skill: "athletics"}, 2 + 2},
		{world.SystemTraveller, roll{Kind: "check", Ability: "education", Skill: "admin"}, 2 + 1},
		{world.SystemTraveller, roll{Kind: "check", Ability: "social", Skill: "broker"}, -2 - 3},
		{world.SystemTraveller, roll{Kind: "check", Ability: "dexterity"}, 0},
	}
	for _, tt := range tests {
		sys, err := NewSystem(tt.system)
		if err != nil {
			t.Fatal(err)
		}
		r := newRand()
		for range 200 {
			res, err := sys.Resolve(r, c, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if res.Modifier != tt.mod {
				t.Fatalf("%s %+v: modifier %d, want %d", tt.system, tt.q, res.Modifier, tt.mod)
			}
			if res.Total != res.Roll.Total || res.Effect != res.Total-res.Target {
				t.Fatalf("%s: total %d roll %d effect %d target %d", tt.system, res.Total, res.Roll.Total, res.Effect, res.Target)
			}
			switch tt.system {
			case world.SystemD20:
				if (res.Total >= res.Target) != (res.Degree == Success) {
					t.Fatalf("d20: %d vs %d graded %s", res.Total, res.Target, res.Degree)
				}
			case world.System2d6:
				want := Failure
				if res.Total >= 10 {
					want = Success
				} else if res.Total >= 7 {
					want = Partial
				}
				if res.Degree != want {
					t.Fatalf("2d6: %d graded %s, want %s", res.Total, res.Degree, want)
				}
			case world.SystemTraveller:
				if res.Target != 8 {
					t.Fatalf("traveller target %d, want 8", res.Target)
				}
				want := Failure
				switch {
				case res.Effect >= 6:
					want = CriticalSuccess
				case res.Effect >= 0:
					want = Success
				case res.Effect <= -6:
					want = CriticalFailure
				}
				if res.Degree != want {
					t.Fatalf("traveller: effect %d graded %s, want %s", res.Effect, res.Degree, want)
				}
			}
		}
	}
	trav := traveller{}
	for score, dm := range map[int]int{0: -3, 1: -2, 2: -2, 3: -1, 5: -1, 6: 0, 8: 0, 9: 1, 11: 1, 12: 2, 14: 2, 15: 3} {
		if got := trav.AbilityModifier(score); got != dm {
			t.Errorf("Traveller DM(%d) = %d, want %d", score, got, dm)
		}
	}
	for score, mod := range map[int]int{1: -5, 8: -1, 9: -1, 10: 0, 11: 0, 12: 1, 20: 5} {
		if got := (d20{}).AbilityModifier(score); got != mod {
			t.Errorf("5e modifier(%d) = %d, want %d", score, got, mod)
		}
	}
	if _, err := NewSystem("gurps"); err == nil {
		t.Error("unknown system accepted")
	}
}

func TestItemsAndRest(t *testing.T) {
	w := tavernWorld()
	e := engine(t, world.SystemD20)
	r := newRand()
	w.Characters["hero"].HP = 5
	res := do(t, e, w, UseItem{Item: "red vial"}, r)
	if got := w.PC().HP; got < 9 || got > 15 || w.PC().Inventory["potion"] != 1 {
		t.Fatalf("potion: hp %d, potions left %d (%s)", got, w.PC().Inventory["potion"], res.Summary())
	}
	do(t, e, w, UseItem{Item: "tonic"}, r)
	if w.PC().Stats["resolve"] != 5 || w.PC().Inventory["tonic"] != 0 {
		t.Errorf("tonic: resolve %d", w.PC().Stats["resolve"])
	}
	do(t, e, w, TakeItem{Item: "mug"}, r)
	do(t, e, w, GiveItem{Item: "mug", To: "elsa"}, r)
	if w.Characters["elsa"].Inventory["mug"] != 1 {
		t.Error("Elsa should have the mug")
	}
	if _, err := e.Resolve(ctx, w, TakeItem{Item: "mug", From: "elsa"}, r); err == nil {
		t.Error("took from a living NPC without asking")
	}
	do(t, e, w, Rest{Rest: "long"}, r)
	if w.PC().HP != w.PC().MaxHP || w.Time < longRest {
		t.Errorf("long rest: hp %d time %v", w.PC().HP, w.Time)
	}
	w.Characters["hero"].HP = 3
	res = do(t, e, w, Rest{Rest: "short"}, r)
	if w.PC().HP <= 3 || w.PC().HitDiceUsed == 0 {
		t.Errorf("short rest: hp %d hit dice used %d (%s)", w.PC().HP, w.PC().HitDiceUsed, res.Summary())
	}
}

func TestConsequencesAndScheduledEvents(t *testing.T) {
	w := tavernWorld()
	w.Locations["tankard"].Items["iron_key"] = 1
	delete(w.Characters["hero"].Inventory, "iron_key")
	e := engine(t, world.SystemD20)
	r := newRand()
	do(t, e, w, RegisterConsequence{Trigger: "the key is taken", Description: "Gareth notices the key is gone.",
		On: world.OnTake, Target: "Iron Key", Then: []json.RawMessage{
			json.RawMessage(`{"type":"change_perception","npc":"gareth","delta":-20,"reason":"took the key"}`),
			json.RawMessage(`{"type":"remove_npc","npc":"nobody"}`),
		}}, r)
	do(t, e, w, ScheduleEvent{Description: "The tide turns.", In: "1h", Then: []json.RawMessage{json.RawMessage(`{"type":"advance_clock","clock":"tide"}`)}}, r)
	take := do(t, e, w, TakeItem{Item: "key"}, r)
	var steps []*Resolution
	apply := func(res *Resolution) error { steps = append(steps, res); return w.ApplyAll(res.Effects()) }
	if err := e.React(ctx, w, []*Resolution{take}, r, apply); err != nil {
		t.Fatal(err)
	}
	if w.Perception("gareth") != -20 || !w.Consequences["consequence_the_key_is_taken"].Triggered {
		t.Fatalf("consequence did not fire: perception %d", w.Perception("gareth"))
	}
	skipped := false
	for _, s := range steps {
		for _, o := range s.Outcomes {
			if o.Action == "skipped" && strings.Contains(o.Text, "remove_npc did not happen") {
				skipped = true
			}
		}
	}
	if !skipped {
		t.Error("a follow-up that no longer fits should be skipped and reported")
	}
	// It fires once only.
	steps = nil
	if err := e.React(ctx, w, []*Resolution{take}, r, apply); err != nil {
		t.Fatal(err)
	}
	if w.Perception("gareth") != -20 {
		t.Error("consequence fired twice")
	}
	wait := do(t, e, w, AdvanceTime{Duration: "2h"}, r)
	if err := e.React(ctx, w, []*Resolution{wait}, r, apply); err != nil {
		t.Fatal(err)
	}
	if w.Clocks["tide"].Value != 1 || len(w.Events) != 1 {
		t.Errorf("scheduled event: clock %d events %d", w.Clocks["tide"].Value, len(w.Events))
	}
}

func TestWorldBuilding(t *testing.T) {
	w := tavernWorld()
	e := engine(t, world.SystemD20)
	r := newRand()
	do(t, e, w, CreateNPC{Name: "Mira the Innkeeper", Description: "A stout dwarf", Personality: "Gruff", Location: "Rusty Tankard",
		Knowledge: []string{"knows about bandits on the north road"}}, r)
	mira := w.Characters["mira_the_innkeeper"]
	if mira == nil || mira.Location != "tankard" {
		t.Fatalf("mira: %+v", mira)
	}
	do(t, e, w, UpdateNPC{NPC: "Mira", Disposition: "friendly", Knowledge: []string{"owes Gareth money"}}, r)
	if mira = w.Characters["mira_the_innkeeper"]; mira.Disposition != "friendly" || len(mira.Knowledge) != 2 {
		t.Errorf("update: %+v", mira)
	}
	do(t, e, w, CreateLocation{Name: "Old Mill", ConnectTo: "Harbour Street", Direction: "east", BackDirection: "west"}, r)
	do(t, e, w, MoveNPC{NPC: "mira", Location: "old mill"}, r)
	if w.Characters["mira_the_innkeeper"].Location != "old_mill" {
		t.Error("move_npc")
	}
	do(t, e, w, CreateQuest{Name: "Grind", Objectives: []string{"Fix the wheel"}}, r)
	do(t, e, w, AddObjective{Quest: "grind", Objective: "Pay the miller"}, r)
	do(t, e, w, RememberFact{Subject: "Old Mill", Fact: "The mill is haunted.", Visibility: "gm_only", Importance: 0.9}, r)
	do(t, e, w, CreateClock{Name: "Flood", Max: 4}, r)
	do(t, e, w, AdvanceClock{Clock: "flood", Amount: 9}, r)
	do(t, e, w, UpdateThread{Thread: "Who haunts the mill?", Stakes: "the harvest"}, r)
	do(t, e, w, ChangeScene{Title: "Night falls", Mood: "tense"}, r)
	do(t, e, w, Whisper{Text: "You hear your name in the wind."}, r)
	do(t, e, w, RevealSecret{Whisper: "whisper-1", How: "told Gareth"}, r)
	do(t, e, w, RevealSecret{Character: "gareth"}, r)
	do(t, e, w, ChangeReputation{Faction: "guild", Delta: 150}, r)
	do(t, e, w, AssertState{Patch: map[string]any{"flags": map[string]any{"mill_seen": true}, "player": map[string]any{"stats": map[string]any{"resolve": 99.0}}}}, r)
	do(t, e, w, RemoveNPC{NPC: "Mira", Reason: "moved away"}, r)
	switch {
	case w.Locations["old_mill"] == nil || len(w.Locations["street"].Exits) != 2:
		t.Error("location not created and connected")
	case len(w.Quests["grind"].Objectives) != 2:
		t.Error("objective not added")
	case w.Clocks["flood"].Value != 4:
		t.Errorf("clock = %d, want clamped at 4", w.Clocks["flood"].Value)
	case w.Scene.Mood != "tense" || !w.Whispers["whisper-1"].Revealed || !w.Characters["gareth"].SecretRevealed:
		t.Error("scene, whisper or secret")
	case w.Reputation("guild") != 100 || w.PC().Stats["resolve"] != 5:
		t.Errorf("reputation %d resolve %d", w.Reputation("guild"), w.PC().Stats["resolve"])
	case w.Characters["mira_the_innkeeper"] != nil:
		t.Error("mira not removed")
	}
	if _, err := e.Resolve(ctx, w, CreateNPC{Name: "gareth"}, r); err == nil {
		t.Error("duplicate NPC accepted")
	}
}

func TestIntentCodec(t *testing.T) {
	names := map[string]bool{}
	for _, s := range Specs() {
		if names[s.Name] {
			t.Errorf("duplicate intent name %q", s.Name)
		}
		names[s.Name] = true
		if s.Zero.Type() != s.Name {
			t.Errorf("spec %q has zero value of type %q", s.Name, s.Zero.Type())
		}
		b, err := MarshalIntent(s.Zero)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeIntent(b)
		if err != nil {
			t.Fatalf("%s: %v (%s)", s.Name, err, b)
		}
		if !reflect.DeepEqual(back, s.Zero) {
			t.Errorf("%s: round trip gave %#v", s.Name, back)
		}
	}
	in := Intents{Attack{Target: "goblin", Weapon: "sword"}, Move{Destination: "north"}, Talk{NPC: "Mira", Topic: "lantern"}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Intents
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip: %#v", out)
	}
	for _, bad := range []struct{ name, args, want string }{
		{"attack", `{"target":"x","wepon":"sword"}`, `unknown field "wepon"`},
		{"fly", `{}`, `unknown intent "fly"`},
		{"move", `{"destination":7}`, "bad arguments"},
	} {
		if _, err := DecodeArgs(bad.name, []byte(bad.args)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("DecodeArgs(%s, %s) = %v, want %q", bad.name, bad.args, err, bad.want)
		}
	}
	if _, err := DecodeIntent([]byte(`{"target":"x"}`)); err == nil || !strings.Contains(err.Error(), `missing "type"`) {
		t.Errorf("missing type: %v", err)
	}
}

func TestDeterminism(t *testing.T) {
	run := func() string {
		w := tavernWorld()
		w.Characters["goblin"].Location = "tankard"
		e := engine(t, world.SystemD20)
		r := rand.New(rand.NewPCG(42, 42))
		var out []string
		for range 5 {
			res, err := e.Resolve(ctx, w, Attack{Target: "goblin"}, r)
			if err != nil {
				break
			}
			_ = w.ApplyAll(res.Effects())
			out = append(out, res.Summary())
		}
		return strings.Join(out, "|")
	}
	if a, b := run(), run(); a != b {
		t.Errorf("same seed, different outcomes:\n%s\n%s", a, b)
	}
}

func TestFreeActionsAndReturningToAFight(t *testing.T) {
	w := tavernWorld()
	e := engine(t, world.SystemD20)
	r := newRand()
	apply := func(res *Resolution) error { return w.ApplyAll(res.Effects()) }
	step := func(in Intent) *Resolution {
		t.Helper()
		res := do(t, e, w, in, r)
		if err := e.React(ctx, w, []*Resolution{res}, r, apply); err != nil {
			t.Fatal(err)
		}
		return res
	}
	step(Move{Destination: "east"})
	if w.Combat == nil {
		t.Fatal("no fight in the yard")
	}
	round := w.Combat.Round
	step(Look{})
	step(Look{Target: "goblin"})
	if w.Combat.Round != round {
		t.Errorf("looking advanced the round from %d to %d", round, w.Combat.Round)
	}
	w.Characters["hero"].Abilities["dexterity"] = 30 // flee for sure
	step(Flee{})
	if w.Combat != nil || w.PC().Location != "tankard" {
		t.Fatalf("flee: combat %v at %s", w.Combat, w.PC().Location)
	}
	step(Move{Destination: "east"})
	if w.Combat == nil {
		t.Error("the goblin should pick the fight up again when the player returns")
	}
}

// TestSituationalSeesTheCallersContext: the situational callback gets the
// context given to Resolve and React (it may read a database), and its
// modifiers reach the player's checks only.
func TestSituationalSeesTheCallersContext(t *testing.T) {
	type key struct{}
	check := Check{Ability: "wisdom", DC: 10, Reason: "to spot the ambush"}
	e := engine(t, world.SystemD20)
	e.SetSituational(func(ctx context.Context, w *world.State, in Intent) []Situational {
		if b, ok := ctx.Value(key{}).(int); ok {
			return []Situational{{Bonus: b, Reason: "remembered"}}
		}
		return nil
	})
	plain, err := e.Resolve(ctx, tavernWorld(), check, newRand())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		ctx   context.Context
		in    Intent
		bonus int
		text  string
	}{
		{"no value", ctx, check, 0, ""},
		{"the caller's value", context.WithValue(ctx, key{}, 3), check, 3, " (+3: remembered)"},
		{"a malus", context.WithValue(ctx, key{}, -2), check, -2, " (-2: remembered)"},
		{"not for an NPC", context.WithValue(ctx, key{}, 3), Check{Character: "gareth", Ability: "wisdom", DC: 10}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.Resolve(tt.ctx, tavernWorld(), tt.in, newRand())
			if err != nil {
				t.Fatal(err)
			}
			o := res.Outcomes[0]
			if tt.in == Intent(check) && o.Check.Total != plain.Outcomes[0].Check.Total+tt.bonus {
				t.Errorf("total %d, want %d%+d", o.Check.Total, plain.Outcomes[0].Check.Total, tt.bonus)
			}
			if got := strings.HasSuffix(o.Text, "."+tt.text); !got {
				t.Errorf("text %q, want it to end %q", o.Text, "."+tt.text)
			}
			if tt.text == "" && strings.Contains(o.Text, "remembered") {
				t.Errorf("text %q has a modifier it should not", o.Text)
			}
		})
	}
}
