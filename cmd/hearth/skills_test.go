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
