package game_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/game"
)

type statPeek struct{ player, gm []contextpack.Section }

func (p *statPeek) Name() string { return "stat-peek" }
func (p *statPeek) Play(ctx context.Context, t *game.Turn) error {
	p.player, p.gm = t.StatSections(ctx, access.Player), t.StatSections(ctx, access.GM)
	return t.Fallback(ctx)
}

func TestStatPromptsForTheNarrator(t *testing.T) {
	ctx := context.Background()
	c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	s, err := game.New(ctx, openDB(t, t.TempDir()), c, 1, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &statPeek{}
	s.UsePipeline(p)
	act(t, s, "look around")
	text := func(ss []contextpack.Section) string {
		var b strings.Builder
		for _, s := range ss {
			b.WriteString(s.Text)
		}
		return b.String()
	}
	player, gm := text(p.player), text(p.gm)
	if !strings.Contains(player, "Resolve is the character's nerve") || !strings.Contains(player, "currently 3") {
		t.Errorf("the player's stat prompts:\n%s", player)
	}
	if strings.Contains(player, "suspicion") {
		t.Errorf("a hidden stat reached the player's view:\n%s", player)
	}
	if !strings.Contains(gm, "suspicion") || !strings.Contains(gm, "never reveal") {
		t.Errorf("the GM's view lacks the hidden stat:\n%s", gm)
	}
}
