package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestChoiceBasedPlayWithTheSkill plays a campaign in choice mode with the
// real player-choices skill, and with no skill at all.
func TestChoiceBasedPlayWithTheSkill(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	camp := filepath.Join(t.TempDir(), "saltmere")
	if err := os.CopyFS(camp, os.DirFS(filepath.Join(root, "campaigns/saltmere"))); err != nil {
		t.Fatal(err)
	}
	yml := filepath.Join(camp, "campaign.yml")
	b, _ := os.ReadFile(yml)
	os.WriteFile(yml, append(b, []byte("play_mode: choices\n")...), 0o644)

	play := func(dir string) (string, string) {
		cmd := exec.Command(hearthBin, "play", "--new", "--campaign", camp, "--data", t.TempDir())
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader("go to the tavern\n1\n/quit\n")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("play: %v\n%s\n%s", err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	out, _ := play(root) // ./skills holds player-choices
	if !strings.Contains(out, "Talk to Maren") && !strings.Contains(out, "Ask Maren") {
		t.Errorf("no choices from the skill after entering the tavern:\n%s", out)
	}
	// An empty ./skills: no player-choices (a fresh data directory would
	// have the bundled one installed), so the fallback.
	empty := t.TempDir()
	if err := os.Mkdir(filepath.Join(empty, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errs := play(empty)
	// The fallback's last choices may make way for those of the
	// character's own story (at most four in all).
	if !strings.Contains(out, "Continue") || !strings.Contains(out, "Look around") || !strings.Contains(errs, "player-choices") {
		t.Errorf("fallback choices:\nstdout:\n%s\nstderr:\n%s", out, errs)
	}
}
