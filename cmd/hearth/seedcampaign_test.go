package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/campaign"
)

// TestMinimalCampaignPlaysOffline plays the three-file campaign written
// from the seed's campaign format through the real "hearth play", offline,
// for a dozen turns: it loads with warnings (printed, not errors), a
// default player character plays its single scene, meets its NPC, and
// after a rest its plot beat fires, is told to the player, and its dotted
// state patch lands as a nested path.
func TestMinimalCampaignPlaysOffline(t *testing.T) {
	data := t.TempDir()
	turns := []string{"look", "talk to odile", "ask odile about the far shore", "wait", "search",
		"rest", "talk to odile", "wait", "look", "sleep", "hello", "look"}
	cmd := exec.Command(hearthBin, "play", "--new", "--campaign", "../../campaigns/the_ferry_at_greywater", "--data", data, "--seed", "7")
	cmd.Stdin = strings.NewReader(strings.Join(turns, "\n") + "\n/quit\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("play: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	stdout, stderr := out.String(), errb.String()
	for _, want := range []string{"no locations", "no player character", "Odile has no location"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no warning %q on stderr:\n%s", want, stderr)
		}
	}
	if strings.Contains(strings.ToLower(stderr), "error") {
		t.Errorf("errors on stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "the fog tears open") {
		t.Errorf("the plot beat was not told:\n%s", stdout)
	}

	s, _ := onlySession(t, data)
	w := s.World()
	if s.Turn() < len(turns) {
		t.Errorf("played %d turns, want %d:\n%s", s.Turn(), len(turns), stdout)
	}
	pc := w.PC()
	if pc == nil || pc.ID != campaign.DefaultPlayer {
		t.Fatalf("player character: %+v", pc)
	}
	if len(w.Locations) != 1 || w.Characters["odile"].Location != pc.Location {
		t.Errorf("not one scene with Odile in it: %d locations, odile at %q, player at %q",
			len(w.Locations), w.Characters["odile"].Location, pc.Location)
	}
	if w.Scene.Number < 2 {
		t.Errorf("rest and sleep did not move the story on: scene %d", w.Scene.Number)
	}
	recs, err := s.Turns(t.Context(), 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	met := false
	for _, r := range recs {
		met = met || strings.Contains(r.Narrative, "Odile")
	}
	if !met {
		t.Errorf("Odile is not met in the first turns: %+v", recs)
	}
	player, _ := w.Vars["player"].(map[string]any)
	if player["saw_the_far_shore"] != true {
		t.Errorf("the beat's state patch did not land at player.saw_the_far_shore: %v", w.Vars)
	}
	npcs, _ := w.Vars["npcs"].(map[string]any)
	if odile, _ := npcs["odile"].(map[string]any); odile["mood"] != "relieved" {
		t.Errorf("the beat's npc_mood_change did not land at npcs.odile.mood: %v", w.Vars)
	}
	if _, ok := w.Vars["player.saw_the_far_shore"]; ok {
		t.Errorf("the dotted key was stored as it was written: %v", w.Vars)
	}
}

// TestChoicesRecallMemoriesInPlay plays the bundled campaign in choice
// mode: once Maren has given the player work, a later choice reminds her
// of it, and picking it plays.
func TestChoicesRecallMemoriesInPlay(t *testing.T) {
	camp := filepath.Join(t.TempDir(), "saltmere")
	if err := os.CopyFS(camp, os.DirFS(saltmere)); err != nil {
		t.Fatal(err)
	}
	yml := filepath.Join(camp, "campaign.yml")
	b, err := os.ReadFile(yml)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(yml, append(b, "play_mode: choices\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hearthBin, "play", "--new", "--campaign", camp, "--data", t.TempDir(), "--seed", "7")
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader("go to the tavern\ntalk to maren\nlook\n1\n/quit\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("play: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	stdout := out.String()
	i := strings.Index(stdout, "1. Remind Maren Holt of earlier: ")
	if i < 0 {
		t.Fatalf("no choice draws on a memory of Maren:\n%s", stdout)
	}
	if !strings.Contains(stdout[i:], "turn 4") || !strings.Contains(stdout[i:], "Maren") {
		t.Errorf("the memory choice was not played:\n%s", stdout[i:])
	}
}
