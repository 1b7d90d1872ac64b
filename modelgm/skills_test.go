package modelgm_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/narrative"
	"github.com/hearth-rpg/hearth/narrative/sqlitenarrative"
	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/host"
	"github.com/hearth-rpg/hearth/skill/pattern"
	"github.com/hearth-rpg/hearth/skill/plan"
	"github.com/hearth-rpg/hearth/skill/replan"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

func skillsLoop(t *testing.T, dir string) *replan.Loop {
	t.Helper()
	set, warns, err := skill.Discover(dir)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	// The shipped skills build their Go program on first use, which takes
	// long on a loaded machine: the timeout only guards a hang.
	return &replan.Loop{
		Planner:  pattern.Planner{},
		Executor: &plan.Executor{Runner: &plan.SkillRunner{Skills: set, Timeout: 5 * time.Minute}, RetryDefaults: set.RetryPolicy},
		Skills:   set.Summaries(nil),
		Health:   &skill.Health{},
	}
}

// TestSkillsPipeline plays turns through real skill processes: the
// dice-roller's state patch lands in the world as an effect of the turn,
// and a skill that always fails still ends in a response.
func TestSkillsPipeline(t *testing.T) {
	ctx := context.Background()
	c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := game.New(ctx, st, c, 7, game.Options{Pipeline: &modelgm.Skills{Loop: skillsLoop(t, "../skills")}})
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
	s.UsePipeline(&modelgm.Skills{Loop: skillsLoop(t, broken)})
	r, err = s.Act(ctx, "roll 3d6")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Committed || r.Narrative == "" || strings.Contains(r.Narrative, "tumble") {
		t.Errorf("a failing skill: %+v", r)
	}
}

// TestSkillsReachSharedMemoryThroughTheHost runs the memory and
// npc-perception skills as real processes: they read the playthrough's
// memories and opinions through the host API with the turn's grant, and
// the perception change comes back as a state patch the engine applies.
func TestSkillsReachSharedMemoryThroughTheHost(t *testing.T) {
	ctx := context.Background()
	c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "data")
	st, err := sqlitestore.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mem, err := sqlitenarrative.Open(ctx, filepath.Join(dir, sqlitestore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	srv, err := host.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	loop := skillsLoop(t, "../skills")
	pipeline := &modelgm.Skills{Loop: loop, Host: srv}
	s, err := game.New(ctx, st, c, 7, game.Options{Pipeline: pipeline, Memories: mem})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Remember(ctx, narrative.Event{Playthrough: s.ID(), Turn: 0, Summary: "The lighthouse keeper hid the brass key under the third step.",
		Significance: 8, Kind: narrative.KindEvent}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Act(ctx, "I try to remember where the brass key was hidden")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Narrative, "third step") {
		t.Errorf("the memory skill did not recall through the host:\n%s", r.Narrative)
	}

	before, standing := s.World().Perception("maren"), s.World().Reputation("guild")
	loop.Planner = replan.PlannerFunc(func(ctx context.Context, req replan.Request) (*plan.Plan, error) {
		return &plan.Plan{RequestID: "p-" + req.Input, Narrative: "Maren softens.", Parallel: true, Tools: []plan.Tool{{
			ToolID: "warm", ToolPath: "skills/npc-perception/scripts/adjust", Required: true, Async: true,
			Input: map[string]any{"npc": "maren", "delta": 25.0, "reason": "helped with the nets"}}, {
			ToolID: "guild", ToolPath: "skills/reputation/scripts/adjust", Required: true, Async: true,
			Input: map[string]any{"faction": "guild", "delta": -10.0, "reason": "seen with a stranger"}}},
			Metadata: plan.Metadata{GenerationAttempt: req.Attempt}}, nil
	})
	if _, err := s.Act(ctx, "I help Maren with the nets"); err != nil {
		t.Fatal(err)
	}
	if after := s.World().Perception("maren"); after != min(100, before+25) {
		t.Errorf("perception %d → %d, want +25", before, after)
	}
	if after := s.World().Reputation("guild"); after != max(-100, standing-10) {
		t.Errorf("guild reputation %d → %d, want -10", standing, after)
	}
	// Outside a turn the grant is gone.
	res, err := http.Get(srv.URL() + "/v1/perception/maren")
	if err == nil {
		res.Body.Close()
		if res.StatusCode != 401 {
			t.Errorf("the host answered without a grant: %d", res.StatusCode)
		}
	}
}

// TestNarrativeChoiceBecomesTheResponsesChoices: a plan whose skill emits
// narrative_choice ends the turn with those choices.
func TestNarrativeChoiceBecomesTheResponsesChoices(t *testing.T) {
	ctx := context.Background()
	c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := game.New(ctx, st, c, 7, game.Options{Pipeline: &modelgm.Skills{Loop: skillsLoop(t, "../skills")}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Act(ctx, "talk to whoever is here") // the pattern planner's talk rule runs player-choices
	if err != nil {
		t.Fatal(err)
	}
	if r.Awaiting.Kind != game.Choice || len(r.Awaiting.Options) < 2 {
		t.Errorf("no choices from narrative_choice: %+v\n%s", r.Awaiting, r.Narrative)
	}
}

// TestSkillsLookTurnGoesThroughTheStoryteller plays "look around" with
// the pattern planner and the shipped skills: the storyteller skill runs
// as a real process and its narration, grounded in the campaign's
// description of the place, is the turn's.
func TestSkillsLookTurnGoesThroughTheStoryteller(t *testing.T) {
	ctx := context.Background()
	c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := game.New(ctx, st, c, 7, game.Options{Pipeline: &modelgm.Skills{Loop: skillsLoop(t, "../skills")}})
	if err != nil {
		t.Fatal(err)
	}
	here := s.World().Here()
	if here == nil || here.Description == "" {
		t.Fatal("the campaign's start has no description to ground in")
	}
	r, err := s.Act(ctx, "I look around")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(here.Description), "\n")
	if !strings.Contains(r.Narrative, "You take in "+here.Name) || !strings.Contains(r.Narrative, first) {
		t.Errorf("the storyteller did not narrate %s:\n%s", here.Name, r.Narrative)
	}
}
