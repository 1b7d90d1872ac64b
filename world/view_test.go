package world_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/world"
)

func saltmere(t testing.TB) *world.State {
	t.Helper()
	c, err := campaign.LoadFS(context.Background(), hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.NewState()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func marshal(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonText is how s appears inside JSON, so that quotes and ampersands in
// campaign prose match their escaped form.
func jsonText(t testing.TB, s string) string {
	q := marshal(t, s)
	return q[1 : len(q)-1]
}

func TestViewOfTheBundledCampaign(t *testing.T) {
	w := saltmere(t)
	before := marshal(t, w)
	secrets := []string{
		// NPC secrets, personalities, knowledge and topics.
		w.Characters["aldous"].Secret, w.Characters["maren"].Secret, w.Characters["nell"].Secret,
		w.Characters["rook"].Secret, w.Characters["tobiah"].Secret,
		w.Characters["nell"].Personality, w.Characters["nell"].Knowledge[0], w.Characters["nell"].Topics["lights"],
		w.Characters["maren"].Topics["lantern"],
		// A gm_only fact, a hidden stat and a behavioural prompt.
		"Aldric Fenn", `"suspicion"`, "brother Jory",
		// Consequences, scheduled events, clocks and threads.
		w.Consequences["keeper_confesses"].Description, w.Consequences["keeper_confesses"].Trigger,
		w.Scheduled["dawn"].Description, w.Clocks["next_wreck"].OnFull, w.Threads["who_profits"].Title,
		// Hidden places: an unfound discoverable, a hidden exit, the cave
		// behind it with its encounter and loot.
		w.Locations["quay"].Discoverables[0].Text, w.Locations["clifftop"].Exits[2].Description,
		w.Locations["cave"].Description, w.Locations["cave"].Encounter.Text, "Smuggler's Purse",
		// Places not yet seen, described.
		w.Locations["tavern"].Description, w.Locations["lighthouse"].Description,
		// NPCs never met and what they carry.
		`"rook"`, `"gristle"`, "Rook's Ledger", `"brass_key"`,
		// The quest before anyone offers it.
		w.Quests["relight_lantern"].Description,
	}
	tests := []struct {
		name    string
		level   access.Level
		hidden  []string
		visible []string
	}{
		{"player", access.Player, secrets, []string{
			"Kestrel Varrow", `"resolve"`, w.Locations["quay"].Description, "Saltmere has fished the Sallow Bank",
			"Nell Pike", w.Characters["nell"].Description, `"name":"The Drowned Lantern"`, "Coil of Rope",
			w.Characters["kestrel"].Flaws[0], "Healing Potion",
		}},
		{"trusted", access.Trusted, secrets, []string{"Kestrel Varrow", "Saltmere has fished the Sallow Bank"}},
		{"gm", access.GM, nil, secrets},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := marshal(t, w.View(tt.level, w.Player))
			for _, s := range tt.hidden {
				if strings.Contains(got, jsonText(t, s)) || strings.Contains(got, s) {
					t.Errorf("the %s view holds %q", tt.name, s)
				}
			}
			for _, s := range tt.visible {
				if !strings.Contains(got, jsonText(t, s)) && !strings.Contains(got, s) {
					t.Errorf("the %s view lacks %q", tt.name, s)
				}
			}
		})
	}
	if after := marshal(t, w); after != before {
		t.Error("View changed the state it was called on")
	}
}

// planted is a state with one secret of every kind, each a unique word.
func planted() *world.State {
	w := world.New(world.SystemD20)
	w.Player = "hero"
	w.Locations["hall"] = &world.Location{ID: "hall", Name: "Hall", Visited: true,
		Exits: []world.Exit{{To: "yard", Direction: "out"}, {To: "vault", Direction: "down", Hidden: true, Description: "HIDDENEXIT"}},
		Discoverables: []world.Discoverable{
			{ID: "d1", Text: "UNFOUNDCLUE"},
			{ID: "d2", Text: "FOUNDCLUE", Found: true},
		},
		Encounter: &world.Encounter{Creatures: []string{"ghoul"}, Text: "AMBUSHTEXT"},
		Items:     map[string]int{"lamp": 1}}
	w.Locations["yard"] = &world.Location{ID: "yard", Name: "Yard", Description: "YARDPROSE",
		Exits: []world.Exit{{To: "gate"}}, Items: map[string]int{"spade": 1}}
	w.Locations["vault"] = &world.Location{ID: "vault", Name: "VAULTNAME"}
	w.Locations["gate"] = &world.Location{ID: "gate", Name: "GATENAME"}
	w.Items["lamp"] = &world.Item{ID: "lamp", Name: "Lamp"}
	w.Items["spade"] = &world.Item{ID: "spade", Name: "SPADEITEM"}
	w.Items["gem"] = &world.Item{ID: "gem", Name: "GEMITEM"}
	w.Items["sword"] = &world.Item{ID: "sword", Name: "Sword"}
	w.StatDefs["nerve"] = &world.StatDef{ID: "nerve", Max: 5, Prompt: "NERVEPROMPT"}
	w.StatDefs["heat"] = &world.StatDef{ID: "heat", Max: 100, Hidden: true}
	w.StatDefs["doom"] = &world.StatDef{ID: "doom", Max: 100, Display: "hidden"}
	w.StatDefs["npc.ann.fear"] = &world.StatDef{ID: "npc.ann.fear", Max: 10, Hidden: true}
	w.Characters["hero"] = &world.Character{ID: "hero", Kind: world.PC, Name: "Hero", Location: "hall",
		Secret: "HEROSECRET", Knowledge: []string{"HEROKNOWS"},
		Stats:     map[string]int{"nerve": 3, "heat": 41, "doom": 42},
		Inventory: map[string]int{"sword": 1}, Sheet: world.Sheet{HP: 10, MaxHP: 10, Gold: 7}}
	w.Characters["ann"] = &world.Character{ID: "ann", Kind: world.NPC, Name: "Ann", Location: "hall",
		Description: "ANNLOOKS", Personality: "ANNPERSONALITY", Knowledge: []string{"ANNKNOWS"},
		Topics: map[string]string{"x": "ANNTOPIC"}, Secret: "ANNSECRET", Greeting: "ANNGREETING",
		Faction: "guild", Stats: map[string]int{"fear": 43, "nerve": 2},
		Inventory: map[string]int{"gem": 1}, Sheet: world.Sheet{HP: 4, MaxHP: 6, Gold: 99, Backstory: "ANNBACKSTORY"}}
	w.Characters["bo"] = &world.Character{ID: "bo", Kind: world.NPC, Name: "Bo", Location: "gate",
		Secret: "BOSECRET", SecretRevealed: true, MentionedTurn: 2}
	w.Characters["ghoul"] = &world.Character{ID: "ghoul", Kind: world.Creature, Name: "GHOULNAME", Location: "vault"}
	w.Factions["guild"] = &world.Faction{ID: "guild", Name: "Guild"}
	w.Factions["cult"] = &world.Faction{ID: "cult", Name: "CULTNAME", Description: "CULTPROSE"}
	for _, f := range []world.Fact{
		{ID: "f1", Text: "PLAYERFACT", Visibility: access.Player},
		{ID: "f2", Text: "TRUSTEDFACT", Visibility: access.Trusted},
		{ID: "f3", Text: "ASSISTANTFACT", Visibility: access.Assistant},
		{ID: "f4", Text: "GMFACT", Visibility: access.GM},
		{ID: "f5", Text: "DEFAULTFACT"},
	} {
		w.Facts[f.ID] = &f
	}
	w.Whispers["w1"] = &world.Whisper{ID: "w1", From: "gm", To: "hero", Text: "TOHERO"}
	w.Whispers["w2"] = &world.Whisper{ID: "w2", From: "gm", To: "ann", Text: "TOANN"}
	w.Whispers["w3"] = &world.Whisper{ID: "w3", From: "gm", To: "ann", Text: "REVEALEDWHISPER", Revealed: true}
	w.Consequences["c1"] = &world.Consequence{ID: "c1", Trigger: "CQTRIGGER", Description: "CQDESC"}
	w.Scheduled["s1"] = &world.ScheduledEvent{ID: "s1", Description: "SCHEDULED"}
	w.Clocks["k1"] = &world.Clock{ID: "k1", Name: "CLOCKNAME", OnFull: "CLOCKFULL"}
	w.Threads["t1"] = &world.Thread{ID: "t1", Title: "THREADTITLE"}
	w.Quests["q1"] = &world.Quest{ID: "q1", Name: "OFFEREDQUEST", Status: world.QuestAvailable}
	w.Quests["q2"] = &world.Quest{ID: "q2", Name: "TAKENQUEST", Status: world.QuestActive}
	w.Events["e1"] = &world.Event{ID: "e1", Name: "HALLEVENT", Location: "hall"}
	w.Events["e2"] = &world.Event{ID: "e2", Name: "VAULTEVENT", Location: "vault"}
	w.Relationships = []world.Relationship{
		{A: "hero", B: "ann", Type: "friend", Notes: "RELNOTES"},
		{A: "ann", B: "bo", Type: "RIVALS"},
	}
	w.Vars = map[string]any{"plot": "VARSECRET"}
	w.Module = &world.Module{Number: 1, Name: "MODULENAME", Hooks: "MODULEHOOK", NPCs: "MODULENPC"}
	return w
}

func TestViewOfPlantedSecrets(t *testing.T) {
	w := planted()
	gmOnly := []string{"HIDDENEXIT", "UNFOUNDCLUE", "AMBUSHTEXT", "VAULTNAME", "GHOULNAME", "GEMITEM", "SPADEITEM",
		"YARDPROSE", "GATENAME", "NERVEPROMPT", `"heat"`, `"doom"`, `"fear"`, "HEROSECRET", "ANNPERSONALITY", "ANNKNOWS",
		"ANNTOPIC", "ANNSECRET", "ANNGREETING", "ANNBACKSTORY", `"gold":99`, "CULTNAME", "GMFACT", "TOANN", "CQTRIGGER",
		"CQDESC", "SCHEDULED", "CLOCKNAME", "CLOCKFULL", "THREADTITLE", "OFFEREDQUEST", "VAULTEVENT", "RELNOTES",
		"RIVALS", "VARSECRET", "MODULENAME", "MODULEHOOK", "MODULENPC"}
	seen := []string{"PLAYERFACT", "DEFAULTFACT", "TOHERO", "REVEALEDWHISPER", "BOSECRET", "FOUNDCLUE", "ANNLOOKS",
		`"nerve":3`, `"nerve":2`, "HEROKNOWS", `"gold":7`, "TAKENQUEST", "HALLEVENT", `"friend"`, "Lamp", "Sword",
		`"name":"Yard"`, "Guild"}
	tests := []struct {
		name            string
		level           access.Level
		character       string
		hidden, visible []string
	}{
		{"player", access.Player, "hero",
			append([]string{"TRUSTEDFACT", "ASSISTANTFACT"}, gmOnly...), seen},
		{"trusted", access.Trusted, "hero",
			append([]string{"ASSISTANTFACT"}, gmOnly...), append([]string{"TRUSTEDFACT"}, seen...)},
		{"assistant", access.Assistant, "hero",
			gmOnly, append([]string{"TRUSTEDFACT", "ASSISTANTFACT"}, seen...)},
		{"spectator", access.Player, "",
			[]string{"TOHERO", "HEROKNOWS", `"gold":7`, `"friend"`, "GMFACT", "ANNSECRET", "HEROSECRET"},
			[]string{"REVEALEDWHISPER", "PLAYERFACT", "Hero"}},
		{"gm", access.GM, "", nil, append(append([]string{"TRUSTEDFACT", "ASSISTANTFACT"}, gmOnly...), seen...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := marshal(t, w.View(tt.level, tt.character))
			for _, s := range tt.hidden {
				if strings.Contains(got, s) {
					t.Errorf("the %s view holds %s", tt.name, s)
				}
			}
			for _, s := range tt.visible {
				if !strings.Contains(got, s) {
					t.Errorf("the %s view lacks %s", tt.name, s)
				}
			}
		})
	}
}

func TestViewSurvivesAStateJSONCannotEncode(t *testing.T) {
	w := planted()
	w.Facts["f1"].Importance = nan()
	v := w.View(access.Player, "hero")
	if len(v.Characters) != 0 || len(v.Facts) != 0 || v.Player != "hero" {
		t.Errorf("an uncopyable state should give an empty view, got %d characters, %d facts", len(v.Characters), len(v.Facts))
	}
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

func TestVisibleEffects(t *testing.T) {
	w := planted()
	w.Characters["bo"].Location = "hall" // bo is present
	v := w.View(access.Player, "hero")
	tests := []struct {
		name string
		in   world.Effect
		want string // the JSON kept, "" when dropped
	}{
		{"turn", world.TurnBegan{Turn: 3}, `{"type":"turn_began","turn":3}`},
		{"hp of someone here", world.HPChanged{Target: "ann", From: 6, To: 4}, `"to":4`},
		{"hp of an unseen creature", world.HPChanged{Target: "ghoul", To: 1}, ""},
		{"move into a hidden place", world.CharacterMoved{Character: "ann", From: "hall", To: "vault"}, ""},
		{"move within sight", world.CharacterMoved{Character: "bo", From: "vault", To: "hall"}, `{"type":"character_moved","character":"bo","to":"hall"}`},
		{"item picked up", world.ItemTransferred{Item: "lamp", Qty: 1, From: "hall", To: "hero"}, `"item":"lamp"`},
		{"item given between NPCs", world.ItemTransferred{Item: "gem", Qty: 1, From: "ann", To: "bo"}, ""},
		{"item hidden in the vault", world.ItemTransferred{Item: "gem", Qty: 1, From: "ann", To: "vault"}, ""},
		{"own gold", world.GoldChanged{Character: "hero", From: 7, To: 9}, `"to":9`},
		{"an NPC's gold", world.GoldChanged{Character: "ann", From: 99, To: 1}, ""},
		{"visible stat", world.StatChanged{Character: "hero", Stat: "nerve", From: 3, To: 2}, `"stat":"nerve"`},
		{"hidden stat", world.StatChanged{Character: "hero", Stat: "heat", From: 41, To: 50}, ""},
		{"hidden NPC stat", world.StatChanged{Character: "ann", Stat: "fear", From: 43, To: 50}, ""},
		{"public fact", world.FactRecorded{Fact: world.Fact{ID: "n1", Text: "OPEN", Visibility: access.Player}}, "OPEN"},
		{"trusted fact", world.FactRecorded{Fact: world.Fact{ID: "n2", Text: "CLOSE", Visibility: access.Trusted}}, ""},
		{"consequence", world.ConsequenceRegistered{Consequence: world.Consequence{ID: "c2", Description: "X"}}, ""},
		{"consequence fires", world.ConsequenceTriggered{ID: "c1"}, ""},
		{"schedule", world.EventScheduled{Event: world.ScheduledEvent{ID: "s2", Description: "X"}}, ""},
		{"clock", world.ClockTicked{Clock: "k1", From: 0, To: 1}, ""},
		{"thread", world.ThreadUpdated{Thread: world.Thread{ID: "t1"}}, ""},
		{"patch", world.StatePatched{Patch: map[string]any{"plot": "X"}}, ""},
		{"whisper to me", world.WhisperSent{Whisper: *w.Whispers["w1"]}, "TOHERO"},
		{"whisper to another", world.WhisperSent{Whisper: *w.Whispers["w2"]}, ""},
		{"secret revealed", world.SecretRevealed{Character: "bo", Text: "BOSECRET"}, "BOSECRET"},
		{"hidden exit", world.ExitChanged{Location: "hall", To: "vault", Hidden: true}, ""},
		{"module chosen", world.ModuleSelected{Module: *w.Module}, ""},
		{"npc update", world.NPCUpdated{ID: "ann", Changes: map[string]any{"personality": "P", "description": "D",
			"stats": map[string]any{"fear": 1, "nerve": 1}}}, `{"type":"npc_updated","id":"ann","changes":{"description":"D","stats":{"nerve":1}}}`},
		{"npc update of secrets only", world.NPCUpdated{ID: "ann", Changes: map[string]any{"secret": "S"}}, ""},
		{"own update", world.NPCUpdated{ID: "hero", Changes: map[string]any{"backstory": "B", "secret": "S"}}, `"changes":{"backstory":"B"}`},
		{"own relationship notes", world.RelationshipSet{Relationship: world.Relationship{A: "hero", B: "ann", Type: "t", Notes: "NOTES"}}, `"type":"t"}`},
		{"npc created here", world.NPCCreated{NPC: *w.Characters["ann"]}, "ANNLOOKS"},
		{"npc created elsewhere", world.NPCCreated{NPC: *w.Characters["ghoul"]}, ""},
		{"location update", world.LocationUpdated{ID: "hall", Changes: map[string]any{"description": "D", "encounter": nil}}, `"changes":{"description":"D"}`},
		{"mentions", world.EntitiesMentioned{IDs: []string{"ann", "ghoul"}}, `"ids":["ann"]`},
		{"taken quest", world.ObjectiveCompleted{Quest: "q2", Objective: "o"}, `"quest":"q2"`},
		{"offered quest", world.QuestStatusChanged{Quest: "q1", From: "", To: "available"}, ""},
		{"npc removed", world.NPCRemoved{ID: "ann", Reason: "WHY"}, ""},
		{"fight with the unseen", world.CombatStarted{Location: "hall", Order: []world.Combatant{{ID: "hero"}, {ID: "ghoul"}}, Encounter: "hall"},
			`{"type":"combat_started","location":"hall","order":[{"id":"hero","initiative":0}]}`},
		{"joins the fight", world.CombatantJoined{Combatant: world.Combatant{ID: "ghoul"}}, ""},
		{"place seen", world.LocationCreated{Location: *w.Locations["hall"]}, `"name":"Hall"`},
		{"place hidden", world.LocationCreated{Location: *w.Locations["vault"]}, ""},
		{"place known by name updated", world.LocationUpdated{ID: "yard", Changes: map[string]any{"description": "D", "name": "Court"}}, `"changes":{"name":"Court"}`},
		{"way to a hidden place", world.LocationsConnected{From: "hall", To: "vault"}, ""},
		{"way between seen places", world.LocationsConnected{From: "hall", To: "yard"}, `"to":"yard"`},
		{"exit opened", world.ExitChanged{Location: "hall", To: "yard"}, `"to":"yard"`},
		{"found", world.DiscoveryMade{Location: "hall", Discoverable: "d2"}, `"discoverable":"d2"`},
		{"not found", world.DiscoveryMade{Location: "hall", Discoverable: "d1"}, ""},
		{"standing with a known faction", world.ReputationChanged{Faction: "guild", To: 5}, `"faction":"guild"`},
		{"standing with a hidden faction", world.ReputationChanged{Faction: "cult", To: 5}, ""},
		{"opinion of someone here", world.PerceptionChanged{NPC: "ann", To: 5}, `"npc":"ann"`},
		{"opinion of the unseen", world.PerceptionChanged{NPC: "ghoul", To: 5}, ""},
		{"quest offered", world.QuestCreated{Quest: *w.Quests["q1"]}, ""},
		{"quest taken", world.QuestCreated{Quest: *w.Quests["q2"]}, "TAKENQUEST"},
		{"event here", world.EventRecorded{Event: *w.Events["e1"]}, "HALLEVENT"},
		{"event in the vault", world.EventRecorded{Event: *w.Events["e2"]}, ""},
		{"own relationship", world.RelationshipSet{Relationship: w.Relationships[0]}, `"type":"friend"`},
		{"others' relationship", world.RelationshipSet{Relationship: w.Relationships[1]}, ""},
		{"item seen", world.ItemCreated{Item: *w.Items["lamp"]}, `"name":"Lamp"`},
		{"item unseen", world.ItemCreated{Item: *w.Items["gem"]}, ""},
		{"equip", world.ItemEquipped{Character: "hero", Item: "sword", Equipped: true}, `"item":"sword"`},
		{"time", world.TimeAdvanced{From: 1, To: 2}, `"to":2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := v.VisibleEffects(world.Effects{tt.in}, access.Player, "hero")
			switch {
			case tt.want == "" && len(got) != 0:
				t.Errorf("kept %s", marshal(t, got))
			case tt.want != "" && len(got) != 1:
				t.Errorf("dropped; want %s", tt.want)
			case tt.want != "" && !strings.Contains(marshal(t, got), tt.want):
				t.Errorf("got %s, want it to hold %s", marshal(t, got), tt.want)
			}
			if all := w.View(access.GM, "").VisibleEffects(world.Effects{tt.in}, access.GM, ""); len(all) != 1 {
				t.Errorf("the GM should see every effect, got %d", len(all))
			}
		})
	}
}

func BenchmarkView(b *testing.B) {
	w := saltmere(b)
	for b.Loop() {
		w.View(access.Player, w.Player)
	}
}

// partyOfThree is planted with two more player characters in the hall and
// a party of hero, kit and zed.
func partyOfThree(t *testing.T) *world.State {
	t.Helper()
	w := planted()
	w.Characters["kit"] = &world.Character{ID: "kit", Kind: world.PC, Name: "Kit", Location: "hall", Description: "A lean archer.",
		Inventory: map[string]int{"gem": 1}, Equipped: []string{"sword"},
		Sheet: world.Sheet{Race: "elf", Class: "ranger", Level: 3, HP: 7, MaxHP: 22, TempHP: 4, AC: 15, Gold: 31,
			Abilities: map[string]int{"dexterity": 17}, Skills: map[string]int{"stealth": 5}, SpellsKnown: []string{"KITSPELL"},
			Backstory: "KITBACKSTORY"}}
	w.Characters["zed"] = &world.Character{ID: "zed", Kind: world.PC, Name: "Zed", Location: "hall",
		Sheet: world.Sheet{Class: "wizard", HP: 9, MaxHP: 9}}
	for _, id := range []string{"hero", "kit", "zed"} {
		if err := w.Apply(world.PartyMemberAdded{Member: world.PartyMember{Character: id, Controller: world.Controller{Kind: world.ControllerAI}}}); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// A player holding a party member sees the others as the party summary
// does: race, class, level and an HP band, not their sheet, inventory or
// exact hit points; their own sheet stays whole; the GM sees everything.
func TestViewOfAlliesIsASummary(t *testing.T) {
	w := partyOfThree(t)
	for _, tt := range []struct {
		name   string
		level  access.Level
		reader string
		ally   string // a member whose summary reader gets
		own    string // a member reader sees whole
	}{
		{"hero's player", access.Player, "hero", "kit", "hero"},
		{"kit's player", access.Player, "kit", "zed", "kit"},
		{"trusted player", access.Trusted, "zed", "kit", "zed"},
		{"spectator", access.Player, "", "kit", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := w.View(tt.level, tt.reader)
			a := v.Characters[tt.ally]
			if a == nil {
				t.Fatalf("%s does not see %s at all", tt.reader, tt.ally)
			}
			full := w.Characters[tt.ally]
			if a.HP != 0 || a.MaxHP != 0 || a.TempHP != 0 || a.Abilities != nil || a.Skills != nil || a.Inventory != nil ||
				a.SpellsKnown != nil || a.Gold != 0 || a.AC != 0 || a.Backstory != "" {
				t.Errorf("%s sees %s's sheet: %s", tt.reader, tt.ally, marshal(t, a))
			}
			if a.HPBand != world.HPBand(full) || a.HPBand == "" || a.Class != full.Class || a.Name != full.Name || a.Level != full.Level {
				t.Errorf("%s's summary of %s: band %q class %q level %d, want %q %q %d",
					tt.reader, tt.ally, a.HPBand, a.Class, a.Level, world.HPBand(full), full.Class, full.Level)
			}
			if tt.own != "" {
				if o := v.Characters[tt.own]; o.HP != w.Characters[tt.own].HP || o.MaxHP != w.Characters[tt.own].MaxHP || o.HPBand != "" {
					t.Errorf("%s's own sheet: HP %d/%d band %q", tt.own, o.HP, o.MaxHP, o.HPBand)
				}
			}
			// Nobody's exact hit points travel in an effect either.
			hp := v.VisibleEffects(world.Effects{world.HPChanged{Target: tt.ally, From: 22, To: 7},
				world.TempHPChanged{Target: tt.ally, To: 4},
				world.NPCUpdated{ID: tt.ally, Changes: map[string]any{"hit_points": 7, "name": "Kit the Bold"}}}, tt.level, tt.reader)
			if got := marshal(t, hp); strings.Contains(got, `"to"`) || strings.Contains(got, "hit_points") || !strings.Contains(got, "Kit the Bold") {
				t.Errorf("effects about %s as %s's player sees them: %s", tt.ally, tt.reader, got)
			}
		})
	}
	gm := w.View(access.GM, "")
	if k := gm.Characters["kit"]; k.HP != 7 || k.Skills["stealth"] != 5 || k.HPBand != "" {
		t.Errorf("the GM's view of kit: %s", marshal(t, k))
	}
	// An NPC is no ally: a player still sees how hurt a stranger is, as before.
	if a := w.View(access.Player, "hero").Characters["ann"]; a.HP != 4 || a.HPBand != "" {
		t.Errorf("hero's view of the NPC ann: HP %d band %q", a.HP, a.HPBand)
	}
}

func TestHPBand(t *testing.T) {
	for _, tt := range []struct {
		hp, max int
		want    string
	}{
		{10, 10, "healthy"}, {9, 10, "wounded"}, {5, 10, "bloodied"}, {2, 10, "critical"}, {0, 10, "down"}, {-3, 10, "down"}, {5, 0, ""},
	} {
		if got := world.HPBand(&world.Character{Sheet: world.Sheet{HP: tt.hp, MaxHP: tt.max}}); got != tt.want {
			t.Errorf("HPBand(%d/%d) = %q, want %q", tt.hp, tt.max, got, tt.want)
		}
	}
}

// A player's view keeps the portraits (vars.portraits, from the portrait
// skill) of those the player has met and the places they know, and no
// other vars: a portrait of someone not met would give them away.
func TestViewKeepsPortraitsOfThoseMet(t *testing.T) {
	w := saltmere(t) // the player stands on the quay, with Nell
	url := func(s string) string { return "/api/campaigns/saltmere/assets/art/" + s + ".png" }
	w.Vars = map[string]any{
		"portraits": map[string]any{
			"nell": url("nell"), "maren": url("maren"), "rook": url("rook"), "tobiah": "",
			"quay": url("quay"), "cave": url("cave"), "nobody": url("nobody"),
		},
		"smuggler_plan": "the cave at low tide",
	}
	v := w.View(access.Player, w.Player)
	got, _ := v.Vars["portraits"].(map[string]any)
	want := map[string]any{"nell": url("nell"), "quay": url("quay")}
	if len(v.Vars) != 1 || len(got) != len(want) || got["nell"] != want["nell"] || got["quay"] != want["quay"] {
		t.Errorf("player's vars %v, want only portraits %v", v.Vars, want)
	}
	for _, hidden := range []string{"maren.png", "rook.png", "cave.png", "smuggler_plan"} {
		if s := marshal(t, v); strings.Contains(s, hidden) {
			t.Errorf("the player's view names %s", hidden)
		}
	}
	// Met later (mentioned in play): their portrait comes with them.
	w.Characters["maren"].MentionedTurn = 3
	if p, _ := w.View(access.Player, w.Player).Vars["portraits"].(map[string]any); p["maren"] != url("maren") {
		t.Errorf("maren, met, has no portrait in the view: %v", p)
	}
	if p, _ := w.View(access.GM, "").Vars["portraits"].(map[string]any); len(p) != 7 {
		t.Errorf("the GM's view lost portraits: %v", p)
	}
	// No portraits at all: no vars.
	w.Vars = map[string]any{"smuggler_plan": "x"}
	if v := w.View(access.Player, w.Player); v.Vars != nil {
		t.Errorf("vars without portraits in the player's view: %v", v.Vars)
	}
}
