package world

import (
	"encoding/json"
	"strings"
	"testing"
)

// partyState is testState with a party of two: hero (an agent) and ally
// (a human), hero acting.
func partyState(t *testing.T) *State {
	t.Helper()
	s := testState()
	s.Characters["ally"] = &Character{ID: "ally", Kind: PC, Name: "Ally", Location: "inn"}
	err := s.ApplyAll([]Effect{
		PartyMemberAdded{Member: PartyMember{Character: "hero", Controller: Controller{Kind: ControllerAI, Provider: "openai", Model: "gpt-4o"},
			Personality: Personality{Traits: "curious", Backstory: "Raised on the quay."}, Class: "rogue", Colour: "#336699"}},
		PartyMemberAdded{Member: PartyMember{Character: "ally", Controller: Controller{Kind: ControllerHuman, User: "ann"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPartyEffectsRefuseWhatDoesNotFit(t *testing.T) {
	for _, tt := range []struct {
		name string
		e    Effect
		want string
	}{
		{"unknown character", PartyMemberAdded{Member: PartyMember{Character: "ghost", Controller: Controller{Kind: ControllerNone}}}, `no character "ghost"`},
		{"twice", PartyMemberAdded{Member: PartyMember{Character: "ally", Controller: Controller{Kind: ControllerNone}}}, "already in the party"},
		{"bad kind", PartyMemberAdded{Member: PartyMember{Character: "wolf", Controller: Controller{Kind: "robot"}}}, "want ai, human or none"},
		{"human without user", PartyMemberAdded{Member: PartyMember{Character: "wolf", Controller: Controller{Kind: ControllerHuman}}}, "names its user"},
		{"model without provider", ControllerChanged{Character: "hero", To: Controller{Kind: ControllerAI, Model: "x"}}, "both a provider and a model"},
		{"controller of a stranger", ControllerChanged{Character: "wolf", To: Controller{Kind: ControllerNone}}, "not in the party"},
		{"stranger acts", ActorChanged{From: "hero", To: "wolf"}, "not in the party"},
		{"actor leaves", PartyMemberRemoved{Character: "hero"}, "is acting"},
		{"stranger leaves", PartyMemberRemoved{Character: "wolf"}, "not in the party"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := partyState(t).Apply(tt.e)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Apply(%s) = %v, want error containing %q", tt.e.Kind(), err, tt.want)
			}
		})
	}
}

func TestPartyIsFull(t *testing.T) {
	s := testState()
	for i := range MaxParty + 1 {
		id := string(rune('a' + i))
		s.Characters[id] = &Character{ID: id, Kind: PC, Name: id}
		err := s.Apply(PartyMemberAdded{Member: PartyMember{Character: id, Controller: Controller{Kind: ControllerAI}}})
		if (err != nil) != (i == MaxParty) {
			t.Errorf("member %d: %v", i+1, err)
		}
	}
}

// A new model for a member changes its controller and nothing else, and
// the party survives the state's JSON (snapshots, restore, fork).
func TestModelChangeKeepsTheMember(t *testing.T) {
	s := partyState(t)
	before := *s.Member("hero")
	to := Controller{Kind: ControllerAI, Provider: "ollama", Model: "llama3"}
	if err := s.Apply(ControllerChanged{Character: "hero", From: before.Controller, To: to}); err != nil {
		t.Fatal(err)
	}
	after := *s.Member("hero")
	if after.Controller != to || after.Personality != before.Personality || after.Class != before.Class || after.Colour != before.Colour {
		t.Errorf("after the model change %+v, before %+v", after, before)
	}
	if err := s.Apply(ActorChanged{From: "hero", To: "ally"}); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(&back)
	if string(b) != string(b2) || back.Player != "ally" || len(back.Party) != 2 || back.Member("hero").Controller.Label() != "ollama/llama3" {
		t.Errorf("party after a JSON round trip: %+v acting %q", back.Party, back.Player)
	}
}

func TestMembersOfAGameOfOne(t *testing.T) {
	s := testState()
	ms := s.Members()
	if len(ms) != 1 || ms[0].Character != "hero" || ms[0].Controller.Kind != ControllerHuman || !s.InParty("hero") || s.InParty("wolf") {
		t.Errorf("a game of one: %+v", ms)
	}
	if b, _ := json.Marshal(s); strings.Contains(string(b), `"party"`) {
		t.Errorf("a game of one stores no party, so its state is as before: %s", b)
	}
	p := partyState(t)
	if ms := p.Members(); len(ms) != 2 || ms[1].Character != "ally" || !p.InParty("ally") || p.InParty("wolf") {
		t.Errorf("a party of two: %+v", ms)
	}
}

func TestControllerLabel(t *testing.T) {
	for _, tt := range []struct {
		c    Controller
		want string
	}{
		{Controller{Kind: ControllerAI}, "offline"},
		{Controller{Kind: ControllerAI, Provider: "anthropic", Model: "claude"}, "anthropic/claude"},
		{Controller{Kind: ControllerHuman, User: "ann"}, "ann"},
		{Controller{Kind: ControllerNone}, "none"},
	} {
		if got := tt.c.Label(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.c, got, tt.want)
		}
	}
}
