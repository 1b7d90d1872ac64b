package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalScriptedGame plays the 30-turn script with a flag and input the
// game cannot read mixed in, then evaluates the saved game and its JSON
// transcript with the built binary.
func TestEvalScriptedGame(t *testing.T) {
	if _, err := os.Stat(saltmere); err != nil {
		t.Skip("bundled campaign missing")
	}
	script := strings.Join(readScript(t, "testdata/saltmere-30.txt"), "\n")
	// After turn 5 ("go north"): a flag on it, one on the latest turn by
	// default, and input answered without a turn.
	script = strings.Replace(script, "go north\n", "go north\n/flag 5   Maren should not be awake at this hour\nfrobnicate the widget\n/flag too terse\n", 1)
	dir := t.TempDir()
	// Play builds its index in the background; the report below counts
	// lore, so every turn must have it: index first.
	run(t, nil, "--data", dir, "pack", "index", saltmere, "srd51")
	out := run(t, strings.NewReader(script), "play", "--new", "--seed", "1", "--data", dir, "--campaign", saltmere)
	if !strings.Contains(out, "Turn 5 is flagged") {
		t.Fatalf("/flag did not answer:\n%s", out)
	}
	s, _ := onlySession(t, dir)
	if s.Turn() != 30 {
		t.Fatalf("flags and unread input took turns: at turn %d", s.Turn())
	}

	report := run(t, nil, "eval", s.ID(), "--data", dir)
	for _, want := range []string{
		"30 turns, 31 player inputs",
		"contradictions            0",
		"invalid actions accepted  ",
		"clarification rate        1/31 (3%) of inputs (not understood 1)",
		"response length (words)   p50 ",
		"lore passages per turn    p50 ",
		"lore relevance            ",
		"scene-cache hit rate      ",
		"callback rate             ",
		"model passes              none recorded (played offline)",
		"Flags (2):",
		"turn 5, flagged by a player: Maren should not be awake at this hour",
		"turn 5, flagged by a player: too terse",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}

	var r struct {
		Turns         int `json:"turns"`
		Clarification struct {
			N  int `json:"n"`
			Of int `json:"of"`
		} `json:"clarification"`
		ResponseWords struct {
			P50 int `json:"p50"`
		} `json:"response_words"`
		Lore struct {
			Turns     int `json:"turns"`
			CacheHits struct {
				N  int `json:"n"`
				Of int `json:"of"`
			} `json:"scene_cache_hits"`
			Relevance struct {
				Of int `json:"of"`
			} `json:"relevance"`
		} `json:"lore"`
		Flags []struct {
			Turn   int    `json:"turn"`
			Reason string `json:"reason"`
			Input  string `json:"input"`
		} `json:"flags"`
	}
	js := run(t, nil, "eval", s.ID(), "--data", dir, "--json")
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatalf("--json does not parse: %v\n%s", err, js)
	}
	if r.Turns != 30 || r.Clarification.N != 1 || r.Clarification.Of != 31 || r.ResponseWords.P50 == 0 {
		t.Errorf("report: %+v", r)
	}
	// The game moves through several scenes: some turns prepare lore,
	// the others read the scene's cache.
	if r.Lore.Turns != 30 || r.Lore.CacheHits.N == 0 || r.Lore.CacheHits.N == 30 || r.Lore.Relevance.Of == 0 {
		t.Errorf("lore: %+v", r.Lore)
	}
	if len(r.Flags) != 2 || r.Flags[0].Turn != 5 || r.Flags[0].Input != "go north" {
		t.Errorf("flags: %+v", r.Flags)
	}

	// A JSON transcript carries the flags and evaluates the same.
	file := filepath.Join(t.TempDir(), "t.json")
	run(t, nil, "export", s.ID(), "--data", dir, "--format", "json", "-o", file)
	fromFile := run(t, nil, "eval", "--transcript", file, "--data", dir)
	if !strings.Contains(fromFile, "turn 5, flagged by a player: Maren should not be awake") || !strings.Contains(fromFile, "clarification rate        1/31") {
		t.Errorf("the transcript's report:\n%s", fromFile)
	}
}
