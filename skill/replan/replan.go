package replan

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/plan"
)

// MaxAttempts is the hard limit on plans per turn (seed 001 §2.5).
const MaxAttempts = plan.MaxAttempts

// DefaultGenerateTimeout bounds one plan generation (seed 001 §2.3.1).
const DefaultGenerateTimeout = 5 * time.Second

// Request is what a planner is given (seed 001 §5.4).
type Request struct {
	Input          string
	State          map[string]any  // the session state; a copy the planner may keep
	Skills         []skill.Summary // available skills, with their health
	DisabledSkills []string        // skills the plan must not use
	ParentPlanID   string          // the failed plan this one replaces, or ""
	Attempt        int             // 1 to MaxAttempts
	// LastError says why the previous attempt failed, for a planner that
	// can learn from it (a model); "" on the first attempt.
	LastError string
}

// A Planner generates a plan for a request. A call the loop gave up on
// (past the generation timeout) may still be running when the next starts,
// so a Planner must be safe for concurrent use.
type Planner interface {
	Plan(ctx context.Context, req Request) (*plan.Plan, error)
}

// PlannerFunc is a Planner that is a function.
type PlannerFunc func(ctx context.Context, req Request) (*plan.Plan, error)

// Plan calls f.
func (f PlannerFunc) Plan(ctx context.Context, req Request) (*plan.Plan, error) { return f(ctx, req) }

// Loop runs the replan loop for one turn at a time. Planner and Executor
// are required. A Loop is safe for concurrent use if they are.
type Loop struct {
	Planner  Planner
	Executor *plan.Executor
	// Skills are the skills a planner may choose from; their Health field
	// is filled in from Health.
	Skills []skill.Summary
	// Catalog, when set, is called for each plan instead of reading
	// Skills, so skills added or edited while Hearth runs are offered.
	Catalog func() []skill.Summary
	// Health is the session's skill health, shared with the executor if
	// the executor has none of its own. nil: every skill healthy.
	Health *skill.Health
	// GenerateTimeout bounds each plan generation; 0 means
	// DefaultGenerateTimeout.
	GenerateTimeout time.Duration
	// Fallback narrates when every attempt failed; nil means
	// FallbackNarration.
	Fallback func(input string) string
	// OnRecord, if set, receives every analytics record.
	OnRecord func(Record)
	// Logger receives the records too; nil discards them.
	Logger *slog.Logger
}

// Turn is one player input to answer.
type Turn struct {
	Input string
	State map[string]any
}

// Outcome is the answer to a turn. It always has a narrative or a
// successful plan result.
type Outcome struct {
	Narrative string // the successful plan's narrative, or the fallback narration
	Fallback  bool   // every attempt failed
	Plan      *plan.Plan
	Result    *plan.Result   // the last plan's execution; nil if no plan was executed
	State     map[string]any // the session state after the turn
	Attempts  int
	// DisabledSkills are the skills disabled by the end of the turn.
	DisabledSkills []string
	Records        []Record
}

// Outcomes of a Record.
const (
	OutcomeSuccess      = "success"
	OutcomeFailed       = "failed"        // executed, did not succeed
	OutcomePlannerError = "planner_error" // no plan: the planner failed, panicked or took too long
	OutcomeFallback     = "fallback"      // the turn ended in template narration
)

// Record is one analytics record (seed 001 §2.7): a plan attempt, or the
// fallback that ended a turn.
type Record struct {
	Time           time.Time `json:"timestamp"`
	PlanID         string    `json:"planId,omitempty"`
	ParentPlanID   string    `json:"parentPlanId,omitempty"`
	Attempt        int       `json:"attempt"`
	Input          string    `json:"input"`
	Skills         []string  `json:"skills"` // skills the plan selected
	Tools          []string  `json:"tools"`  // its toolIds
	DisabledSkills []string  `json:"disabledSkills"`
	Outcome        string    `json:"outcome"`
	FailedTools    []string  `json:"failedTools,omitempty"`
	Error          string    `json:"error,omitempty"`
	GenerationMs   int64     `json:"generationMs"`
	ExecutionMs    int64     `json:"executionMs"`
}

