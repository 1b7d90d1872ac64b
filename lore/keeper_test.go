package lore_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
	"github.com/hearth-rpg/hearth/world"
)

func index(t *testing.T) *sqliteindex.Index {
	t.Helper()
	ctx := context.Background()
	ix, err := sqliteindex.Open(ctx, filepath.Join(t.TempDir(), "lore.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	add := func(file, entity, ctype, text string, lvl access.Level) {
		c := chunk.Chunk{ID: "cove/" + file + "#0", Pack: "cove", File: file, SourceType: chunk.Prose, ContentType: ctype,
			EntityID: "cove:" + entity, Tier: 2, Access: lvl, Text: text, Tokens: len(strings.Fields(text))}
		if err := ix.Upsert(ctx, "cove", file, "h", []chunk.Chunk{c}); err != nil {
			t.Fatal(err)
		}
	}
	add("location_cove.md", "cove", "location", "The cove is ringed by black basalt and smells of kelp.", access.Player)
	add("npc_ada.md", "ada", "npc", "Ada the net-mender hums sea shanties and trusts no one from the city.", access.Player)
	add("npc_ada_secret.md", "ada", "npc", "Ada hides the drowned prince's signet ring in her net basket.", access.GM)
	add("npc_bo.md", "bo", "npc", "Bo the ferryman owes the smugglers money.", access.Player)
	add("lore_tides.md", "tides", "lore", "The spring tides drown the causeway twice a month.", access.Player)
	add("faction_wreckers.md", "wreckers", "faction", "The Wreckers lure ships onto the rocks with false lights.", access.Trusted)
	return ix
}

func cove() *world.State {
	w := world.New(world.SystemD20)
	w.Player = "pc"
	w.Scene = world.Scene{Number: 4, Location: "cove"}
	w.Locations["cove"] = &world.Location{ID: "cove", Name: "Basalt Cove"}
	w.Characters["pc"] = &world.Character{ID: "pc", Name: "Pell", Location: "cove"}
	w.Characters["ada"] = &world.Character{ID: "ada", Name: "Ada", Location: "cove"}
	w.Characters["bo"] = &world.Character{ID: "bo", Name: "Bo", Location: "quay"}
	w.Factions["wreckers"] = &world.Faction{ID: "wreckers", Name: "The Wreckers"}
	w.Threads["lights"] = &world.Thread{ID: "lights", Title: "False lights on the rocks", Status: "open"}
	return w
}

func TestSceneJoinAndProjection(t *testing.T) {
	ctx := context.Background()
	k := &lore.Keeper{Index: index(t), Campaign: "cove", Packs: []string{"cove"}}
	w := cove()
	c, err := k.Scene(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if c.Scene != 4 || c.Location != "cove" || len(c.Atmosphere) == 0 || !strings.Contains(c.Atmosphere[0].Text, "basalt") {
		t.Errorf("atmosphere: %+v", c)
	}
	if !c.Briefed("ada") || c.Briefed("bo") {
		t.Errorf("briefings: %+v", c.NPCBriefings)
	}
	if len(c.ThreadConnections) == 0 {
		t.Errorf("no thread connections for %q", "False lights on the rocks")
	}

	// Bo walks in: only his lore is fetched.
	w.Characters["bo"].Location = "cove"
	added, err := k.Join(ctx, w, c)
	if err != nil || !added || !c.Briefed("bo") {
		t.Fatalf("join: %v %v %+v", added, err, c.NPCBriefings)
	}
	if again, _ := k.Join(ctx, w, c); again {
		t.Error("joining twice fetched again")
	}

	count := func(s string) int { return len(strings.Fields(s)) }
	text := func(role access.Level) string {
		var b strings.Builder
		for _, s := range c.Sections(role, count) {
			b.WriteString(s.Text)
		}
		return b.String()
	}
	if p := text(access.Player); strings.Contains(p, "signet") || !strings.Contains(p, "shanties") {
		t.Errorf("player projection:\n%s", p)
	}
	if g := text(access.GM); !strings.Contains(g, "signet") {
		t.Errorf("GM projection lacks the secret:\n%s", g)
	}
}

func TestCampaignLore(t *testing.T) {
	k := &lore.Keeper{Index: index(t), Campaign: "cove", Packs: []string{"cove"}}
	ps, _, err := k.CampaignLore(context.Background(), cove(), "wreckers and tides")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	got := strings.Join(ids, " ")
	if !strings.Contains(got, "faction_wreckers") || !strings.Contains(got, "lore_tides") || strings.Contains(got, "npc_") {
		t.Errorf("campaign lore: %s", got)
	}
}
