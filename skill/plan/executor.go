package plan

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"time"

	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// DefaultPlanTimeout bounds a whole plan (seed 001 §2.5).
const DefaultPlanTimeout = 60 * time.Second

// Codes of a plan-level or scheduling error, besides skill's codes.
const (
	CodeInvalidPlan      = "invalid_plan"
	CodeCycle            = "circular_dependency"
	CodeDependencyFailed = "dependency_failed"
	CodePlanTimeout      = "plan_timeout"
	CodeRunnerPanic      = "runner_panic"
)

// A Runner runs one attempt of one tool. SkillRunner runs skill scripts;
// RunnerFunc adapts a function, for tests and benchmarks.
type Runner interface {
	Run(ctx context.Context, c Call) (skill.Result, error)
}

// RunnerFunc is a Runner that is a function.
type RunnerFunc func(ctx context.Context, c Call) (skill.Result, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, c Call) (skill.Result, error) { return f(ctx, c) }

// Call is one attempt of one tool.
type Call struct {
	PlanID  string
	Tool    Tool
	Attempt int                  // 1 for the first try
	Timeout time.Duration        // from the tool's timeoutMs; 0 leaves it to the runner
	OnEvent func(protocol.Event) // to be called with each event as it arrives
}

// Executor runs plans. Only Runner is required; the zero values of the
// other fields give the seed's defaults. An Executor is safe for
// concurrent use if its Runner is.
type Executor struct {
	Runner Runner
	// PlanTimeout bounds a whole plan; 0 means DefaultPlanTimeout.
	PlanTimeout time.Duration
	// MaxConcurrent caps tools running at once in a parallel plan; 0 means
	// runtime.NumCPU().
	MaxConcurrent int
	// Sleep waits between retries; nil means a timer. Tests inject one
	// that records the delays.
	Sleep func(ctx context.Context, d time.Duration) error
	// Health, if set, records every attempt's outcome; tools of skills in
	// permanentFailure are skipped and not retried.
	Health *skill.Health
	// RetryDefaults gives a skill's own retry policy for tools that state
	// none (skill.Set.RetryPolicy); otherwise skill.DefaultRetryPolicy.
	RetryDefaults func(skill string) (skill.RetryPolicy, bool)
	// OnEvent, if set, sees every event of every attempt as it arrives,
	// from the tools' goroutines, for live display. The Result keeps only
	// the last attempt of each tool.
	OnEvent func(ToolEvent)
	// Logger receives the scripts' log events, errors and tool outcomes;
	// nil discards them.
	Logger *slog.Logger

	// planContext bounds a plan's context by PlanTimeout; nil means
	// context.WithTimeout. The package's tests end a plan's time at a
	// point of their choosing, however fast the machine.
	planContext func(context.Context, time.Duration) (context.Context, context.CancelFunc)
}

// stopGrace is how long Execute waits, once the plan is out of time, for
// running tools to return before it gives up on them.
const stopGrace = 2 * time.Second

