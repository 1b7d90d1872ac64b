package charcard_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/charcard"
	"github.com/hearth-rpg/hearth/lorebook"
	"github.com/hearth-rpg/hearth/world"
)

// newCampaign writes a small playable campaign; meta is campaign.yml's
// player or party lines.
func newCampaign(t *testing.T, meta string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"campaign.yml":     "title: Slipway\nversion: 1.0.0\n# the hero acts first\n" + meta + "start:\n  location: dock\n",
		"player_hero.md":   "---\nname: Hero\nhit_points: 12\n---\nA hero.\n",
		"location_dock.md": "---\nname: The Dock\n---\nWet planks.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func sample(t *testing.T) *charcard.Card {
	t.Helper()
	b, err := os.ReadFile("testdata/wren_card_v3.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := charcard.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestImportNPC(t *testing.T) {
	ctx := context.Background()
	dir := newCampaign(t, "player: hero\n")
	// Through a PNG, as SillyTavern exports it.
	raw, err := os.ReadFile("testdata/wren_card_v3.json")
	if err != nil {
		t.Fatal(err)
	}
	card, err := charcard.Parse(pngWith(t, "ccv3", b64(string(raw))))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := charcard.Import(ctx, card, charcard.Options{Dir: dir, Location: "dock"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ID != "wren_halloway" || strings.Join(rep.Files, " ") != "npc_wren_halloway.md lorebooks/wren_halloway.json" {
		t.Errorf("report: %+v", rep)
	}
	if s := strings.Join(rep.Skipped, "\n"); !strings.Contains(s, "system_prompt") || !strings.Contains(s, "alternate_greetings") || !strings.Contains(s, "assets") {
		t.Errorf("skipped fields not reported: %q", rep.Skipped)
	}

	c, err := campaign.Load(ctx, dir)
	if err != nil {
		t.Fatalf("the campaign no longer loads: %v", err)
	}
	npc := c.Characters["wren_halloway"]
	if npc == nil {
		t.Fatalf("no NPC; characters: %v", world.SortedKeys(c.Characters))
	}
	if npc.Kind != world.NPC || npc.Name != "Wren Halloway" || npc.Location != "dock" ||
		npc.Greeting != `"Mind the nets, traveller. They bite back when they're wet."` ||
		!strings.Contains(npc.Description, "net-mender") || !strings.Contains(npc.Personality, "riddles") ||
		len(npc.Aliases) != 1 || npc.Aliases[0] != "Old Wren" {
		t.Errorf("NPC: %+v", npc)
	}

	p, err := campaign.LoadPack(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Lorebooks) != 1 {
		t.Fatalf("lorebooks: %+v", p.Lorebooks)
	}
	book := p.Lorebooks[0].Book
	act := book.Activate(lorebook.Input{Messages: []string{"Player: what happened at the Teeth?"}}, nil)
	if len(act.Included) != 1 || !strings.Contains(act.Included[0].Content, "Wren Halloway lost her brother") {
		t.Errorf("the card's lore does not activate with {{char}} replaced: %+v", act)
	}
	if act := book.Activate(lorebook.Input{Messages: []string{"tie a knot"}}, nil); len(act.Included) != 0 {
		t.Errorf("a disabled entry activated: %+v", act.Included)
	}

	// Again: the files are there.
	_, err = charcard.Import(ctx, card, charcard.Options{Dir: dir, Location: "dock"})
	if hearth.ErrorCode(err) != hearth.Conflict {
		t.Errorf("second import: %v, want a conflict", err)
	}
	if _, err := charcard.Import(ctx, card, charcard.Options{Dir: dir, Location: "dock", Force: true}); err != nil {
		t.Errorf("forced import: %v", err)
	}
}

func TestImportPC(t *testing.T) {
	tests := []struct {
		name, meta string
		party      []string
		player     string
	}{
		{name: "player becomes a party", meta: "player: hero\n", party: []string{"hero", "wren_halloway"}, player: "hero"},
		{name: "party grows", meta: "party:\n  - id: hero\n    controller: ai\n\n# where it starts\n", party: []string{"hero", "wren_halloway"}},
		{name: "flow party grows", meta: "party: [hero]   # one so far\n", party: []string{"hero", "wren_halloway"}},
		{name: "no player named", meta: "", party: nil, player: "wren_halloway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dir := newCampaign(t, tt.meta)
			rep, err := charcard.Import(ctx, sample(t), charcard.Options{Dir: dir, As: charcard.AsPC})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Party {
				t.Errorf("not added to the party: %+v", rep)
			}
			c, err := campaign.Load(ctx, dir)
			if err != nil {
				t.Fatalf("the campaign no longer loads: %v", err)
			}
			var ids []string
			for _, p := range c.Meta.Party {
				ids = append(ids, p.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.party, ",") || c.Meta.Player != tt.player {
				t.Errorf("party %v player %q, want %v %q", ids, c.Meta.Player, tt.party, tt.player)
			}
			pc := c.Characters["wren_halloway"]
			if pc == nil || pc.Kind != world.PC || pc.MaxHP != 10 || pc.Level != 1 {
				t.Errorf("PC: %+v", pc)
			}
			meta, _ := os.ReadFile(filepath.Join(dir, "campaign.yml"))
			for _, c := range []string{"# the hero acts first", "# where it starts", "# one so far"} {
				if strings.Contains("# the hero acts first"+tt.meta, c) && !strings.Contains(string(meta), c) {
					t.Errorf("campaign.yml lost %q:\n%s", c, meta)
				}
			}
		})
	}
}

func TestImportRefuses(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		dir  func(t *testing.T) string
		o    charcard.Options
		code hearth.Code
	}{
		{name: "not a campaign", dir: func(t *testing.T) string { return t.TempDir() }, code: hearth.NotFound},
		{name: "bad role", dir: func(t *testing.T) string { return newCampaign(t, "player: hero\n") }, o: charcard.Options{As: "villain"}, code: hearth.Invalid},
		{name: "npc without location", dir: func(t *testing.T) string { return newCampaign(t, "player: hero\n") }, code: hearth.Invalid},
		{name: "npc at unknown location", dir: func(t *testing.T) string { return newCampaign(t, "player: hero\n") }, o: charcard.Options{Location: "moon"}, code: hearth.Invalid},
		{name: "bad id", dir: func(t *testing.T) string { return newCampaign(t, "player: hero\n") }, o: charcard.Options{ID: "Wren!", Location: "dock"}, code: hearth.Invalid},
		{name: "already in the party", dir: func(t *testing.T) string { return newCampaign(t, "party: [hero, wren]\n") }, o: charcard.Options{As: charcard.AsPC, ID: "wren"}, code: hearth.Conflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.dir(t)
			tt.o.Dir = dir
			_, err := charcard.Import(ctx, sample(t), tt.o)
			if hearth.ErrorCode(err) != tt.code {
				t.Fatalf("error %v (%s), want %s", err, hearth.ErrorCode(err), tt.code)
			}
			if _, err := os.Stat(filepath.Join(dir, "npc_wren_halloway.md")); err == nil {
				t.Error("a refused import wrote a file")
			}
		})
	}
}
