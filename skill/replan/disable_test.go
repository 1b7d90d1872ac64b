package replan_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/pattern"
	"github.com/hearth-rpg/hearth/skill/plan"
	"github.com/hearth-rpg/hearth/skill/replan"
)

// logSink collects log records for the test to read.
type logSink struct {
	mu   sync.Mutex
	msgs []string
}

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler       { return s }
func (s *logSink) WithGroup(string) slog.Handler            { return s }
func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "skill health changed" {
		return nil
	}
	var from, to string
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "from":
			from = a.Value.String()
		case "to":
			to = a.Value.String()
		}
		return true
	})
	s.mu.Lock()
	s.msgs = append(s.msgs, from+"→"+to)
	s.mu.Unlock()
	return nil
}

// TestAlwaysFailingSkillIsDisabled runs the whole chain with real
// processes and the offline pattern planner: its first plan uses a dice-roller whose
// script always crashes; its health goes healthy → degraded →
// permanentFailure over its retries; the next plan avoids it, and so does
// the next turn of the session.
func TestAlwaysFailingSkillIsDisabled(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("dice-roller/SKILL.md", "---\nname: dice-roller\ndescription: Always crashes.\nmetadata:\n  x-narratoria:\n    retryPolicy: {maxRetries: 8, backoffMs: 0}\n---\n", 0o644)
	write("dice-roller/scripts/roll", "#!/bin/sh\necho attempt >> \"$HEARTH_SKILL_DATA/attempts\"\necho 'the dice fell off the table' >&2\nexit 1\n", 0o755)
	set, warns, err := skill.Discover(dir)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	var health skill.Health
	sink := &logSink{}
	l := &replan.Loop{
		Planner: pattern.Planner{},
		Executor: &plan.Executor{Runner: &plan.SkillRunner{Skills: set, Timeout: time.Minute},
			RetryDefaults: set.RetryPolicy, Logger: slog.New(sink)},
		Skills: set.Summaries(nil),
		Health: &health,
	}
	out := l.Run(t.Context(), replan.Turn{Input: "roll 2d6"})
	if out.Fallback || out.Attempts != 2 {
		t.Fatalf("fallback %v after %d attempts: %+v", out.Fallback, out.Attempts, out.Records)
	}
	if want := []string{"healthy→degraded", "degraded→permanentFailure"}; !reflect.DeepEqual(sink.msgs, want) {
		t.Errorf("transitions %v, want %v", sink.msgs, want)
	}
	first := out.Records[0]
	if first.Outcome != replan.OutcomeFailed || !reflect.DeepEqual(first.Skills, []string{"dice-roller"}) {
		t.Errorf("first attempt %+v", first)
	}
	if !strings.Contains(first.Error, "exited with status 1; stderr: the dice fell off the table") {
		t.Errorf("first attempt error %q", first.Error)
	}
	// Six runs, not nine: retrying stops once the skill has failed for good.
	b, _ := os.ReadFile(filepath.Join(set.Get("dice-roller").DataDir(), "attempts"))
	if n := strings.Count(string(b), "attempt"); n != 6 {
		t.Errorf("the script ran %d times, want 6", n)
	}
	if len(out.Plan.Tools) != 0 || !reflect.DeepEqual(out.Plan.DisabledSkills, []string{"dice-roller"}) || out.Plan.Metadata.ParentPlanID != first.PlanID {
		t.Errorf("second plan %+v", out.Plan)
	}
	if health.State("dice-roller") != skill.PermanentFailure {
		t.Errorf("health %s", health.State("dice-roller"))
	}
	// The next turn of the same session starts with the skill disabled.
	next := l.Run(t.Context(), replan.Turn{Input: "roll 1d20"})
	if next.Attempts != 1 || len(next.Plan.Tools) != 0 || !reflect.DeepEqual(next.Records[0].DisabledSkills, []string{"dice-roller"}) {
		t.Errorf("next turn %+v", next.Records)
	}
	// A new session (a new Health) gives it another chance.
	l.Health = new(skill.Health)
	again := l.Run(t.Context(), replan.Turn{Input: "roll 1d20"})
	if len(again.Records) < 2 || !reflect.DeepEqual(again.Records[0].Skills, []string{"dice-roller"}) {
		t.Errorf("new session %+v", again.Records)
	}
}
