package replan

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/plan"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

func TestMain(m *testing.M) {
	skill.BecomeSubreaper()
	os.Exit(m.Run())
}

// okRunner succeeds with a patch naming the tool; tools whose skill is in
// fail fail.
type okRunner struct{ fail map[string]bool }

func (r okRunner) Run(_ context.Context, c plan.Call) (skill.Result, error) {
	if r.fail[c.Tool.Skill()] {
		return skill.Result{ExitCode: 1}, &skill.Error{Category: skill.ProcessError, Code: skill.CodeExitStatus, Msg: "exited with status 1"}
	}
	done := &protocol.Done{OK: true}
	return skill.Result{Events: []protocol.Event{&protocol.StatePatch{Patch: map[string]any{c.Tool.ToolID: true}}, done}, Done: done}, nil
}

func onePlan(skillName string) PlannerFunc {
	return func(_ context.Context, req Request) (*plan.Plan, error) {
		return &plan.Plan{Narrative: fmt.Sprintf("attempt %d", req.Attempt), Tools: []plan.Tool{{
			ToolID: "t", ToolPath: skill.ToolPath(skillName, "run"), Required: true, RetryPolicy: &skill.RetryPolicy{},
		}}}, nil
	}
}

func TestLoopSucceeds(t *testing.T) {
	var recs []Record
	l := &Loop{Planner: onePlan("fine"), Executor: &plan.Executor{Runner: okRunner{}}, OnRecord: func(r Record) { recs = append(recs, r) }}
	out := l.Run(t.Context(), Turn{Input: "hello", State: map[string]any{"a": 1.0}})
	if out.Fallback || out.Narrative != "attempt 1" || out.Attempts != 1 || !out.Result.Success {
		t.Fatalf("outcome %+v", out)
	}
	if want := map[string]any{"a": 1.0, "t": true}; !reflect.DeepEqual(out.State, want) {
		t.Errorf("state %v, want %v", out.State, want)
	}
	if len(recs) != 1 || recs[0].Outcome != OutcomeSuccess || recs[0].PlanID == "" || !reflect.DeepEqual(recs[0].Skills, []string{"fine"}) {
		t.Errorf("records %+v", recs)
	}
	if out.Plan.Metadata != (plan.Metadata{GenerationAttempt: 1}) {
		t.Errorf("metadata %+v", out.Plan.Metadata)
	}
}

func TestLoopFiveFailuresEndInFallback(t *testing.T) {
	var reqs []Request
	planner := PlannerFunc(func(ctx context.Context, req Request) (*plan.Plan, error) {
		reqs = append(reqs, req)
		return onePlan(fmt.Sprintf("broken-%d", req.Attempt))(ctx, req)
	})
	fail := map[string]bool{}
	for i := 1; i <= 5; i++ {
		fail[fmt.Sprintf("broken-%d", i)] = true
	}
	l := &Loop{Planner: planner, Executor: &plan.Executor{Runner: okRunner{fail: fail}}}
	out := l.Run(t.Context(), Turn{Input: "pick the lock", State: map[string]any{"keep": true}})
	if !out.Fallback || out.Attempts != MaxAttempts || len(reqs) != MaxAttempts {
		t.Fatalf("fallback %v after %d attempts (%d plans)", out.Fallback, out.Attempts, len(reqs))
	}
	if !isTemplate(out.Narrative, "pick the lock") {
		t.Errorf("narrative %q is not a fallback template", out.Narrative)
	}
	if !reflect.DeepEqual(out.State, map[string]any{"keep": true}) {
		t.Errorf("state changed by failed plans: %v", out.State)
	}
	if len(out.Records) != MaxAttempts+1 || out.Records[MaxAttempts].Outcome != OutcomeFallback {
		t.Fatalf("records %+v", out.Records)
	}
	for i, r := range out.Records[:MaxAttempts] {
		if r.Outcome != OutcomeFailed || r.Attempt != i+1 || r.Error == "" {
			t.Errorf("record %d: %+v", i, r)
		}
		if i > 0 && r.ParentPlanID != out.Records[i-1].PlanID {
			t.Errorf("attempt %d's parent %q is not the previous plan %q", i+1, r.ParentPlanID, out.Records[i-1].PlanID)
		}
		if reqs[i].Attempt != i+1 || reqs[i].ParentPlanID != r.ParentPlanID {
			t.Errorf("request %d: %+v", i, reqs[i])
		}
		if want := len(reqs[i].DisabledSkills); want != i {
			t.Errorf("attempt %d had %d disabled skills, want %d (one per failure)", i+1, want, i)
		}
	}
	if !strings.Contains(reqs[1].LastError, "exited with status 1") {
		t.Errorf("the planner was not told why: %q", reqs[1].LastError)
	}
	if len(out.DisabledSkills) != 5 {
		t.Errorf("disabled %v", out.DisabledSkills)
	}
}