// Execute runs the plan over the session state and returns its trace. It
// never fails: an invalid or circular plan, a runner that panics, a plan
// out of time all come back as a Result with Success false.
func (e *Executor) Execute(ctx context.Context, p *Plan, state map[string]any) *Result {
	start := time.Now()
	res := &Result{
		PlanID: p.RequestID, AttemptNumber: p.Metadata.GenerationAttempt,
		FailedTools: []string{}, DisabledSkills: []string{}, ToolResults: []ToolResult{}, AggregatedAssets: []AssetRecord{},
	}
	log := e.logger().With("plan", p.RequestID, "attempt", p.Metadata.GenerationAttempt)
	done := func() *Result {
		if res.AggregatedState == nil {
			res.AggregatedState = DeepMerge(state, nil)
		}
		res.CanReplan = !res.Success && ctx.Err() == nil && p.Metadata.GenerationAttempt < MaxAttempts
		res.ExecutionTimeMs = time.Since(start).Milliseconds()
		log.Info("plan executed", "success", res.Success, "failedTools", res.FailedTools, "ms", res.ExecutionTimeMs)
		return res
	}
	if err := p.Validate(); err != nil {
		res.Error = &ErrorInfo{Code: CodeInvalidPlan, Message: err.Error(), Category: skill.InvalidJSON}
		return done()
	}
	order, err := Order(p)
	if err != nil {
		res.Error = &ErrorInfo{Code: CodeCycle, Message: err.Error(), Category: skill.CircularDependency}
		for i := range p.Tools {
			t := &p.Tools[i]
			res.ToolResults = append(res.ToolResults, ToolResult{ToolID: t.ToolID, Skill: t.Skill(), State: Skipped,
				Required: t.Required, Events: []protocol.Event{}, ExitCode: -1, Error: res.Error})
		}
		return done()
	}
	if e.Runner == nil && len(p.Tools) > 0 {
		res.Error = &ErrorInfo{Code: skill.CodeStartFailed, Message: "the executor has no runner", Category: skill.ProcessError}
		return done()
	}
	timeout := e.PlanTimeout
	if timeout <= 0 {
		timeout = DefaultPlanTimeout
	}
	bound := e.planContext
	if bound == nil {
		bound = context.WithTimeout
	}
	pctx, cancel := bound(ctx, timeout)
	defer cancel()
	r := &run{e: e, p: p, ctx: pctx, log: log, order: order}
	r.schedule()
	r.aggregate(res, state)
	if res.Error == nil && pctx.Err() != nil && !res.Success {
		res.Error = &ErrorInfo{Code: CodePlanTimeout, Message: fmt.Sprintf("the plan ran out of time (%v)", timeout), Category: skill.Timeout}
	}
	return done()
}

func (e *Executor) logger() *slog.Logger {
	if e.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Logger
}

// run is the state of one execution.
type run struct {
	e     *Executor
	p     *Plan
	ctx   context.Context
	log   *slog.Logger
	order []int

	results  []ToolResult // by plan index
	status   []status
	blocking []bool // a finished tool whose end stops its dependants
	deps     [][]int
}

type status uint8

const (
	pending status = iota
	running
	finished
)

type outcome struct {
	i  int
	tr ToolResult
}

// schedule starts tools as their dependencies finish, within the plan's
// concurrency rules, until every tool has finished or been skipped.
func (r *run) schedule() {
	n := len(r.p.Tools)
	r.results = make([]ToolResult, n)
	r.status = make([]status, n)
	r.blocking = make([]bool, n)
	r.deps = make([][]int, n)
	for i := range r.p.Tools {
		for _, d := range r.p.Tools[i].Dependencies {
			r.deps[i] = append(r.deps[i], r.p.ToolIndex(d))
		}
	}
	maxRun := r.e.MaxConcurrent
	if maxRun <= 0 {
		maxRun = runtime.NumCPU()
	}
	disabled := map[string]bool{}
	for _, s := range r.p.DisabledSkills {
		disabled[s] = true
	}
	results := make(chan outcome, n) // buffered: a tool abandoned after the grace period never blocks
	var (
		active    int
		exclusive bool // a tool that must run alone is running
		grace     <-chan time.Time
		ctxDone   = r.ctx.Done()
	)
	for {
	pass:
		for _, i := range r.order {
			if r.status[i] != pending {
				continue
			}
			t := &r.p.Tools[i]
			ready, blocker := true, -1
			for _, d := range r.deps[i] {
				if r.status[d] != finished {
					ready = false
					break
				}
				if r.blocking[d] && blocker < 0 {
					blocker = d
				}
			}
			switch {
			case !ready:
				continue
			case blocker >= 0:
				r.skip(i, CodeDependencyFailed, skill.ToolFailure, true,
					fmt.Sprintf("not run: required dependency %q did not succeed", r.p.Tools[blocker].ToolID))
				continue
			case disabled[t.Skill()] || r.e.Health.State(t.Skill()) == skill.PermanentFailure:
				r.skip(i, skill.CodeSkillDisabled, skill.ToolFailure, t.Required,
					fmt.Sprintf("not run: skill %s is disabled", t.Skill()))
				continue
			case r.ctx.Err() != nil:
				r.skip(i, CodePlanTimeout, skill.Timeout, t.Required, "not run: the plan ran out of time")
				continue
			}
			alone := !(r.p.Parallel && t.Async)
			switch {
			case alone && active > 0:
				break pass // it goes next, alone
			case !alone && (exclusive || active >= maxRun):
				continue
			}
			r.status[i] = running
			active++
			exclusive = alone
			go func() { results <- outcome{i, r.runTool(i)} }()
		}
		if active == 0 {
			return
		}
		select {
		case o := <-results:
			r.finish(o.i, o.tr)
			active--
			if active == 0 {
				exclusive = false
			}
		case <-ctxDone:
			ctxDone = nil
			grace = time.After(stopGrace)
		case <-grace:
			for i, s := range r.status {
				if s == running {
					r.finish(i, ToolResult{ToolID: r.p.Tools[i].ToolID, Skill: r.p.Tools[i].Skill(), State: TimedOut,
						Required: r.p.Tools[i].Required, Events: []protocol.Event{}, ExitCode: -1,
						Error: &ErrorInfo{Code: CodePlanTimeout, Message: "did not stop when the plan ran out of time; abandoned", Category: skill.Timeout}})
				}
			}
			return
		}
	}
}