// Run answers one turn.
func (l *Loop) Run(ctx context.Context, t Turn) *Outcome {
	out := &Outcome{State: plan.DeepMerge(t.State, nil)}
	ex := *l.Executor
	if ex.Health == nil {
		ex.Health = l.Health
	}
	disabled := map[string]bool{}
	for _, s := range l.Health.Disabled() {
		disabled[s] = true
	}
	var parent, lastErr string
	for attempt := 1; attempt <= MaxAttempts && ctx.Err() == nil; attempt++ {
		out.Attempts = attempt
		req := Request{
			Input: t.Input, State: plan.DeepMerge(t.State, nil), Skills: l.skills(),
			DisabledSkills: sortedKeys(disabled), ParentPlanID: parent, Attempt: attempt, LastError: lastErr,
		}
		rec := Record{Attempt: attempt, Input: clip(t.Input, 500), ParentPlanID: parent, DisabledSkills: req.DisabledSkills}
		genStart := time.Now()
		p, err := l.generate(ctx, req)
		rec.GenerationMs = time.Since(genStart).Milliseconds()
		if err != nil {
			rec.Outcome, rec.Error = OutcomePlannerError, err.Error()
			l.record(out, rec)
			lastErr = "no plan: " + err.Error()
			continue
		}
		if p.RequestID == "" {
			p.RequestID = NewID()
		}
		p.Metadata = plan.Metadata{GenerationAttempt: attempt, ParentPlanID: parent}
		p.DisabledSkills = union(p.DisabledSkills, req.DisabledSkills)
		rec.PlanID = p.RequestID
		for i := range p.Tools {
			rec.Tools = append(rec.Tools, p.Tools[i].ToolID)
			if s := p.Tools[i].Skill(); !slices.Contains(rec.Skills, s) {
				rec.Skills = append(rec.Skills, s)
			}
		}
		res := ex.Execute(ctx, p, t.State)
		out.Plan, out.Result = p, res
		rec.ExecutionMs = res.ExecutionTimeMs
		if res.Success {
			rec.Outcome = OutcomeSuccess
			l.record(out, rec)
			out.Narrative, out.State = p.Narrative, res.AggregatedState
			out.DisabledSkills = sortedKeys(disabled)
			return out
		}
		rec.Outcome, rec.FailedTools, rec.Error = OutcomeFailed, res.FailedTools, failure(res)
		l.record(out, rec)
		l.logger().Warn("plan attempt failed", "attempt", attempt, "plan", p.RequestID, "disabling", res.DisabledSkills)
		lastErr = rec.Error
		parent = p.RequestID
		for _, s := range res.DisabledSkills {
			disabled[s] = true
		}
		if !res.CanReplan {
			break
		}
	}
	fallback := l.Fallback
	if fallback == nil {
		fallback = FallbackNarration
	}
	out.Narrative, out.Fallback = fallback(t.Input), true
	out.DisabledSkills = sortedKeys(disabled)
	l.record(out, Record{Attempt: out.Attempts, Input: clip(t.Input, 500), ParentPlanID: parent,
		DisabledSkills: out.DisabledSkills, Outcome: OutcomeFallback, Error: lastErr})
	return out
}

func (l *Loop) skills() []skill.Summary {
	out := slices.Clone(l.Skills)
	if l.Catalog != nil {
		out = l.Catalog()
	}
	for i := range out {
		out[i].Health = l.Health.State(out[i].Name)
	}
	return out
}

// generate asks the planner for a plan within the generation timeout. A
// planner that panics or ignores its context cannot hold the turn.
func (l *Loop) generate(ctx context.Context, req Request) (*plan.Plan, error) {
	if l.Planner == nil {
		return nil, fmt.Errorf("no planner is configured")
	}
	timeout := l.GenerateTimeout
	if timeout <= 0 {
		timeout = DefaultGenerateTimeout
	}
	gctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		p   *plan.Plan
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				ch <- result{err: fmt.Errorf("the planner panicked: %v", v)}
			}
		}()
		p, err := l.Planner.Plan(gctx, req)
		ch <- result{p, err}
	}()
	select {
	case r := <-ch:
		if r.err == nil && r.p == nil {
			r.err = fmt.Errorf("the planner returned no plan")
		}
		return r.p, r.err
	case <-gctx.Done():
		return nil, fmt.Errorf("plan generation took longer than %v", timeout)
	}
}

func (l *Loop) record(out *Outcome, r Record) {
	r.Time = time.Now()
	out.Records = append(out.Records, r)
	l.logger().Info("skill plan", "outcome", r.Outcome, "attempt", r.Attempt, "plan", r.PlanID, "parent", r.ParentPlanID,
		"skills", r.Skills, "disabledSkills", r.DisabledSkills, "failedTools", r.FailedTools, "error", r.Error,
		"generationMs", r.GenerationMs, "executionMs", r.ExecutionMs)
	if l.OnRecord != nil {
		l.OnRecord(r)
	}
}

func (l *Loop) logger() *slog.Logger {
	if l.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.Logger
}

// failure says in a line why a plan failed.
func failure(res *plan.Result) string {
	if res.Error != nil {
		return res.Error.Message
	}
	var parts []string
	for _, tr := range res.ToolResults {
		if tr.Error != nil && (tr.State == plan.Failed || tr.State == plan.TimedOut) {
			parts = append(parts, fmt.Sprintf("%s (%s): %s", tr.ToolID, tr.Error.Category, tr.Error.Message))
		}
	}
	if len(parts) == 0 {
		return "a required tool did not run"
	}
	return strings.Join(parts, "; ")
}

func union(a, b []string) []string {
	m := map[string]bool{}
	for _, s := range a {
		m[s] = true
	}
	for _, s := range b {
		m[s] = true
	}
	return sortedKeys(m)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// NewID returns a random UUID (version 4), for plan request ids.
func NewID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
