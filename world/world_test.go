package world

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
)

// sample returns one effect of every kind, with fields set.
func sampleEffects() []Effect {
	return []Effect{
		TurnBegan{Turn: 3},
		HPChanged{Target: "hero", From: 10, To: 4, Reason: "goblin"},
		TempHPChanged{Target: "hero", From: 0, To: 5},
		ConditionApplied{Target: "hero", Condition: "poisoned", Reason: "bite"},
		ConditionRemoved{Target: "hero", Condition: "poisoned"},
		DeathSavesChanged{Target: "hero", From: DeathSaves{Successes: 1}, To: DeathSaves{Successes: 1, Failures: 2}},
		CharacterMoved{Character: "hero", From: "inn", To: "road"},
		ItemTransferred{Item: "rope", Qty: 1, From: "inn", To: "hero"},
		ItemEquipped{Character: "hero", Item: "rope", Equipped: true},
		ItemCreated{Item: Item{ID: "gem", Name: "Gem", Value: 50}},
		GoldChanged{Character: "hero", From: 5, To: 15, Reason: "reward"},
		XPGained{Character: "hero", Amount: 50},
		StatChanged{Character: "hero", Stat: "resolve", From: 3, To: 4},
		Rested{Character: "hero", Rest: "short", HitDiceSpent: 1},
		SpellSlotSpent{Character: "hero", Level: 1, Spell: "Magic Missile"},
		ConcentrationStarted{Character: "hero", Concentration: Concentration{Spell: "Hold Person", Targets: []string{"wolf"}, Condition: "paralyzed", Save: "wisdom", DC: 13, EndsRound: 11}},
		SpellTargetFreed{Caster: "hero", Target: "wolf"},
		ConcentrationEnded{Character: "hero", Spell: "Hold Person", Reason: "lost concentration"},
		CombatStarted{Location: "road", Order: []Combatant{{ID: "hero", Initiative: 15}, {ID: "wolf", Initiative: 9}}, Encounter: "road"},
		CombatRound{Round: 2},
		CombatantJoined{Combatant: Combatant{ID: "mira", Initiative: 12}},
		CombatEnded{Outcome: Victory},
		NPCCreated{NPC: Character{ID: "mira", Kind: NPC, Name: "Mira", Location: "inn", Sheet: Sheet{HP: 7, MaxHP: 7}}},
		NPCUpdated{ID: "mira", Changes: map[string]any{"disposition": "friendly"}},
		NPCRemoved{ID: "mira", Reason: "left town"},
		LocationCreated{Location: Location{ID: "cave", Name: "Cave"}},
		LocationsConnected{From: "road", To: "cave", Direction: "east", BackDirection: "west"},
		LocationUpdated{ID: "cave", Changes: map[string]any{"description": "Dark."}},
		ExitChanged{Location: "road", To: "cave", Locked: true},
		DiscoveryMade{Location: "inn", Discoverable: "loose-board"},
		FactRecorded{Fact: Fact{ID: "fact-1", Text: "The mill burned.", Visibility: access.Player, Importance: 0.7, Turn: 3}},
		EntitiesMentioned{IDs: []string{"hero"}},
		RelationshipSet{Relationship: Relationship{A: "mira", B: "hero", Type: "owes", Intensity: 20}},
		ConsequenceRegistered{Consequence: Consequence{ID: "c1", Trigger: "returns to the inn", Description: "a party", Importance: 0.8, Then: []RawIntent{json.RawMessage(`{"type":"advance_time","duration":"1h"}`)}}},
		ConsequenceTriggered{ID: "c1"},
		QuestCreated{Quest: Quest{ID: "q", Name: "Q", Status: QuestActive, Objectives: []Objective{{ID: "o1", Text: "do"}}}},
		QuestStatusChanged{Quest: "q", From: QuestActive, To: QuestCompleted},
		ObjectiveAdded{Quest: "q", Objective: Objective{ID: "o2", Text: "more"}},
		ObjectiveCompleted{Quest: "q", Objective: "o1"},
		EventScheduled{Event: ScheduledEvent{ID: "e1", At: 3 * Day, Description: "market day"}},
		ScheduledEventFired{ID: "e1"},
		EventRecorded{Event: Event{ID: "ev-1", Name: "Fire", Description: "The mill burned", Turn: 3}},
		StatePatched{Patch: map[string]any{"flags": map[string]any{"met_mira": true}}},
		ReputationChanged{Faction: "guild", From: 0, To: 10},
		PerceptionChanged{NPC: "wolf", From: 0, To: 25},
		ClockCreated{Clock: Clock{ID: "doom", Name: "Doom", Max: 6}},
		ClockTicked{Clock: "doom", From: 0, To: 2},
		ClockTicked{Clock: "doom", From: 2, To: 6},
		ClockFired{Clock: "doom"},
		ThreadUpdated{Thread: Thread{ID: "t1", Title: "Who burned the mill?", Status: "open"}},
		SceneChanged{Scene: Scene{Number: 2, Location: "road", Title: "On the road"}},
		WhisperSent{Whisper: Whisper{ID: "w1", From: "gm", To: "hero", Text: "You recognise the seal.", Turn: 3}},
		SecretRevealed{Whisper: "w1", Text: "You recognise the seal.", How: "told Mira"},
		TimeAdvanced{From: 0, To: Hour},
		PartyMemberAdded{Member: PartyMember{Character: "hero", Controller: Controller{Kind: ControllerAI}, Class: "fighter", Colour: "#c0392b",
			Personality: Personality{Traits: "blunt", Ideals: "duty", Bonds: "the mill", Flaws: "proud", Backstory: "A miller's child."}}},
		PartyMemberAdded{Member: PartyMember{Character: "wolf", Controller: Controller{Kind: ControllerNone}}},
		ControllerChanged{Character: "hero", From: Controller{Kind: ControllerAI}, To: Controller{Kind: ControllerAI, Provider: "ollama", Model: "qwen3"}},
		ActorChanged{From: "hero", To: "wolf"},
		ActorChanged{From: "wolf", To: "hero"},
		MemoryRecorded{Character: "hero", Entry: MemoryEntry{Turn: 3, Text: "Mira paid the toll."}},
		MemoryRecorded{Character: "hero", Entry: MemoryEntry{Turn: 4, Text: "The seal is the duke's.", Secret: true}},
		MemoryCompressed{Character: "hero", Through: 3, Summary: "(T3) Mira paid."},
		PartyMemberRemoved{Character: "wolf"},
		NoteRecorded{Note: Note{Kind: NoteNudge, By: "ann", Text: "talk to the innkeeper"}},
		ElementExtracted{Element: NarrativeElement{ID: "e3-1", ElementType: ElementPromise, Name: "The toll", Description: "Mira owes the ferryman.", TurnIntroduced: 3, Ref: "q1"}},
		ElementReferenced{ID: "e3-1", Turn: 5},
		ElementResolved{ID: "e3-1", Reason: "quest completed"},
		ModuleSelected{Module: Module{Number: 2, Name: "The Sunless Citadel", Description: "A ruined fortress.", Setting: "Forgotten Realms",
			LevelRange: "1-3", Hooks: "A missing party.", NPCs: "Meepo", Guidelines: "Start easy.", Source: "model"}},
	}
}

