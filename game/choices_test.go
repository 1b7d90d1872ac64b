package game_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/game"
)

type fixedChoices struct {
	opts  []string
	err   error
	scene map[string]any
}

func (f *fixedChoices) Choices(_ context.Context, scene map[string]any) ([]string, error) {
	f.scene = scene
	return f.opts, f.err
}

func TestChoiceBasedPlay(t *testing.T) {
	ctx := context.Background()
	s, err := game.New(ctx, openDB(t, t.TempDir()), loadTiny(t), 2, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := &fixedChoices{opts: []string{"go north", "search", "wait"}}
	s.UseChoices(c)
	r := act(t, s, "look")
	if r.Awaiting.Kind != game.Choice || len(r.Awaiting.Options) != 3 {
		t.Fatalf("awaiting: %+v", r.Awaiting)
	}
	loc, _ := c.scene["location"].(map[string]any)
	if loc["id"] != "gate" {
		t.Errorf("the choice maker was not told where the player is: %v", c.scene)
	}
	// A number picks a choice.
	act(t, s, "1")
	if s.World().Scene.Location != "hall" {
		t.Errorf("choice 1 (go north) did not move the player: %+v", s.World().Scene)
	}

	// When the choices cannot be had, the player still gets a way on.
	c.opts, c.err = nil, errors.New("skill crashed")
	r = act(t, s, "look")
	// Choices of the character's own story (ContextChoices) may come first.
	if !strings.HasSuffix(strings.Join(r.Awaiting.Options, "|"), strings.Join(game.FallbackChoices, "|")) {
		t.Errorf("fallback choices: %+v", r.Awaiting)
	}
	present, _ := c.scene["present"].([]map[string]any)
	if len(present) != 1 || present[0]["id"] != "tomas" {
		t.Errorf("present in the hall: %v", c.scene["present"])
	}
}
