package game_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
)

// tinyWithBeats copies the tiny campaign and adds two plot beats: one when
// the player first reaches the hall, one after it, once the flag it sets
// holds, back at the gate.
func tinyWithBeats(t *testing.T) *campaign.Campaign {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := os.CopyFS(dir, os.DirFS("testdata/tiny")); err != nil {
		t.Fatal(err)
	}
	beats := map[string]string{
		"plot_beat_steward.yml": `entity_type: plot_beat
entity_id: steward
title: The steward's nerves
description: Tomas drops his ledger when the player walks in.
priority: high
conditions:
  min_scene: 2
  location: hall
consequences:
  - state_patch: {flags: {steward_nervous: true}, player.saw_tomas: true}
  - npc_mood_change: {tomas: jumpy}
`,
		"plot_beat_rats_return.yml": `entity_type: plot_beat
entity_id: rats_return
title: The rats return
description: Squeaking from under the gate.
priority: medium
conditions:
  requires: [steward]
  flags: [steward_nervous]
  location: gate
`,
	}
	for name, text := range beats {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := campaign.LoadPack(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Beats) != 2 {
		t.Fatalf("beats loaded: %+v", p.Beats)
	}
	return p.Content
}

func TestPlotBeatsAtSceneTransitions(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	c := tinyWithBeats(t)
	p, err := campaign.LoadPack(ctx, c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	beats, errs := game.BeatsOf(p.Beats)
	if len(errs) > 0 || len(beats) != 2 {
		t.Fatalf("BeatsOf: %v %+v", errs, beats)
	}
	s, err := game.New(ctx, db, c, 9, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.UseBeats(beats)
	status := func(id string) string {
		log, _ := s.World().Vars["plot_beats"].(map[string]any)
		st, _ := log[id].(map[string]any)
		v, _ := st["status"].(string)
		return v
	}

	act(t, s, "look") // no transition: nothing evaluated
	if status("steward") != "" {
		t.Fatalf("a beat was evaluated without a scene transition")
	}
	r := act(t, s, "go north")
	if !strings.Contains(r.Narrative, "Tomas drops his ledger") {
		t.Errorf("the triggered beat was not narrated offline:\n%s", r.Narrative)
	}
	if status("steward") != "triggered" {
		t.Fatalf("steward beat: %q; vars %v", status("steward"), s.World().Vars)
	}
	flags, _ := s.World().Vars["flags"].(map[string]any)
	if flags["steward_nervous"] != true {
		t.Errorf("the beat's consequence was not applied: %v", s.World().Vars)
	}
	if player, _ := s.World().Vars["player"].(map[string]any); player["saw_tomas"] != true {
		t.Errorf("the beat's dotted state_patch key is not a nested path: %v", s.World().Vars)
	}
	if npcs, _ := s.World().Vars["npcs"].(map[string]any); npcs["tomas"] == nil || npcs["tomas"].(map[string]any)["mood"] != "jumpy" {
		t.Errorf("npc_mood_change not kept: %v", s.World().Vars)
	}
	if status("rats_return") == "triggered" {
		t.Error("rats_return triggered away from the gate")
	}
	recs, _ := s.Turns(ctx, 2, 2)
	if !strings.Contains(string(recs[0].Passes), `"beats_triggered":["steward"]`) {
		t.Errorf("the turn does not record its beat: %s", recs[0].Passes)
	}
	act(t, s, "go south")
	if status("rats_return") != "triggered" {
		t.Errorf("rats_return: %q", status("rats_return"))
	}

	// The beat log is state: a restore takes it back, a replay brings it again.
	if err := s.Restore(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if status("steward") != "" {
		t.Errorf("restored to turn 1, the steward beat is still %q", status("steward"))
	}
	s2, err := game.Open(ctx, db, s.ID(), game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Restore(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if log, _ := s2.World().Vars["plot_beats"].(map[string]any); log["steward"] == nil {
		t.Errorf("back at turn 3 the steward beat is gone: %v", s2.World().Vars)
	}
	if err := s2.Verify(ctx); err != nil {
		t.Errorf("verify: %v", err)
	}
}

// TestTimePassingBeginsAScene checks that an hour or more passed in one
// place is a scene transition (so a single-place campaign's beats can
// fire), and that a short wait is not.
func TestTimePassingBeginsAScene(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	c := tinyWithBeats(t)
	s, err := game.New(ctx, db, c, 9, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		input string
		scene int
	}{
		{"wait", 1},
		{"look", 1},
		{"rest", 2},
		{"sleep", 3},
		{"wait", 3},
	}
	for _, tt := range tests {
		act(t, s, tt.input)
		sc := s.World().Scene
		if sc.Number != tt.scene || sc.Location != "gate" {
			t.Errorf("after %q: scene %d at %q, want %d at gate", tt.input, sc.Number, sc.Location, tt.scene)
		}
	}
}