func TestEveryEffectKindRoundTrips(t *testing.T) {
	samples := sampleEffects()
	seen := map[string]bool{}
	for _, e := range samples {
		seen[e.Kind()] = true
		b, err := MarshalEffect(e)
		if err != nil {
			t.Fatalf("%s: %v", e.Kind(), err)
		}
		if !strings.HasPrefix(string(b), `{"type":"`+e.Kind()+`"`) {
			t.Errorf("%s encodes as %s; want the type first", e.Kind(), b)
		}
		got, err := UnmarshalEffect(b)
		if err != nil {
			t.Fatalf("%s: decode %s: %v", e.Kind(), b, err)
		}
		if !reflect.DeepEqual(normal(t, got), normal(t, e)) {
			t.Errorf("%s: round trip changed it:\n got %#v\nwant %#v", e.Kind(), got, e)
		}
	}
	for _, k := range EffectKinds() {
		if !seen[k] {
			t.Errorf("effect kind %q has no sample in this test", k)
		}
	}
	if len(seen) != len(EffectKinds()) {
		t.Errorf("%d samples for %d kinds", len(seen), len(EffectKinds()))
	}
}

// normal re-encodes through JSON so maps of any decode the same way.
func normal(t *testing.T, e Effect) any {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestUnmarshalEffectErrors(t *testing.T) {
	for _, in := range []string{`{"type":"nope"}`, `[]`, `{"type":"hp_changed","to":"x"}`, `not json`} {
		if _, err := UnmarshalEffect([]byte(in)); err == nil {
			t.Errorf("UnmarshalEffect(%s) succeeded, want error", in)
		}
	}
}

// testState is a small world the effects can apply to.
func testState() *State {
	s := New(SystemD20)
	s.Player = "hero"
	s.Locations["inn"] = &Location{ID: "inn", Name: "Inn", Items: map[string]int{"rope": 1}, Discoverables: []Discoverable{{ID: "loose-board", Text: "A loose board."}}}
	s.Locations["road"] = &Location{ID: "road", Name: "Road", Encounter: &Encounter{Creatures: []string{"wolf"}}}
	s.Characters["hero"] = &Character{ID: "hero", Kind: PC, Name: "Hero", Location: "inn", Sheet: Sheet{HP: 10, MaxHP: 10, Gold: 5, Level: 2, SpellSlots: map[int]int{1: 2}}}
	s.Characters["wolf"] = &Character{ID: "wolf", Kind: Creature, Name: "Wolf", Location: "road", Sheet: Sheet{HP: 11, MaxHP: 11}}
	s.Items["rope"] = &Item{ID: "rope", Name: "Rope"}
	s.Factions["guild"] = &Faction{ID: "guild", Name: "Guild"}
	s.StatDefs["resolve"] = &StatDef{ID: "resolve", Min: 0, Max: 5, Default: 3}
	return s
}

func TestApplyAllSamples(t *testing.T) {
	s := testState()
	if err := s.ApplyAll(sampleEffects()); err != nil {
		t.Fatal(err)
	}
	hero := s.Characters["hero"]
	if hero.HP != 4 || hero.Location != "road" || hero.Gold != 15 || hero.Inventory["rope"] != 1 {
		t.Errorf("hero after samples: hp %d loc %s gold %d rope %d", hero.HP, hero.Location, hero.Gold, hero.Inventory["rope"])
	}
	if s.Locations["inn"].Items["rope"] != 0 {
		t.Error("rope still at the inn")
	}
	if !s.Locations["road"].Visited || !s.Locations["road"].Encounter.Triggered {
		t.Error("road should be visited and its encounter triggered")
	}
	if s.Combat != nil {
		t.Error("combat should have ended")
	}
	if _, ok := s.Characters["mira"]; ok {
		t.Error("mira should have been removed")
	}
	if q := s.Quests["q"]; q.Status != QuestCompleted || !q.Objectives[0].Done || len(q.Objectives) != 2 {
		t.Errorf("quest: %+v", q)
	}
	if s.Time != Hour || s.Turn != 3 || s.Scene.Number != 2 || !s.Whispers["w1"].Revealed {
		t.Errorf("time %v turn %d scene %d", s.Time, s.Turn, s.Scene.Number)
	}
	if got := s.Vars["flags"].(map[string]any)["met_mira"]; got != true {
		t.Errorf("flags.met_mira = %v", got)
	}
	if len(s.Party) != 1 || s.Party[0].Controller.Model != "qwen3" || s.Party[0].Personality.Flaws != "proud" || s.Player != "hero" {
		t.Errorf("party %+v acting %q", s.Party, s.Player)
	}
	if len(s.Locations["road"].Exits) != 1 || !s.Locations["road"].Exits[0].Locked {
		t.Errorf("road exits: %+v", s.Locations["road"].Exits)
	}
}

func TestApplyRejectsWhatDoesNotFit(t *testing.T) {
	tests := []struct {
		name string
		e    Effect
		want string
	}{
		{"unknown character", HPChanged{Target: "ghost", To: 1}, `no character "ghost"`},
		{"too few items", ItemTransferred{Item: "rope", Qty: 2, From: "inn", To: "hero"}, "holds 1"},
		{"unknown item", ItemTransferred{Item: "sword", Qty: 1, To: "hero"}, `no item "sword"`},
		{"time backwards", TimeAdvanced{From: 0, To: -5}, "cannot go back"},
		{"no combat", CombatRound{Round: 2}, "no fight"},
		{"remove player", NPCRemoved{ID: "hero"}, "player"},
		{"bad rest", Rested{Character: "hero", Rest: "nap"}, "short or long"},
		{"duplicate npc", NPCCreated{NPC: Character{ID: "wolf"}}, "already exists"},
		{"npc update type clash", NPCUpdated{ID: "wolf", Changes: map[string]any{"hit_points": "many"}}, "do not fit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := testState().Apply(tt.e)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Apply(%s) = %v, want error containing %q", tt.e.Kind(), err, tt.want)
			}
		})
	}
}