func (r *run) finish(i int, tr ToolResult) {
	r.results[i] = tr
	r.status[i] = finished
	r.blocking[i] = tr.State != Succeeded && r.p.Tools[i].Required
}

func (r *run) skip(i int, code string, cat skill.Category, blocking bool, msg string) {
	t := &r.p.Tools[i]
	r.results[i] = ToolResult{ToolID: t.ToolID, Skill: t.Skill(), State: Skipped, Required: t.Required,
		Events: []protocol.Event{}, ExitCode: -1, Error: &ErrorInfo{Code: code, Message: msg, Category: cat}}
	r.status[i] = finished
	r.blocking[i] = blocking
	r.log.Info("tool skipped", "tool", t.ToolID, "skill", t.Skill(), "reason", msg)
}

// runTool runs a tool with its retries.
func (r *run) runTool(i int) (tr ToolResult) {
	t := r.p.Tools[i]
	name := t.Skill()
	tr = ToolResult{ToolID: t.ToolID, Skill: name, Required: t.Required, Events: []protocol.Event{}, ExitCode: -1, StartedAt: time.Now()}
	defer func() {
		if v := recover(); v != nil {
			tr.State = Failed
			tr.Error = &ErrorInfo{Code: CodeRunnerPanic, Message: fmt.Sprintf("the runner panicked: %v", v), Category: skill.ProcessError}
			r.log.Error("tool runner panicked", "tool", t.ToolID, "panic", v)
		}
		tr.FinishedAt = time.Now()
		tr.ExecutionTimeMs = tr.FinishedAt.Sub(tr.StartedAt).Milliseconds()
	}()
	policy := r.policy(&t)
	log := r.log.With("tool", t.ToolID, "skill", name)
	for attempt := 1; ; attempt++ {
		call := Call{PlanID: r.p.RequestID, Tool: t, Attempt: attempt, Timeout: time.Duration(t.TimeoutMs) * time.Millisecond}
		call.OnEvent = func(ev protocol.Event) {
			r.event(log, ToolEvent{ToolID: t.ToolID, Skill: name, Attempt: attempt, Event: ev})
		}
		res, err := r.e.Runner.Run(r.ctx, call)
		if !canceled(err) { // the caller giving up says nothing about the skill
			if tr := r.e.Health.Record(name, skill.OutcomeOf(err)); tr.From != tr.To {
				log.Info("skill health changed", "from", tr.From, "to", tr.To)
			}
		}
		tr.Events, tr.ExitCode, tr.Stderr = res.Events, res.ExitCode, res.Stderr
		if tr.Events == nil {
			tr.Events = []protocol.Event{}
		}
		if err == nil {
			tr.State, tr.Error = Succeeded, nil
			if res.Done != nil {
				tr.Output = res.Done.Summary
			}
			return tr
		}
		tr.Error = errorInfo(err)
		tr.State = Failed
		if skill.CategoryOf(err) == skill.Timeout {
			tr.State = TimedOut
		}
		log.Warn("tool attempt failed", "attempt", attempt, "code", tr.Error.Code, "category", tr.Error.Category, "error", tr.Error.Message)
		if attempt > policy.MaxRetries || !retryable(err) || r.ctx.Err() != nil || r.e.Health.State(name) == skill.PermanentFailure {
			return tr
		}
		if err := r.sleep(policy.Delay(attempt)); err != nil {
			return tr
		}
		tr.RetryCount++
	}
}

