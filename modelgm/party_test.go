package modelgm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/world"
)

// partyWorld: Ada and Bo on the quay, Cy in the tavern; a whisper to each
// of Ada and Bo, an event in the tavern, and a memory for each.
func partyWorld() *world.State {
	w := world.New(world.SystemD20)
	w.Turn = 6
	w.Player = "ada"
	w.Locations["quay"] = &world.Location{ID: "quay", Name: "Quay", Description: "Fog.", Visited: true,
		Exits: []world.Exit{{To: "tavern", Direction: "north"}, {To: "cave", Direction: "down", Hidden: true}}}
	w.Locations["tavern"] = &world.Location{ID: "tavern", Name: "Tavern", Visited: true}
	w.Locations["cave"] = &world.Location{ID: "cave", Name: "Cave"}
	for _, c := range []struct{ id, name, at string }{{"ada", "Ada", "quay"}, {"bo", "Bo", "quay"}, {"cy", "Cy", "tavern"}} {
		w.Characters[c.id] = &world.Character{ID: c.id, Kind: world.PC, Name: c.name, Location: c.at, Sheet: world.Sheet{HP: 9, MaxHP: 10}}
		w.Party = append(w.Party, world.PartyMember{Character: c.id, Controller: world.Controller{Kind: world.ControllerAI, Provider: "openai", Model: "m-" + c.id}})
	}
	w.Party[0].Personality = world.Personality{Traits: "Counts every coin.", Flaws: "Trusts no priest."}
	w.Characters["nell"] = &world.Character{ID: "nell", Kind: world.NPC, Name: "Nell", Location: "quay"}
	w.Whispers["w1"] = &world.Whisper{ID: "w1", From: "gm", To: "ada", Text: "ADA-SECRET", Turn: 2}
	w.Whispers["w2"] = &world.Whisper{ID: "w2", From: "gm", To: "bo", Text: "BO-SECRET", Turn: 3}
	w.Events["e1"] = &world.Event{ID: "e1", Name: "Brawl", Description: "TAVERN-BRAWL", Location: "tavern"}
	w.Memory = map[string]*world.Memory{
		"ada": {Summary: "(T1) ADA-MEMORY-OLD", Through: 1, Recent: []world.MemoryEntry{{Turn: 4, Text: "Bo: talk to Nell\nADA-MEMORY-NEW"}}},
		"cy":  {Recent: []world.MemoryEntry{{Turn: 5, Text: "CY-MEMORY"}}},
	}
	return w
}

// A party member's model is prompted with its character, its scene, its
// own whispers marked secret and its own memory, from its own view: never
// another member's whisper or memory, an event it did not see, or a
// hidden way.
func TestPartyAgentPromptsWithItsOwnView(t *testing.T) {
	model := cassette.Script(cassette.Text("Action: \"ask Nell about the fog\"\nI think that is wise."))
	a := modelgm.NewPartyAgent(modelgm.Role{Provider: model, Model: "m-ada"})
	w := partyWorld()
	words, err := a.Decide(context.Background(), game.AgentView(w, "ada"), w.Party[0])
	if err != nil {
		t.Fatal(err)
	}
	if words != "ask Nell about the fog" {
		t.Errorf("action %q", words)
	}
	if a.Name() != "script/m-ada" {
		t.Errorf("name %q", a.Name())
	}
	reqs := model.Requests()
	if len(reqs) != 1 || reqs[0].Model != "m-ada" {
		t.Fatalf("requests %+v", reqs)
	}
	var prompt strings.Builder
	for _, m := range reqs[0].Messages {
		prompt.WriteString(m.Content + "\n")
	}
	p := prompt.String()
	for _, want := range []string{"You are Ada", "Counts every coin.", "Trusts no priest.", "[SECRET - DO NOT REVEAL DIRECTLY] ADA-SECRET",
		"ADA-MEMORY-OLD", "ADA-MEMORY-NEW", "Nell", "Bo (your companion)", "north to Tavern"} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, p)
		}
	}
	for _, not := range []string{"BO-SECRET", "TAVERN-BRAWL", "CY-MEMORY", "Cave", "Cy"} {
		if strings.Contains(p, not) {
			t.Errorf("the prompt holds %q:\n%s", not, p)
		}
	}
}

// A reply that says nothing is an error, so the caller falls back.
func TestPartyAgentRejectsAnEmptyReply(t *testing.T) {
	a := modelgm.NewPartyAgent(modelgm.Role{Provider: cassette.Script(cassette.Text("  \n ")), Model: "m"})
	w := partyWorld()
	if _, err := a.Decide(context.Background(), game.AgentView(w, "ada"), w.Party[0]); err == nil {
		t.Error("an empty reply was taken as an action")
	}
}

// The summariser model compresses a member's memory from its entries.
func TestMemorySummariser(t *testing.T) {
	model := cassette.Script(cassette.Text("You met Nell."))
	got, err := modelgm.MemorySummariser{Role: modelgm.Role{Provider: model, Model: "s"}}.SummariseMemory(context.Background(), "ada", "OLD",
		[]world.MemoryEntry{{Turn: 3, Text: "talk to Nell"}, {Turn: 4, Text: "HUSH", Secret: true}})
	if err != nil || got != "You met Nell." {
		t.Fatalf("%q, %v", got, err)
	}
	in := model.Requests()[0].Messages[1].Content
	for _, want := range []string{"OLD", "(turn 3) talk to Nell", "[SECRET] HUSH"} {
		if !strings.Contains(in, want) {
			t.Errorf("the summariser was not given %q: %s", want, in)
		}
	}
}
