package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSkillCommands(t *testing.T) {
	out := run(t, nil, "skill", "list", "--skills", "../../skills")
	if !strings.Contains(out, "dice-roller") || !strings.Contains(out, "example-echo") {
		t.Errorf("skill list:\n%s", out)
	}
	if out := run(t, nil, "skill", "check", "--skills", "../../skills"); !strings.Contains(out, "0 problem(s)") {
		t.Errorf("skill check:\n%s", out)
	}
	out = run(t, nil, "skill", "run", "example-echo", "echo", "--skills", "../../skills", "--input", `{"text":"lanterns"}`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last struct {
		Version string `json:"version"`
		Type    string `json:"type"`
		OK      bool   `json:"ok"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Type != "done" || !last.OK || last.Version != "0" {
		t.Errorf("skill run ends with %q (%v)", lines[len(lines)-1], err)
	}

	// A broken skill is reported, never fatal to the others.
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "example-echo"), os.DirFS("../../skills/example-echo")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "broken"), 0o755)
	os.WriteFile(filepath.Join(dir, "broken", "SKILL.md"), []byte("---\nname: other-name\n---\nNo description.\n"), 0o644)
	if out := run(t, nil, "skill", "list", "--skills", dir); !strings.Contains(out, "example-echo") {
		t.Errorf("a broken skill hid the good one:\n%s", out)
	}
	cmd := exec.Command(hearthBin, "skill", "check", "--skills", dir)
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "broken") || !strings.Contains(string(b), "SKILL.md") {
		t.Errorf("skill check on a broken skill: %v\n%s", err, b)
	}
	if _, err := exec.Command(hearthBin, "skill", "run", "nope", "x", "--skills", dir).CombinedOutput(); err == nil {
		t.Error("running a missing skill succeeded")
	}
}

// TestSkillConfig shows a skill's settings with their schema, saves a
// valid change where the skill reads it, and refuses an invalid one with
// what is allowed.
func TestSkillConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "dice-roller"), os.DirFS("../../skills/dice-roller")); err != nil {
		t.Fatal(err)
	}
	out := run(t, nil, "skill", "config", "dice-roller", "--skills", dir)
	for _, want := range []string{"randomSource = \"crypto\" (default)", "string: crypto|pseudo", "showIndividualRolls = true (default)", "boolean", "Show each die"} {
		if !strings.Contains(out, want) {
			t.Errorf("settings lack %q:\n%s", want, out)
		}
	}
	out = run(t, nil, "skill", "config", "dice-roller", "randomSource=pseudo", "showIndividualRolls=false", "--skills", dir)
	if !strings.Contains(out, `randomSource = "pseudo"`+"\n") || !strings.Contains(out, "showIndividualRolls = false\n") {
		t.Errorf("after saving:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "dice-roller", "config.json"))
	var saved map[string]any
	if err != nil || json.Unmarshal(b, &saved) != nil || saved["randomSource"] != "pseudo" || saved["showIndividualRolls"] != false {
		t.Fatalf("config.json: %s (%v)", b, err)
	}
	for _, tt := range []struct{ arg, want string }{
		{"randomSource=dice-bag", "crypto|pseudo"},
		{"showIndividualRolls=maybe", "true or false"},
		{"colour=red", "its settings are randomSource, showIndividualRolls"},
		{"randomSource", "key=value"},
	} {
		b, err := exec.Command(hearthBin, "skill", "config", "dice-roller", tt.arg, "--skills", dir).CombinedOutput()
		if err == nil || !strings.Contains(string(b), tt.want) {
			t.Errorf("%s: %v\n%s", tt.arg, err, b)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "dice-roller", "config.json")); string(after) != string(b) {
		t.Errorf("a refused change was written: %s", after)
	}
	// KEY= goes back to the default.
	if out := run(t, nil, "skill", "config", "dice-roller", "randomSource=", "--skills", dir); !strings.Contains(out, `randomSource = "crypto" (default)`) {
		t.Errorf("unset:\n%s", out)
	}
}