func TestDeepMergeSeedExamples(t *testing.T) {
	tests := []struct{ target, patch, want string }{
		{`{"a":{"b":1,"c":2}}`, `{"a":{"c":3,"d":4}}`, `{"a":{"b":1,"c":3,"d":4}}`},
		{`{"items":[1,2,3]}`, `{"items":[4,5]}`, `{"items":[4,5]}`},
		{`{"a":1,"b":2}`, `{"b":null}`, `{"a":1}`},
		{`{"a":1}`, `{"a":{"x":{"y":null,"z":1}}}`, `{"a":{"x":{"z":1}}}`},
		{`{}`, `{"deep":{"er":[{"k":1}]}}`, `{"deep":{"er":[{"k":1}]}}`},
	}
	for _, tt := range tests {
		var target, patch, want map[string]any
		mustJSON(t, tt.target, &target)
		mustJSON(t, tt.patch, &patch)
		mustJSON(t, tt.want, &want)
		DeepMerge(target, patch)
		if !reflect.DeepEqual(target, want) {
			t.Errorf("merge %s + %s = %v, want %s", tt.target, tt.patch, target, tt.want)
		}
	}
}

func TestDeepMergeDoesNotAlias(t *testing.T) {
	patch := map[string]any{"a": map[string]any{"list": []any{1.0}}}
	dst := map[string]any{}
	DeepMerge(dst, patch)
	patch["a"].(map[string]any)["list"].([]any)[0] = 9.0
	if dst["a"].(map[string]any)["list"].([]any)[0] != 1.0 {
		t.Error("dst shares memory with patch")
	}
}

func mustJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatal(err)
	}
}

func TestStatePatchClampsStats(t *testing.T) {
	s := testState()
	s.Characters["wolf"].Stats = map[string]int{"fear": 1}
	s.StatDefs["npc.wolf.fear"] = &StatDef{ID: "npc.wolf.fear", Min: 0, Max: 3}
	var patch map[string]any
	mustJSON(t, `{"player":{"stats":{"resolve":99,"luck":-4},"name":"Aria"},"npcs":{"wolf":{"stats":{"fear":-2},"perception":250,"mood":"hungry"},"nobody":{"perception":5}},"world":{"time":"dusk"}}`, &patch)
	if err := s.Apply(StatePatched{Patch: patch}); err != nil {
		t.Fatal(err)
	}
	hero, wolf := s.Characters["hero"], s.Characters["wolf"]
	if hero.Stats["resolve"] != 5 {
		t.Errorf("resolve = %d, want clamped to 5", hero.Stats["resolve"])
	}
	if hero.Stats["luck"] != -4 {
		t.Errorf("luck (no definition) = %d, want -4 unclamped", hero.Stats["luck"])
	}
	if wolf.Stats["fear"] != 0 || wolf.Perception != 100 {
		t.Errorf("wolf fear %d perception %d, want 0 and 100", wolf.Stats["fear"], wolf.Perception)
	}
	want := `{"npcs":{"nobody":{"perception":5},"wolf":{"mood":"hungry"}},"player":{"name":"Aria"},"world":{"time":"dusk"}}`
	got, _ := json.Marshal(s.Vars)
	if string(got) != want {
		t.Errorf("vars = %s\nwant %s", got, want)
	}
	if err := s.Apply(StatePatched{Patch: map[string]any{"player": map[string]any{"stats": map[string]any{"resolve": "lots"}}}}); err == nil {
		t.Error("a non-numeric stat was accepted")
	}
}

func TestOpinionDecay(t *testing.T) {
	tests := []struct {
		v     int
		weeks GameTime
		want  int
	}{
		{20, 0, 20},
		{20, 1, 18},   // 10% a week
		{20, 2, 16},   // 20 × 0.9²
		{-20, 1, -18}, // symmetric
		{80, 1, 76},   // strong: 5%
		{60, 3, 51},   // 60→57→54.15→51.44, all at the strong rate
		{100, 600, 0}, // beyond the cap
		{30, 0, 30},
	}
	for _, tt := range tests {
		s := testState()
		s.Characters["wolf"].Perception = tt.v
		s.Factions["guild"].Reputation = tt.v
		s.Time = tt.weeks*Week + 3*Day // partial weeks do not count
		if got := s.Perception("wolf"); got != tt.want {
			t.Errorf("perception %d after %d weeks = %d, want %d", tt.v, tt.weeks, got, tt.want)
		}
		if got := s.Reputation("guild"); got != tt.want {
			t.Errorf("reputation %d after %d weeks = %d, want %d", tt.v, tt.weeks, got, tt.want)
		}
	}
}

