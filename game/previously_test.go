package game_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
)

// What the player did on one game night is told back at the start of the
// next, offline, from what happened (the recap the command line prints
// as "Previously"): the game is closed, its database reopened and the game
// resumed, as a second evening would.
func TestNextNightRecallsTheLast(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, err := campaign.Load(ctx, "../campaigns/saltmere")
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t, dir)
	s, err := game.New(ctx, db, c, 11, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginEpisode(ctx); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"take the rope", "go north", "ask maren about work"} {
		act(t, s, in)
	}
	if _, err := s.EndEpisode(ctx); err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	again, err := game.Open(ctx, openDB(t, dir), id, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := again.BeginEpisode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Coil of Rope", "The Drowned Lantern", "Relight the Lantern"} {
		if !strings.Contains(ep.Recap, want) {
			t.Errorf("the second night's recap lacks %q: %q", want, ep.Recap)
		}
	}
	t.Logf("previously: %s", ep.Recap)
	if ep.Number != 2 || ep.FirstTurn != 4 {
		t.Errorf("second episode: %+v", ep)
	}
}
