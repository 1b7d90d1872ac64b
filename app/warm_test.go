package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/game"
)

// A game's locations have their scene lore asked for in the background
// once the index is built, so first entries into scenes read kept results.
func TestSceneLoreIsWarmedAfterTheIndexIsBuilt(t *testing.T) {
	ctx := context.Background()
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	warmed := make(chan int, 1)
	a, err := app.Open(ctx, app.Options{
		Config:            cfg,
		IndexInBackground: true,
		Hooks:             app.Hooks{SceneLoreWarmed: func(n int) { warmed <- n }},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c, err := app.LoadCampaign(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.NewGame(ctx, c, 1, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := len(s.World().Locations)
	if want < 2 {
		t.Fatalf("the bundled campaign has %d locations; the test needs several", want)
	}
	select {
	case n := <-warmed:
		if n != want {
			t.Fatalf("warmed %d locations, want the campaign's %d", n, want)
		}
	case <-time.After(10 * time.Minute):
		t.Fatal("the scene lore was not warmed within 10 minutes of the game starting")
	}
}
