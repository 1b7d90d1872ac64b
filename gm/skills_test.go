package gm_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/content"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/gm"
	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/pattern"
	"github.com/hearth-rpg/hearth/skill/plan"
	"github.com/hearth-rpg/hearth/skill/replan"
	"github.com/hearth-rpg/hearth/store/sqlite"
)

func skillsLoop(t *testing.T, dir string) *replan.Loop {
	t.Helper()
	set, warns, err := skill.Discover(dir)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	return &replan.Loop{
		Planner:  pattern.Planner{},
		Executor: &plan.Executor{Runner: &plan.SkillRunner{Skills: set, Timeout: 20 * time.Second}, RetryDefaults: set.RetryPolicy},
		Skills:   set.Summaries(nil),
		Health:   &skill.Health{},
	}
}

// TestSkillsPipeline plays turns through real skill processes: the
// dice-roller's state patch lands in the world as an effect of the turn,
// and a skill that always fails still ends in a response.
func TestSkillsPipeline(t *testing.T) {
	ctx := context.Background()
	c, err := content.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := game.New(ctx, st, c, 7, game.Options{Pipeline: &gm.Skills{Loop: skillsLoop(t, "../skills")}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Act(ctx, "roll 2d6 for the tide")
	if err != nil {
		t.Fatal(err)
	}
	last, _ := s.World().Vars["lastRoll"].(map[string]any)
	if last == nil || last["dice"] != "2d6" {
		t.Fatalf("the roll did not reach the world: %v", s.World().Vars)
	}
	if !r.Committed || r.Narrative == "" {
		t.Errorf("response: %+v", r)
	}
	var patched bool
	for _, e := range r.Effects {
		patched = patched || e.Kind() == "state_patched"
	}
	if !patched {
		t.Errorf("no state_patched effect in the turn: %v", r.Effects)
	}

	broken := t.TempDir()
	os.MkdirAll(filepath.Join(broken, "dice-roller", "scripts"), 0o755)
	os.WriteFile(filepath.Join(broken, "dice-roller", "SKILL.md"), []byte("---\nname: dice-roller\ndescription: Always crashes.\nmetadata:\n  x-narratoria:\n    retryPolicy: {maxRetries: 0, backoffMs: 0}\n---\n"), 0o644)
	os.WriteFile(filepath.Join(broken, "dice-roller", "scripts", "roll"), []byte("#!/bin/sh\nexit 1\n"), 0o755)
	s.UsePipeline(&gm.Skills{Loop: skillsLoop(t, broken)})
	r, err = s.Act(ctx, "roll 3d6")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Committed || r.Narrative == "" || strings.Contains(r.Narrative, "tumble") {
		t.Errorf("a failing skill: %+v", r)
	}
}
