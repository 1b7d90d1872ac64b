package campaign

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/world"
)

// partyCampaign is minimal with a party of three instead of one player.
func partyCampaign(yml string) map[string]string {
	files := minimal()
	files["campaign.yml"] = "title: Mini\nversion: 1.0.0\nstart:\n  location: hall\n" + yml
	files["character_bo.md"] = "---\nentity_type: player_character\nclass: wizard\nhit_points: 6\nlocation: yard\npersonality_traits: [Reads everything., Talks too much.]\nflaws: [Greedy.]\n---\nA hedge wizard.\n"
	files["character_cy.md"] = "---\nentity_type: player_character\nclass: cleric\nhit_points: 8\n---\nA cleric.\n"
	return files
}

func TestPartyFromCampaignYML(t *testing.T) {
	c, err := Load(context.Background(), writeCampaign(t, partyCampaign(`party:
  - hero
  - {id: bo, provider: ollama, model: qwen3, colour: "#112233", backstory: Burned out of the academy.}
  - {id: cy, controller: human, user: ann}
player: bo
`)))
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.NewState()
	if err != nil {
		t.Fatal(err)
	}
	if w.Player != "bo" || len(w.Party) != 3 {
		t.Fatalf("acting %q, party %+v", w.Player, w.Party)
	}
	hero, bo, cy := w.Party[0], w.Party[1], w.Party[2]
	if hero.Character != "hero" || hero.Controller != (world.Controller{Kind: world.ControllerAI}) || hero.Colour == "" || hero.Personality.Backstory != "Our hero." {
		t.Errorf("hero %+v", hero)
	}
	if bo.Controller.Label() != "ollama/qwen3" || bo.Colour != "#112233" || bo.Class != "wizard" ||
		bo.Personality.Traits != "Reads everything. Talks too much." || bo.Personality.Flaws != "Greedy." || bo.Personality.Backstory != "Burned out of the academy." {
		t.Errorf("bo %+v", bo)
	}
	if cy.Controller != (world.Controller{Kind: world.ControllerHuman, User: "ann"}) || cy.Colour == bo.Colour {
		t.Errorf("cy %+v", cy)
	}
	for _, m := range w.Party {
		if ch := w.Characters[m.Character]; ch.Kind != world.PC || ch.Location != "hall" {
			t.Errorf("%s: kind %s at %q; every member starts at the start", m.Character, ch.Kind, ch.Location)
		}
	}
}

func TestPartyRefusesWhatCannotPlay(t *testing.T) {
	for _, tt := range []struct{ yml, want string }{
		{"party: [hero, ghost]\n", `party member "ghost" does not exist`},
		{"party: [hero, hero]\n", `lists "hero" twice`},
		{"party: [hero, bo, cy, ann, hero2, hero3, hero4]\n", "a party has 1 to 6"},
		{"party: [hero, bo]\nplayer: cy\n", `player "cy" is not in the party`},
		{"party: [hero, {id: bo, controller: human}]\n", "names its user"},
		{"party: [hero, {id: bo, controller: robot}]\n", "want ai, human or none"},
	} {
		_, err := Load(context.Background(), writeCampaign(t, partyCampaign(tt.yml)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.yml, err, tt.want)
		}
	}
}

// A campaign with player: keeps a game of one: no party in its state.
func TestPlayerStaysAGameOfOne(t *testing.T) {
	c, err := Load(context.Background(), writeCampaign(t, minimal()))
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.NewState()
	if err != nil {
		t.Fatal(err)
	}
	if w.Player != "hero" || len(w.Party) != 0 || len(w.Members()) != 1 {
		t.Errorf("acting %q, party %+v", w.Player, w.Party)
	}
}

func TestNewStateWithPartyReplacesTheCampaignsOwn(t *testing.T) {
	files := partyCampaign("party: [hero, bo, cy]\n")
	files["player_character_constraints.yml"] = "starting_items: [rope]\n"
	c, err := Load(context.Background(), writeCampaign(t, files))
	if err != nil {
		t.Fatal(err)
	}
	sheet := func(id, name, class string) *world.Character {
		return &world.Character{ID: id, Name: name, Kind: world.PC, Location: "yard",
			Sheet: world.Sheet{Class: class, HP: 9, MaxHP: 9, Backstory: name + " left home.", PersonalityTraits: []string{"Calm."}}}
	}
	w, err := c.NewStateWithParty([]Recruit{
		{Sheet: sheet("ch_1", "Ilse", "fighter"), Controller: world.Controller{Kind: world.ControllerAI}},
		{Sheet: sheet("ch_2", "Odo", "wizard"), Controller: world.Controller{Kind: world.ControllerHuman, User: "ann"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Party) != 2 || w.Player != "ch_1" || w.Party[1].Controller.User != "ann" {
		t.Fatalf("acting %q, party %+v", w.Player, w.Party)
	}
	for _, id := range []string{"hero", "bo", "cy"} {
		if w.Characters[id] != nil {
			t.Errorf("the campaign's own %s is still in the world", id)
		}
	}
	if w.Characters["ann"] == nil {
		t.Error("the campaign's NPC left with its player characters")
	}
	for _, m := range w.Party {
		ch := w.Characters[m.Character]
		if ch.Kind != world.PC || ch.Location != "hall" || ch.Inventory["rope"] != 1 {
			t.Errorf("%s: kind %s at %q with %v; recruits start at the start with the starting items", m.Character, ch.Kind, ch.Location, ch.Inventory)
		}
		if m.Colour == "" || m.Class != ch.Class || m.Personality.Backstory != ch.Name+" left home." || m.Personality.Traits != "Calm." {
			t.Errorf("member %+v", m)
		}
	}
	if w.Scene.Location != "hall" || !w.Locations["hall"].Visited {
		t.Errorf("scene %+v", w.Scene)
	}
}

func TestNewStateWithPartyRefusesWhatCannotPlay(t *testing.T) {
	c, err := Load(context.Background(), writeCampaign(t, minimal()))
	if err != nil {
		t.Fatal(err)
	}
	ai := world.Controller{Kind: world.ControllerAI}
	one := func(id string, ctl world.Controller) Recruit {
		return Recruit{Sheet: &world.Character{ID: id, Name: id}, Controller: ctl}
	}
	seven := make([]Recruit, 7)
	for i := range seven {
		seven[i] = one(string(rune('a'+i)), ai)
	}
	for _, tt := range []struct {
		name  string
		party []Recruit
		want  string
	}{
		{"none", nil, "a party has 1 to 6"},
		{"seven", seven, "a party has 1 to 6"},
		{"twice", []Recruit{one("x", ai), one("x", ai)}, `"x" is in the party twice`},
		{"an NPC's id", []Recruit{one("ann", ai)}, `"ann" is in the party twice, or is already one of the campaign's`},
		{"no sheet", []Recruit{{Controller: ai}}, "has no character sheet"},
		{"human without user", []Recruit{one("x", world.Controller{Kind: world.ControllerHuman})}, "a human controller names its user"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.NewStateWithParty(tt.party)
			if err == nil || !strings.Contains(err.Error(), tt.want) || hearth.ErrorCode(err) != hearth.Invalid {
				t.Errorf("got %v (%s), want Invalid %q", err, hearth.ErrorCode(err), tt.want)
			}
		})
	}
}
