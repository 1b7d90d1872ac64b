package offlinegm_test

import (
	"context"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/offlinegm"
	"github.com/hearth-rpg/hearth/world"
)

var _ game.Agent = offlinegm.NewAgent()

// agentWorld: ada in the hall with Tomas, who offers a quest about the
// cellar two rooms away; a rat in the yard.
func agentWorld() *world.State {
	w := world.New(world.SystemD20)
	w.Turn = 4
	w.Player = "ada"
	w.Locations["hall"] = &world.Location{ID: "hall", Name: "Great Hall", Visited: true,
		Exits: []world.Exit{{To: "yard", Direction: "east"}, {To: "stair", Direction: "down"}, {To: "vault", Direction: "north", Hidden: true}}}
	w.Locations["yard"] = &world.Location{ID: "yard", Name: "Yard", Exits: []world.Exit{{To: "hall", Direction: "west"}}}
	w.Locations["stair"] = &world.Location{ID: "stair", Name: "Stair", Visited: true, Exits: []world.Exit{{To: "hall", Direction: "up"}, {To: "cellar", Direction: "down"}}}
	w.Locations["cellar"] = &world.Location{ID: "cellar", Name: "Wine Cellar", Exits: []world.Exit{{To: "stair", Direction: "up"}}}
	w.Locations["vault"] = &world.Location{ID: "vault", Name: "Vault"}
	w.Characters["ada"] = &world.Character{ID: "ada", Kind: world.PC, Name: "Ada", Location: "hall",
		Sheet: world.Sheet{HP: 12, MaxHP: 12}, Inventory: map[string]int{"potion": 1}}
	w.Characters["tomas"] = &world.Character{ID: "tomas", Kind: world.NPC, Name: "Tomas", Location: "hall",
		Topics: map[string]string{"rats": "Vermin.", "old_keep": "Grand once."}}
	w.Characters["rat"] = &world.Character{ID: "rat", Kind: world.Creature, Name: "Giant Rat", Location: "yard", Hostile: true, Sheet: world.Sheet{HP: 4, MaxHP: 4}}
	w.Items["potion"] = &world.Item{ID: "potion", Name: "Healing Potion", Type: "consumable", Effect: "heal 2d4+2"}
	w.Items["rope"] = &world.Item{ID: "rope", Name: "Rope"}
	w.Quests["cellar"] = &world.Quest{ID: "cellar", Name: "The Cellar", Giver: "tomas", Status: world.QuestAvailable,
		Objectives: []world.Objective{{ID: "clear", Text: "Clear the wine cellar of rats"}}}
	return w
}