func TestImportanceDecay(t *testing.T) {
	s := testState()
	s.Facts["a"] = &Fact{ID: "a", Text: "event", Category: CategoryEvent, Importance: 1, Turn: 0}
	s.Facts["b"] = &Fact{ID: "b", Text: "place", Category: CategoryLocation, Importance: 1, Turn: 0}
	s.Facts["c"] = &Fact{ID: "c", Text: "secret", Category: CategorySecret, Importance: 1, Turn: 0, Visibility: access.GM}
	s.Turn = 10
	if got := s.FactImportance(s.Facts["a"]); got < 0.8170 || got > 0.8171 { // 0.98^10
		t.Errorf("event fact after 10 turns = %v, want 0.98^10", got)
	}
	if got := s.FactImportance(s.Facts["b"]); got < 0.9043 || got > 0.9044 { // 0.99^10
		t.Errorf("location fact after 10 turns = %v, want 0.99^10", got)
	}
	top := s.TopFacts(5, access.Player)
	if len(top) != 2 || top[0].ID != "b" || top[1].ID != "a" {
		t.Errorf("top facts for a player = %v, want b then a (and no secret)", ids(top))
	}
	if top := s.TopFacts(1, access.GM); len(top) != 1 || top[0].ID != "b" {
		t.Errorf("top 1 for the GM = %v", ids(top))
	}
	c := &Consequence{ID: "c", Importance: 0.8, Turn: 5}
	if got := s.ConsequenceImportance(c); got >= 0.8 || got < 0.76 {
		t.Errorf("consequence importance = %v", got)
	}
}

// Slots are spent one at a time, never below none, and a long rest
// restores them; concentration ends only on the spell it is on.
func TestSpellSlotsAndConcentration(t *testing.T) {
	s := testState()
	hero := s.Characters["hero"]
	spend := SpellSlotSpent{Character: "hero", Level: 1, Spell: "Magic Missile"}
	for range 2 {
		if err := s.Apply(spend); err != nil {
			t.Fatal(err)
		}
	}
	if hero.SlotsLeft(1) != 0 {
		t.Fatalf("slots left %d after spending both", hero.SlotsLeft(1))
	}
	if err := s.Apply(spend); err == nil {
		t.Error("a third 1st-level slot was spent from two")
	}
	if err := s.Apply(SpellSlotSpent{Character: "hero", Level: 3}); err == nil {
		t.Error("a 3rd-level slot was spent by a hero without one")
	}
	if err := s.Apply(Rested{Character: "hero", Rest: "short"}); err != nil || hero.SlotsLeft(1) != 0 {
		t.Errorf("a short rest gave slots back: %d left (%v)", hero.SlotsLeft(1), err)
	}
	if err := s.Apply(Rested{Character: "hero", Rest: "long"}); err != nil || hero.SlotsLeft(1) != 2 {
		t.Errorf("after a long rest %d slots left, want 2 (%v)", hero.SlotsLeft(1), err)
	}
	if err := s.Apply(ConcentrationStarted{Character: "hero", Concentration: Concentration{Spell: "Bless"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ConcentrationEnded{Character: "hero", Spell: "Hold Person"}); err == nil {
		t.Error("ended concentration on a spell the hero is not concentrating on")
	}
	if err := s.Apply(ConcentrationEnded{Character: "hero", Spell: "bless"}); err != nil || hero.Concentration != nil {
		t.Errorf("concentration after ending it: %+v (%v)", hero.Concentration, err)
	}
}

func ids(fs []*Fact) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

func TestStateJSONRoundTripIsStable(t *testing.T) {
	s := testState()
	if err := s.ApplyAll(sampleEffects()[:20]); err != nil {
		t.Fatal(err)
	}
	a, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(a, &back); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(&back)
	if string(a) != string(b) {
		t.Errorf("state does not survive a JSON round trip unchanged")
	}
	c, err := s.Clone()
	if err != nil {
		t.Fatal(err)
	}
	c.Characters["hero"].HP = 1
	if s.Characters["hero"].HP == 1 {
		t.Error("clone shares memory")
	}
}

func TestGameTime(t *testing.T) {
	tm := GameTime(Day + 14*Hour + 5)
	if tm.String() != "Day 2, 14:05" || tm.PartOfDay() != "afternoon" {
		t.Errorf("got %s (%s)", tm, tm.PartOfDay())
	}
	for in, want := range map[string]GameTime{"30m": 30, "2h": 2 * Hour, "1d": Day, "1w": Week, "45": 45} {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"soon", "-1h", "3y"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", in)
		}
	}
}