// retryable reports whether trying again could help: not for a script
// that does not exist or a caller that gave up.
func retryable(err error) bool {
	var e *skill.Error
	if errors.As(err, &e) {
		switch e.Code {
		case skill.CodeNotFound, skill.CodeStartFailed, skill.CodeSkillDisabled, skill.CodeCanceled:
			return false
		}
	}
	return true
}

func canceled(err error) bool {
	var e *skill.Error
	return errors.As(err, &e) && e.Code == skill.CodeCanceled
}

func (r *run) policy(t *Tool) skill.RetryPolicy {
	if t.RetryPolicy != nil {
		return *t.RetryPolicy
	}
	if r.e.RetryDefaults != nil {
		if p, ok := r.e.RetryDefaults(t.Skill()); ok {
			return p
		}
	}
	return skill.DefaultRetryPolicy
}

func (r *run) sleep(d time.Duration) error {
	if r.e.Sleep != nil {
		return r.e.Sleep(r.ctx, d)
	}
	if d <= 0 {
		return r.ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.ctx.Done():
		return r.ctx.Err()
	case <-t.C:
		return nil
	}
}

// event hands an event on and logs what should be logged (seed 001
// §2.2.3: log events to the tool panel, errors displayed with context).
func (r *run) event(log *slog.Logger, te ToolEvent) {
	switch ev := te.Event.(type) {
	case *protocol.Log:
		args := []any{"attempt", te.Attempt}
		for _, k := range slices.Sorted(maps.Keys(ev.Fields)) {
			args = append(args, "field."+k, ev.Fields[k])
		}
		log.Log(r.ctx, logLevel(ev.Level), ev.Message, args...)
	case *protocol.ErrorEvent:
		log.Warn("skill reported an error", "attempt", te.Attempt, "errorCode", ev.ErrorCode, "errorMessage", ev.ErrorMessage)
	}
	if r.e.OnEvent != nil {
		r.e.OnEvent(te)
	}
}

func logLevel(l string) slog.Level {
	switch l {
	case protocol.LevelDebug:
		return slog.LevelDebug
	case protocol.LevelWarn:
		return slog.LevelWarn
	case protocol.LevelError:
		return slog.LevelError
	}
	return slog.LevelInfo
}

// aggregate fills the trace from the tools' results, in scheduling order:
// the state patches and assets of the tools that succeeded (a failed
// attempt's patches never reach the state), the failures and the skills to
// disable.
func (r *run) aggregate(res *Result, state map[string]any) {
	res.AggregatedState = DeepMerge(state, nil)
	patch := map[string]any{}
	disable := map[string]bool{}
	res.Success = true
	for _, i := range r.order {
		tr := r.results[i]
		res.ToolResults = append(res.ToolResults, tr)
		if tr.State == Failed || tr.State == TimedOut {
			res.FailedTools = append(res.FailedTools, tr.ToolID)
			disable[tr.Skill] = true
		}
		if tr.State != Succeeded {
			if tr.Required {
				res.Success = false
			}
			continue
		}
		for _, ev := range tr.Events {
			switch ev := ev.(type) {
			case *protocol.StatePatch:
				mergeInto(res.AggregatedState, ev.Patch)
				composeInto(patch, ev.Patch)
			case *protocol.Asset:
				res.AggregatedAssets = append(res.AggregatedAssets, AssetRecord{ToolID: tr.ToolID, Skill: tr.Skill,
					AssetID: ev.AssetID, Kind: ev.Kind, MediaType: ev.MediaType, Path: ev.Path, Metadata: ev.Metadata})
			}
		}
	}
	for _, s := range r.e.Health.Disabled() {
		disable[s] = true
	}
	res.DisabledSkills = slices.Sorted(maps.Keys(disable))
	if len(patch) > 0 {
		res.MergedPatch = patch
	}
}
