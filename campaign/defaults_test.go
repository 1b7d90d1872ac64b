package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/world"
)

// ferry is a campaign written only from seed 001 §6.2: campaign.yml, one
// character and one plot beat.
const ferry = "../campaigns/the_ferry_at_greywater"

// TestMinimalCampaignPlays loads the seed-format campaign: what it lacks
// (places, a player character, an NPC's location) is assumed, with
// warnings, and its world can be built.
func TestMinimalCampaignPlays(t *testing.T) {
	ctx := context.Background()
	p, err := LoadPack(ctx, ferry)
	if err != nil {
		t.Fatal(err)
	}
	if errs := p.Problems; len(p.Content.Warnings) == 0 {
		t.Fatalf("no warnings; problems: %v", errs)
	}
	c, err := Load(ctx, ferry)
	if err != nil {
		t.Fatalf("a minimal campaign is refused: %v", err)
	}
	for _, want := range []string{"no locations", "no player character", "Odile has no location"} {
		if !strings.Contains(strings.Join(c.Warnings, "\n"), want) {
			t.Errorf("no warning %q in %q", want, c.Warnings)
		}
	}
	w, err := c.NewState()
	if err != nil {
		t.Fatal(err)
	}
	pc := w.PC()
	if pc == nil || pc.ID != DefaultPlayer || pc.MaxHP == 0 {
		t.Fatalf("default player character: %+v", pc)
	}
	if len(w.Locations) != 1 || w.Here() == nil || w.Here().Name != "The Ferry at Greywater" {
		t.Errorf("single scene: %d locations, here %+v", len(w.Locations), w.Here())
	}
	if odile := w.Characters["odile"]; odile == nil || odile.Location != pc.Location || odile.Kind == world.PC {
		t.Errorf("odile is not in the opening scene: %+v", odile)
	}
	if len(p.Beats) != 1 || len(p.Beats[0].Outcomes) == 0 {
		t.Errorf("beats: %+v", p.Beats)
	}
}

// TestDefaultsDoNotOverride checks that what a campaign states is kept: a
// player character it names plays, an NPC with a location stays there, and
// a campaign with places and no start is still an error.
func TestDefaultsDoNotOverride(t *testing.T) {
	ctx := context.Background()
	write := func(t *testing.T, files map[string]string) string {
		dir := t.TempDir()
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	meta := "title: T\nversion: 1.0.0\n"
	t.Run("own player character", func(t *testing.T) {
		c, err := Load(ctx, write(t, map[string]string{"campaign.yml": meta,
			"player_character_ana.md": "---\nentity_type: player_character\nhit_points: 8\n---\nAna.\n"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.Characters[DefaultPlayer] != nil || c.Meta.Player == DefaultPlayer {
			t.Errorf("a default player was added next to the campaign's own")
		}
		for _, w := range c.Warnings {
			if strings.Contains(w, "no player character") {
				t.Errorf("warning: %s", w)
			}
		}
	})
	t.Run("places but no start", func(t *testing.T) {
		_, err := Load(ctx, write(t, map[string]string{"campaign.yml": meta,
			"location_a.md": "---\nentity_type: location\n---\nA room.\n"}))
		if err == nil || !strings.Contains(err.Error(), "start.location is missing") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("npc keeps its place", func(t *testing.T) {
		c, err := Load(ctx, write(t, map[string]string{"campaign.yml": meta + "start: {location: a}\n",
			"location_a.md": "---\nentity_type: location\n---\nA room.\n",
			"location_b.md": "---\nentity_type: location\n---\nB room.\n",
			"npc_bo.md":     "---\nentity_type: npc\nlocation: b\n---\nBo.\n",
			"npc_cy.md":     "---\nentity_type: npc\n---\nCy.\n"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.Characters["bo"].Location != "b" || c.Characters["cy"].Location != "a" {
			t.Errorf("bo at %q, cy at %q", c.Characters["bo"].Location, c.Characters["cy"].Location)
		}
	})
}
