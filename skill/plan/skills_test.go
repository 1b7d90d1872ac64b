package plan

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// repoSkills is the skills directory shipped with Hearth.
const repoSkills = "../../skills"

// skillTimeout guards a hang only: the shipped skills build their Go
// program on first use, which takes long on a loaded machine.
const skillTimeout = 5 * time.Minute

// copyTree copies a skill directory, leaving out what an installation
// creates (bin/, data/, config.json).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		base := filepath.Base(rel)
		if fi.IsDir() && (base == "bin" || base == "data") || base == "config.json" {
			if fi.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

var (
	diceOnce sync.Once
	diceBin  string
	diceErr  error
)

// buildDiceRoller builds the dice-roller's Go program once per test run.
func buildDiceRoller(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	diceOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hearth-dice-")
		if err != nil {
			diceErr = err
			return
		}
		diceBin = filepath.Join(dir, "roll")
		out, err := exec.Command("go", "build", "-o", diceBin, filepath.Join(repoSkills, "dice-roller", "src")).CombinedOutput()
		if err != nil {
			diceErr = err
			diceBin = string(out)
		}
	})
	if diceErr != nil {
		t.Fatalf("go build of the dice-roller: %v\n%s", diceErr, diceBin)
	}
	return diceBin
}

// shippedSkills copies the shipped skills into a temporary skills
// directory, with the dice-roller's binary in place.
func shippedSkills(t *testing.T) string {
	dir := t.TempDir()
	for _, name := range []string{"dice-roller", "example-echo"} {
		copyTree(t, filepath.Join(repoSkills, name), filepath.Join(dir, name))
	}
	bin := filepath.Join(dir, "dice-roller", "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.Link(buildDiceRoller(t), filepath.Join(bin, "roll")); err != nil {
		copyTree(t, filepath.Dir(buildDiceRoller(t)), bin)
	}
	return dir
}

func discover(t *testing.T, dir string) *skill.Set {
	t.Helper()
	set, warns, err := skill.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warns {
		t.Errorf("warning: %v", w)
	}
	return set
}

func TestShippedSkillsThroughTheExecutor(t *testing.T) {
	dir := shippedSkills(t)
	set := discover(t, dir)
	env := map[string]string{"ECHO_TOKEN": "secret"}
	e := &Executor{
		Runner: &SkillRunner{Skills: set, Timeout: skillTimeout,
			LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }},
		RetryDefaults: set.RetryPolicy,
	}
	p := &Plan{RequestID: "p1", Parallel: true, Metadata: Metadata{GenerationAttempt: 1}, Tools: []Tool{
		{ToolID: "roll", ToolPath: skill.ToolPath("dice-roller", "roll"), Required: true, Async: true,
			Input: map[string]any{"notation": "2d6+1", "seed": 7.0}},
		{ToolID: "echo", ToolPath: skill.ToolPath("example-echo", "echo"), Required: true, Async: true,
			Input: map[string]any{"text": `say \"hi\"`}},
		{ToolID: "after", ToolPath: skill.ToolPath("example-echo", "echo"), Required: false,
			Input: map[string]any{"text": "again"}, Dependencies: []string{"roll", "echo"}},
	}}
	res := e.Execute(t.Context(), p, map[string]any{"world": map[string]any{"time": "dusk"}})
	if !res.Success {
		for _, tr := range res.ToolResults {
			t.Logf("%s: %s %+v stderr %s", tr.ToolID, tr.State, tr.Error, tr.Stderr)
		}
		t.Fatal("plan failed")
	}
	last := res.AggregatedState["lastRoll"].(map[string]any)
	if last["dice"] != "2d6+1" || len(last["rolls"].([]any)) != 2 {
		t.Errorf("lastRoll = %v", last)
	}
	if got := res.AggregatedState["echo"]; !reflect.DeepEqual(got, map[string]any{"last": "again"}) {
		t.Errorf("echo = %v (the later tool's patch should win)", got)
	}
	if res.AggregatedState["world"] == nil {
		t.Error("the initial state was lost")
	}
	if res.Tool("roll").Output == "" || !strings.HasPrefix(res.Tool("roll").Output, "Rolled ") {
		t.Errorf("roll output %q", res.Tool("roll").Output)
	}
	var ui []string
	for _, u := range res.UIEvents() {
		ui = append(ui, u.Event)
	}
	if !reflect.DeepEqual(ui, []string{"dice_roll", "narrative_choice", "narrative_choice"}) {
		t.Errorf("ui events %v", ui)
	}
	echo := set.Get("example-echo")
	if len(res.AggregatedAssets) != 2 || res.AggregatedAssets[0].Path != filepath.Join(echo.DataDir(), "last-echo.txt") {
		t.Errorf("assets %+v", res.AggregatedAssets)
	}
	var sawToken bool
	for _, ev := range res.Tool("echo").Events {
		if l, ok := ev.(*protocol.Log); ok && l.Message == "token received" {
			sawToken = true
		}
	}
	if !sawToken {
		t.Error("the sensitive token did not reach the script's environment")
	}
	if b, _ := os.ReadFile(filepath.Join(echo.DataDir(), "last-echo.txt")); string(b) != "again\n" {
		t.Errorf("data file = %q", b)
	}
}

