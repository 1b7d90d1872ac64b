package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInstalledSkillsNeedNoGo installs hearth as a user would (go install
// into an empty GOBIN), takes Go off PATH, and from an empty directory
// lists the bundled skills and plays a skills-pipeline turn that rolls
// through the dice-roller: the bundled skills need no repository and no
// toolchain.
func TestInstalledSkillsNeedNoGo(t *testing.T) {
	if testing.Short() {
		t.Skip("go install builds hearth")
	}
	gobin := t.TempDir()
	install := exec.Command("go", "install", ".")
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	bin := filepath.Join(gobin, "hearth")

	// PATH without any directory that holds a go command.
	var path []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "go")); err != nil {
			path = append(path, d)
		}
	}
	home, work, data := t.TempDir(), t.TempDir(), t.TempDir()
	env := []string{"PATH=" + strings.Join(path, string(os.PathListSeparator)), "HOME=" + home, "HEARTH_DATA=" + data}
	hearth := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = work, env, strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("hearth %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return out.String()
	}
	check := exec.Command("sh", "-c", "command -v go")
	check.Env = env
	if out, err := check.Output(); err == nil {
		t.Fatalf("go is still on PATH: %s", out)
	}

	out := hearth("", "skill", "list")
	for _, name := range []string{"dice-roller", "example-echo", "memory", "npc-perception", "player-choices", "reputation"} {
		if !strings.Contains(out, name+" ") {
			t.Errorf("skill list lacks %s:\n%s", name, out)
		}
	}

	out = hearth("roll 1d20\n", "play", "--pipeline", "skills", "--new", "--seed", "1")
	if !strings.Contains(out, "1d20 [") {
		t.Errorf("no roll in the turn:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(hearth("", "sessions")), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one saved game:\n%s", strings.Join(lines, "\n"))
	}
	var export any
	if err := json.Unmarshal([]byte(hearth("", "export", strings.Fields(lines[1])[0], "--format", "json")), &export); err != nil {
		t.Fatal(err)
	}
	if !ranSkill(export, "dice-roller") {
		t.Errorf("no successful dice-roller run in the game's record")
	}
	// The hearth binary ran the program: nothing was built.
	if _, err := os.Stat(filepath.Join(data, "skills", "dice-roller", "bin")); err == nil {
		t.Error("the dice-roller was built with go build")
	}
}

// ranSkill reports whether the exported game records a plan that ran
// skill with outcome success.
func ranSkill(v any, skill string) bool {
	switch v := v.(type) {
	case map[string]any:
		if v["outcome"] == "success" {
			if names, ok := v["skills"].([]any); ok && slices.Contains(names, any(skill)) {
				return true
			}
		}
		for _, x := range v {
			if ranSkill(x, skill) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if ranSkill(x, skill) {
				return true
			}
		}
	}
	return false
}

// TestSkillBuiltin runs a bundled program the way its script does, and
// refuses a name that is not built in.
func TestSkillBuiltin(t *testing.T) {
	out := run(t, strings.NewReader(`{"requestId":"r","tool":"roll","input":{"notation":"3d6","seed":9}}`), "skill", "builtin", "dice-roller")
	if !strings.Contains(out, `"type":"done","requestId":"r","ok":true`) {
		t.Errorf("no successful done event:\n%s", out)
	}
	cmd := exec.Command(hearthBin, "skill", "builtin", "example-echo")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(errb.String(), "dice-roller") {
		t.Errorf("a shell skill run as built-in: %v\n%s", err, errb.String())
	}
	// A program that cannot read its input exits non-zero, as a process would.
	cmd = exec.Command(hearthBin, "skill", "builtin", "dice-roller")
	cmd.Stdin = strings.NewReader("not json")
	if err := cmd.Run(); err == nil {
		t.Error("a broken input exited 0")
	}
}