func TestOfflineAgentDecides(t *testing.T) {
	ada := world.PartyMember{Character: "ada", Controller: world.Controller{Kind: world.ControllerAI}}
	for _, tt := range []struct {
		name string
		edit func(w *world.State)
		want string
	}{
		{"talks to the quest giver", func(*world.State) {}, "talk to Tomas"},
		{"asks the giver of an active quest", func(w *world.State) { w.Quests["cellar"].Status = world.QuestActive }, "ask Tomas about rats"},
		{"heads for the quest's place", func(w *world.State) {
			w.Quests["cellar"].Status = world.QuestActive
			w.Characters["tomas"].Location = "yard"
		}, "go down"},
		{"attacks a hostile present", func(w *world.State) { w.Characters["ada"].Location = "yard" }, "attack the giant rat"},
		{"drinks a potion when hurt, even in a fight", func(w *world.State) {
			w.Characters["ada"].Location = "yard"
			w.Characters["ada"].HP = 5
		}, "drink the healing potion"},
		{"fights on when hurt without a potion", func(w *world.State) {
			w.Characters["ada"].Location = "yard"
			w.Characters["ada"].HP = 5
			w.Characters["ada"].Inventory = nil
		}, "attack the giant rat"},
		{"ignores a dead hostile and searches", func(w *world.State) {
			w.Characters["ada"].Location = "yard"
			w.Characters["rat"].HP = 0
			w.Locations["yard"].Discoverables = []world.Discoverable{{ID: "nest", Text: "A nest."}}
		}, "search"},
		{"takes what lies here", func(w *world.State) {
			w.Quests["cellar"].Status = world.QuestCompleted
			w.Characters["tomas"].MentionedTurn = 1
			w.Locations["hall"].Items = map[string]int{"rope": 1}
		}, "take the rope"},
		{"talks to a stranger not yet met", func(w *world.State) { w.Quests["cellar"].Status = world.QuestCompleted }, "talk to Tomas"},
		{"explores the unseen, not the hidden", func(w *world.State) {
			w.Quests["cellar"].Status = world.QuestCompleted
			w.Characters["tomas"].MentionedTurn = 1
		}, "go east"},
		{"wanders when all is seen", func(w *world.State) {
			w.Quests["cellar"].Status = world.QuestCompleted
			w.Characters["tomas"].MentionedTurn = 1
			w.Locations["yard"].Visited = true
		}, "go down"},
		{"walks toward the nearest unseen place, however far", func(w *world.State) {
			w.Turn = 5 // wandering would go east
			w.Quests["cellar"].Status = world.QuestCompleted
			w.Characters["tomas"].MentionedTurn = 1
			w.Locations["yard"].Visited = true
		}, "go down"},
		{"in a party, talks to a stranger seen but never heard", func(w *world.State) {
			w.Party = []world.PartyMember{ada}
			w.Memory = map[string]*world.Memory{"ada": {Recent: []world.MemoryEntry{{Turn: 3, Text: "Ada: go west\nThe Great Hall. Tomas is here."}}}}
			w.Characters["tomas"].MentionedTurn = 3
			w.Quests["cellar"].Status = world.QuestCompleted
		}, "talk to Tomas"},
		{"in a party, remembers a talk it witnessed", func(w *world.State) {
			w.Party = []world.PartyMember{ada}
			w.Memory = map[string]*world.Memory{"ada": {Summary: "(T2) Lead: talk to Tomas Tomas: \"Welcome.\"", Through: 2}}
			w.Characters["tomas"].MentionedTurn = 1
			w.Quests["cellar"].Status = world.QuestCompleted
		}, "go east"},
		{"a follower catches up with the leader", func(w *world.State) {
			w.Party = []world.PartyMember{{Character: "lead"}, {Character: "ada"}}
			w.Characters["lead"] = &world.Character{ID: "lead", Kind: world.PC, Name: "Lead", Location: "cellar"}
			w.Characters["tomas"].MentionedTurn = 1
			w.Quests["cellar"].Status = world.QuestCompleted
		}, "go down"},
		{"a follower with the leader keeps watch instead of wandering", func(w *world.State) {
			w.Turn = 5
			w.Party = []world.PartyMember{{Character: "lead"}, {Character: "ada"}}
			w.Characters["lead"] = &world.Character{ID: "lead", Kind: world.PC, Name: "Lead", Location: "hall"}
			w.Characters["tomas"].MentionedTurn = 1
			w.Quests["cellar"].Status = world.QuestCompleted
		}, "keep watch"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := agentWorld()
			tt.edit(w)
			got, err := offlinegm.NewAgent().Decide(context.Background(), w, ada)
			if err != nil || got != tt.want {
				t.Errorf("Decide = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// The agent's words are actions the interpreter reads, never a question
// or "look around".
func TestOfflineAgentWordsAreActions(t *testing.T) {
	w := agentWorld()
	ada := world.PartyMember{Character: "ada"}
	gm := offlinegm.New()
	for turn := range 6 {
		w.Turn = turn
		words, err := offlinegm.NewAgent().Decide(context.Background(), w, ada)
		if err != nil {
			t.Fatal(err)
		}
		in, err := gm.Interpret(context.Background(), w, words)
		if err != nil || len(in.Intents) == 0 || in.Query != "" {
			t.Errorf("turn %d: %q reads as %+v, %v", turn, words, in, err)
		}
		for _, i := range in.Intents {
			if i.Type() == "look" {
				t.Errorf("turn %d: %q is a look", turn, words)
			}
		}
	}
}