func TestRealScriptFailureSkipsDependants(t *testing.T) {
	set := discover(t, shippedSkills(t))
	e := &Executor{Runner: &SkillRunner{Skills: set, Timeout: skillTimeout}}
	none := &skill.RetryPolicy{}
	p := &Plan{RequestID: "p2", Metadata: Metadata{GenerationAttempt: 1}, Tools: []Tool{
		{ToolID: "bad", ToolPath: skill.ToolPath("example-echo", "echo"), Required: true, RetryPolicy: none},
		{ToolID: "then", ToolPath: skill.ToolPath("dice-roller", "roll"), Required: true, Dependencies: []string{"bad"},
			Input: map[string]any{"notation": "1d6"}},
		{ToolID: "free", ToolPath: skill.ToolPath("dice-roller", "roll"), Required: true, RetryPolicy: none,
			Input: map[string]any{"notation": "1d6"}},
		{ToolID: "ghost", ToolPath: "/bin/sh", Required: false},
	}}
	res := e.Execute(t.Context(), p, nil)
	want := map[string]ToolState{"bad": Failed, "then": Skipped, "free": Succeeded, "ghost": Failed}
	if got := states(res); !reflect.DeepEqual(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
	if e := res.Tool("bad").Error; e == nil || e.Code != "missing_text" || e.Category != skill.ToolFailure {
		t.Errorf("bad's error %+v", e)
	}
	if e := res.Tool("ghost").Error; e == nil || e.Code != skill.CodeNotFound || res.Tool("ghost").RetryCount != 0 {
		t.Errorf("a plan ran a program that is not a skill script: %+v", res.Tool("ghost"))
	}
	if !reflect.DeepEqual(res.DisabledSkills, []string{"/bin/sh", "example-echo"}) {
		t.Errorf("disabled %v", res.DisabledSkills)
	}
}

func TestRealScriptsRunTheDiamondInOrderAndInParallel(t *testing.T) {
	skills := t.TempDir()
	copyTree(t, "testdata/skills/meet", filepath.Join(skills, "meet"))
	set := discover(t, skills)
	work := t.TempDir()
	tool := func(id, peer string, async bool, deps ...string) Tool {
		return Tool{ToolID: id, ToolPath: skill.ToolPath("meet", "meet"), Required: true, Async: async,
			Dependencies: deps, RetryPolicy: &skill.RetryPolicy{},
			Input: map[string]any{"id": id, "peer": peer, "dir": work}}
	}
	p := &Plan{RequestID: "p3", Parallel: true, Metadata: Metadata{GenerationAttempt: 1}, Tools: []Tool{
		tool("D", "", false, "B", "C"), tool("B", "C", true, "A"), tool("A", "", false), tool("C", "B", true, "A"),
	}}
	e := &Executor{Runner: &SkillRunner{Skills: set, Timeout: skillTimeout}, MaxConcurrent: 2}
	res := e.Execute(t.Context(), p, nil)
	b, _ := os.ReadFile(filepath.Join(work, "log"))
	log := strings.Split(strings.TrimSpace(string(b)), "\n")
	if !res.Success {
		t.Fatalf("plan failed: %v; log %q", states(res), log)
	}
	at := func(s string) int { return slices.Index(log, s) }
	for _, before := range [][2]string{
		{"end A", "start B"}, {"end A", "start C"}, {"end B", "start D"}, {"end C", "start D"},
		{"start B", "end C"}, {"start C", "end B"},
	} {
		if at(before[0]) < 0 || at(before[0]) >= at(before[1]) {
			t.Errorf("%q did not come before %q: %q", before[0], before[1], log)
		}
	}
}

func TestDiceRollerBuildsOnFirstUse(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	dir := t.TempDir()
	copyTree(t, filepath.Join(repoSkills, "dice-roller"), filepath.Join(dir, "dice-roller"))
	src, _ := filepath.Abs(filepath.Join(repoSkills, "dice-roller", "src"))
	os.RemoveAll(filepath.Join(dir, "dice-roller", "src"))
	if err := os.Symlink(src, filepath.Join(dir, "dice-roller", "src")); err != nil {
		t.Fatal(err)
	}
	set := discover(t, dir)
	inv, err := set.Get("dice-roller").Prepare("roll", skill.Call{Input: map[string]any{"notation": "1d4"}, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	res, err := skill.Run(t.Context(), inv)
	if err != nil {
		t.Fatalf("Run: %v\nstderr: %s", err, res.Stderr)
	}
	if fi, err := os.Stat(filepath.Join(dir, "dice-roller", "bin", "roll")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("no binary was built: %v", err)
	}
}
