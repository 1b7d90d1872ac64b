package game_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/world"
)

func loadParty(t testing.TB) *campaign.Campaign {
	t.Helper()
	c, err := campaign.Load(context.Background(), "testdata/party")
	if err != nil {
		t.Fatalf("load party campaign: %v", err)
	}
	return c
}

// Party members act in turn; each turn records its agent and controller,
// the actor change is an effect, and replay, reopen, restore and fork
// bring the party back exactly, a model change included.
func TestPartyTurnsAreAttributedAndReplay(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	s, err := game.New(ctx, db, loadParty(t), 11, game.Options{SnapshotEvery: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.World().Player; got != "wren" {
		t.Fatalf("first actor %q, want the first member", got)
	}
	plays := []struct {
		play      game.Play
		agent, by string
	}{
		{game.Play{Input: "go north"}, "wren", "offline"},
		{game.Play{Input: "look", Agent: "moss"}, "moss", "ollama/qwen3"},
		{game.Play{Input: "search", Agent: "ivy", Controller: "ann"}, "ivy", "ann"},
		{game.Play{Input: "go east", Agent: "brand", Controller: "autopilot"}, "brand", "autopilot"},
	}
	for i, p := range plays {
		r, err := s.PlayTurn(ctx, p.play, nil)
		if err != nil || !r.Committed {
			t.Fatalf("play %d %+v: %v %+v", i, p.play, err, r)
		}
		if s.World().Player != p.agent {
			t.Errorf("play %d: acting %q, want %q", i, s.World().Player, p.agent)
		}
	}
	if _, err := s.PlayTurn(ctx, game.Play{Input: "look", Agent: "tomas"}, nil); hearth.ErrorCode(err) != hearth.Invalid {
		t.Errorf("an NPC acting: %v, want Invalid", err)
	}
	r, err := s.ChangeController(ctx, "moss", world.Controller{Kind: world.ControllerAI, Provider: "anthropic", Model: "claude"}, "gail")
	if err != nil || !r.Committed || !strings.Contains(r.Narrative, "Moss is now played by anthropic/claude") {
		t.Fatalf("change model: %v %+v", err, r)
	}
	if _, err := s.ChangeController(ctx, "tomas", world.Controller{Kind: world.ControllerNone}, "gail"); !errors.Is(err, game.ErrInvalid) {
		t.Errorf("controller of an NPC: %v", err)
	}
	m := s.World().Member("moss")
	if m.Controller.Label() != "anthropic/claude" || m.Personality.Traits != "Reads everything." || m.Class != "wizard" {
		t.Errorf("moss after the model change: %+v", m)
	}

	recs, err := s.Turns(ctx, 1, 99)
	if err != nil || len(recs) != 5 {
		t.Fatalf("turns: %d %v", len(recs), err)
	}
	for i, p := range plays {
		if recs[i].Agent != p.agent || recs[i].Controller != p.by {
			t.Errorf("turn %d by %q (%q), want %q (%q)", i+1, recs[i].Agent, recs[i].Controller, p.agent, p.by)
		}
	}
	if recs[4].Agent != game.DM || recs[4].Controller != "gail" {
		t.Errorf("the model change recorded as %q (%q)", recs[4].Agent, recs[4].Controller)
	}
	if !strings.Contains(string(recs[1].Effects), `"type":"actor_changed","from":"wren","to":"moss"`) {
		t.Errorf("turn 2 effects lack the actor change: %s", recs[1].Effects)
	}
	if err := s.Verify(ctx); err != nil {
		t.Errorf("replay: %v", err)
	}
	var md bytes.Buffer
	if err := s.Export(ctx, &md, "markdown"); err != nil || !strings.Contains(md.String(), "<sub>played by ivy (ann)</sub>") {
		t.Errorf("markdown export lacks attribution: %v\n%s", err, md.String())
	}
	var js bytes.Buffer
	if err := s.Export(ctx, &js, "json"); err != nil || !strings.Contains(js.String(), `"agent": "brand"`) || !strings.Contains(js.String(), `"controller": "autopilot"`) {
		t.Errorf("json export lacks attribution: %v", err)
	}

	// Reopen, restore to before the model change and fork: the party is as
	// it was at each turn.
	want := stateJSON(t, s)
	s2, err := game.Open(ctx, db, s.ID(), game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := stateJSON(t, s2); got != want {
		t.Error("reopened state differs")
	}
	if err := s2.Restore(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if got := s2.World().Member("moss").Controller.Label(); got != "ollama/qwen3" || s2.World().Player != "brand" {
		t.Errorf("at turn 4: moss played by %q, %q acting", got, s2.World().Player)
	}
	if _, err := s2.ForkDescribed(ctx, "alt", "moss keeps qwen"); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.PlayTurn(ctx, game.Play{Input: "look", Agent: "moss"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s2.Verify(ctx); err != nil {
		t.Errorf("replay of the fork: %v", err)
	}
	b, _ := json.Marshal(s2.World().Party)
	if !strings.Contains(string(b), "qwen3") || strings.Contains(string(b), "claude") {
		t.Errorf("party on the fork: %s", b)
	}
}

// A question asked as another member commits nothing and changes nobody.
func TestUncommittedPlayKeepsTheActor(t *testing.T) {
	ctx := context.Background()
	s, err := game.New(ctx, openDB(t, t.TempDir()), loadParty(t), 3, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.PlayTurn(ctx, game.Play{Input: "", Agent: "ivy"}, nil)
	if err != nil || r.Committed || s.World().Player != "wren" {
		t.Errorf("empty input as ivy: %v %+v, acting %q", err, r, s.World().Player)
	}
}

// A game whose party comes from outside the campaign (a character
// library) starts with it at the campaign's start, and reopening,
// restoring to turn 0 and replay keep it.
func TestNewGameWithRecruitedParty(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	party := []campaign.Recruit{
		{Sheet: &world.Character{ID: "ch_a", Name: "Ilse", Sheet: world.Sheet{Class: "fighter", HP: 12, MaxHP: 12}},
			Controller: world.Controller{Kind: world.ControllerAI}},
		{Sheet: &world.Character{ID: "ch_b", Name: "Odo", Sheet: world.Sheet{Class: "wizard", HP: 7, MaxHP: 7}},
			Controller: world.Controller{Kind: world.ControllerHuman, User: "ann"}},
	}
	s, err := game.New(ctx, db, loadParty(t), 5, game.Options{Party: party})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(w *world.State) []string {
		var out []string
		for _, m := range w.Members() {
			out = append(out, m.Character+"@"+w.Characters[m.Character].Location+":"+m.Controller.Label())
		}
		return out
	}
	want := "[ch_a@gate:offline ch_b@gate:ann]"
	if got := fmt.Sprint(ids(s.World())); got != want {
		t.Fatalf("party %s, want %s", got, want)
	}
	if s.World().Characters["wren"] != nil {
		t.Error("the campaign's own party is still in the world")
	}
	if _, err := s.PlayTurn(ctx, game.Play{Input: "go north", Agent: "ch_a"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ChangeController(ctx, "ch_a", world.Controller{Kind: world.ControllerAI, Provider: "openai", Model: "fake"}, "gail"); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(ctx); err != nil {
		t.Errorf("replay: %v", err)
	}
	s2, err := game.Open(ctx, db, s.ID(), game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s2.World().Member("ch_a").Controller.Label(); got != "openai/fake" {
		t.Errorf("reopened: ch_a played by %q", got)
	}
	if err := s2.Restore(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ids(s2.World())); got != want {
		t.Errorf("restored to turn 0: party %s, want %s", got, want)
	}
}
