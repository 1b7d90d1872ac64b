package game_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
)

// countingIndex counts searches, to show that turns read the cache.
type countingIndex struct {
	*sqliteindex.Index
	n atomic.Int64
}

func (c *countingIndex) Search(ctx context.Context, q retrieve.Query) (retrieve.Result, error) {
	c.n.Add(1)
	return c.Index.Search(ctx, q)
}

// tinyLore indexes hand-written lore for the tiny campaign in a real index.
func tinyLore(t *testing.T, dir string) *countingIndex {
	t.Helper()
	ctx := context.Background()
	ix, err := sqliteindex.Open(ctx, filepath.Join(dir, "lore.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	add := func(file, entity, text string, lvl access.Level) {
		c := chunk.Chunk{ID: "tiny/" + file + "#0", Pack: "tiny", File: file, SourceType: chunk.Prose,
			EntityID: "tiny:" + entity, Tier: 2, Access: lvl, Text: text, Tokens: len(strings.Fields(text))}
		if err := ix.Upsert(ctx, "tiny", file, "h-"+file, []chunk.Chunk{c}); err != nil {
			t.Fatal(err)
		}
	}
	add("location_gate.md", "gate", "The gate smells of wet iron; crows nest in the portcullis.", access.Player)
	add("location_hall.md", "hall", "The hall's tapestries show the keep's founding war.", access.Player)
	add("npc_tomas.md", "tomas", "Tomas the steward keeps the ledgers and fears the baron.", access.Player)
	add("npc_tomas_secret.md", "tomas", "Tomas let the rats into the keep to hide his theft.", access.GM)
	return &countingIndex{Index: ix}
}

func passesOf(t *testing.T, r game.TurnRecord) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.Passes, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSceneLoreLifecycle(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	ix := tinyLore(t, dir)
	keeper := &lore.Keeper{Index: ix, Campaign: "tiny", Packs: []string{"tiny"}}
	s, err := game.New(ctx, db, loadTiny(t), 3, game.Options{Lore: keeper})
	if err != nil {
		t.Fatal(err)
	}
	br, err := db.BranchByName(ctx, s.ID(), s.Branch())
	if err != nil {
		t.Fatal(err)
	}
	opening, err := db.SceneLore(ctx, br.ID, 0)
	if err != nil {
		t.Fatalf("the opening scene's lore was not stored: %v", err)
	}
	if !strings.Contains(string(opening.Lore), "wet iron") {
		t.Errorf("opening lore lacks the gate's atmosphere: %s", opening.Lore)
	}

	// A turn inside the scene reads the cache: no search.
	before := ix.n.Load()
	act(t, s, "look")
	if n := ix.n.Load() - before; n != 0 {
		t.Errorf("a turn inside a scene searched the index %d times", n)
	}

	// Walking into the hall begins a scene: its lore is prepared, with a
	// briefing on Tomas, and committed with the turn.
	act(t, s, "go north")
	if s.World().Scene.Location != "hall" {
		t.Fatalf("not in the hall: %+v", s.World().Scene)
	}
	recs, err := s.Turns(ctx, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	var trace struct {
		Scene    int        `json:"scene"`
		Prepared bool       `json:"prepared"`
		Passages []string   `json:"passages"`
		Cuts     []lore.Cut `json:"cuts"`
	}
	if err := json.Unmarshal(passesOf(t, recs[1])["lore"], &trace); err != nil {
		t.Fatal(err)
	}
	if !trace.Prepared || trace.Scene != s.World().Scene.Number || len(trace.Passages) == 0 {
		t.Errorf("the turn that began the scene does not record its lore: %+v", trace)
	}
	trace.Prepared = false
	if err := json.Unmarshal(passesOf(t, recs[0])["lore"], &trace); err != nil || trace.Prepared || trace.Scene != 1 {
		t.Errorf("a turn inside a scene claims to have prepared lore: %+v %v", trace, err)
	}
	hall, err := db.SceneLore(ctx, br.ID, 2)
	if err != nil || hall.Turn != 2 {
		t.Fatalf("hall lore: %+v %v", hall, err)
	}
	var c lore.Cache
	if err := json.Unmarshal(hall.Lore, &c); err != nil {
		t.Fatal(err)
	}
	if !c.Briefed("tomas") || !strings.Contains(string(hall.Lore), "fears the baron") {
		t.Errorf("no briefing on Tomas: %s", hall.Lore)
	}

	// The player's projection never holds the GM's briefing.
	for _, sec := range c.Sections(access.Player, func(s string) int { return len(s) }) {
		if strings.Contains(sec.Text, "theft") {
			t.Errorf("player section %q holds GM-only lore: %s", sec.Name, sec.Text)
		}
	}
	gm := ""
	for _, sec := range c.Sections(access.GM, func(s string) int { return len(s) }) {
		gm += sec.Text
	}
	if !strings.Contains(gm, "theft") {
		t.Errorf("the GM's projection lacks the secret: %s", gm)
	}

	// Reopened, the session reads the stored cache instead of searching.
	s2, err := game.Open(ctx, db, s.ID(), game.Options{Lore: keeper})
	if err != nil {
		t.Fatal(err)
	}
	before = ix.n.Load()
	act(t, s2, "look")
	if n := ix.n.Load() - before; n != 0 {
		t.Errorf("a reopened session searched %d times instead of reading its cache", n)
	}

	// Restoring to the gate finds the gate's cache on the line.
	if err := s2.Restore(ctx, 1); err != nil {
		t.Fatal(err)
	}
	before = ix.n.Load()
	act(t, s2, "look")
	if n := ix.n.Load() - before; n != 0 {
		t.Errorf("after a restore the session searched %d times", n)
	}
}

func TestEpisodesRecap(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	ix := tinyLore(t, dir)
	keeper := &lore.Keeper{Index: ix, Campaign: "tiny", Packs: []string{"tiny"}}
	s, err := game.New(ctx, db, loadTiny(t), 3, game.Options{Lore: keeper})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.BeginEpisode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first.Number != 1 || first.Recap != "" || first.FirstTurn != 1 {
		t.Errorf("first episode: %+v", first)
	}
	act(t, s, "go north")
	act(t, s, "talk to tomas")
	ended, err := s.EndEpisode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ended.LastTurn != 2 || ended.Summary == "" {
		t.Errorf("ended episode: %+v", ended)
	}
	// The episode is in the history corpus, apart from the authored lore.
	hist, err := keeper.History(ctx, s.ID(), "Tomas steward", access.Player, 5)
	if err != nil || len(hist) == 0 {
		t.Fatalf("history: %+v %v", hist, err)
	}
	res, err := ix.Index.Search(ctx, retrieve.Query{Text: "Tomas steward", Role: access.Player, Limit: 20,
		Filter: retrieve.Filter{Corpora: []chunk.Corpus{chunk.Lore}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Passages {
		if p.Chunk.Corpus == chunk.History {
			t.Errorf("a lore search returned history: %s", p.Chunk.ID)
		}
	}
	// An episode left open (the process died) is closed when the next begins.
	if _, err := s.BeginEpisode(ctx); err != nil {
		t.Fatal(err)
	}
	act(t, s, "go south")
	third, err := s.BeginEpisode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if third.Number != 3 || third.Recap == "" || third.FirstTurn != 4 {
		t.Errorf("third episode: %+v", third)
	}
	eps, err := db.Episodes(ctx, s.ID())
	if err != nil || len(eps) != 3 || eps[1].Open() || eps[1].LastTurn != 3 {
		t.Errorf("episodes: %+v %v", eps, err)
	}
	if !strings.Contains(eps[1].Recap, ended.Summary) {
		t.Errorf("the recap of episode 2 is not the summary of episode 1: %q vs %q", eps[1].Recap, ended.Summary)
	}
}