func TestLoopAlwaysAnswersAMisbehavingPlanner(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var n atomic.Int32 // a planner abandoned after its timeout still runs beside the next
	planner := PlannerFunc(func(ctx context.Context, req Request) (*plan.Plan, error) {
		n.Add(1)
		switch req.Attempt {
		case 1:
			panic("planner bug")
		case 2:
			return nil, fmt.Errorf("model unavailable")
		case 3:
			return nil, nil
		case 4:
			<-release // ignores its context
			return nil, nil
		}
		return &plan.Plan{Tools: []plan.Tool{{ToolID: "a", ToolPath: "p", Dependencies: []string{"a"}}}}, nil // a cycle
	})
	l := &Loop{Planner: planner, Executor: &plan.Executor{Runner: okRunner{}}, GenerateTimeout: time.Second}
	out := l.Run(t.Context(), Turn{Input: "xyzzy"})
	if !out.Fallback || out.Narrative == "" || n.Load() != 5 {
		t.Fatalf("outcome %+v after %d plans", out, n.Load())
	}
	var outcomes []string
	for _, r := range out.Records {
		outcomes = append(outcomes, r.Outcome)
	}
	want := []string{OutcomePlannerError, OutcomePlannerError, OutcomePlannerError, OutcomePlannerError, OutcomeFailed, OutcomeFallback}
	if !reflect.DeepEqual(outcomes, want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	for i, frag := range []string{"panicked: planner bug", "model unavailable", "returned no plan", "took longer than 1s", "circular dependency"} {
		if !strings.Contains(out.Records[i].Error, frag) {
			t.Errorf("record %d error %q, want %q", i, out.Records[i].Error, frag)
		}
	}
}

func TestLoopCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	out := (&Loop{Planner: onePlan("x"), Executor: &plan.Executor{Runner: okRunner{}}}).Run(ctx, Turn{Input: "hi"})
	if !out.Fallback || out.Narrative == "" || out.Attempts != 0 {
		t.Errorf("outcome %+v", out)
	}
}

func isTemplate(s, input string) bool {
	for _, t := range fallbackTemplates {
		if strings.Contains(t, "%s") && s == fmt.Sprintf(t, input) || s == t {
			return true
		}
	}
	return false
}

func TestFallbackNarration(t *testing.T) {
	seen := map[string]bool{}
	for _, in := range []string{"open the door", "sing", "dance with the bear", "look", "  spaced\n out  ", "a", "b", "c"} {
		got := FallbackNarration(in)
		if got != FallbackNarration(in) {
			t.Errorf("not deterministic for %q", in)
		}
		if !isTemplate(got, strings.Join(strings.Fields(in), " ")) {
			t.Errorf("FallbackNarration(%q) = %q", in, got)
		}
		seen[got[:10]] = true
	}
	if len(seen) < 2 {
		t.Error("every input got the same template")
	}
	if got := FallbackNarration(strings.Repeat("x", 1000)); len([]rune(got)) > 300 {
		t.Errorf("long input not clipped: %d runes", len([]rune(got)))
	}
	if FallbackNarration("") != fallbackTemplates[2] {
		t.Error("empty input")
	}
}
