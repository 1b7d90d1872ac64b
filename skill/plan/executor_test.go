package plan

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// fake is an in-process Runner: each tool id maps to a behaviour.
type fake struct {
	mu     sync.Mutex
	calls  []string // "toolId#attempt" in call order
	active int
	peak   int
	do     map[string]func(ctx context.Context, c Call) (skill.Result, error)
}

func (f *fake) Run(ctx context.Context, c Call) (skill.Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, c.Tool.ToolID)
	f.active++
	f.peak = max(f.peak, f.active)
	do := f.do[c.Tool.ToolID]
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.active--; f.mu.Unlock() }()
	if do == nil {
		return ok(c)
	}
	return do(ctx, c)
}

// ok is a successful attempt that emits one state patch naming the tool.
func ok(c Call, extra ...protocol.Event) (skill.Result, error) {
	evs := append([]protocol.Event{&protocol.StatePatch{Patch: map[string]any{"ran": map[string]any{c.Tool.ToolID: true}}}}, extra...)
	done := &protocol.Done{OK: true, Summary: c.Tool.ToolID + " done"}
	for _, e := range evs {
		if c.OnEvent != nil {
			c.OnEvent(e)
		}
	}
	return skill.Result{Events: append(evs, done), Done: done, ExitCode: 0}, nil
}

func failing(code string) func(context.Context, Call) (skill.Result, error) {
	return func(_ context.Context, c Call) (skill.Result, error) {
		patch := &protocol.StatePatch{Patch: map[string]any{"failedPatch": c.Tool.ToolID}}
		done := &protocol.Done{OK: false}
		return skill.Result{Events: []protocol.Event{patch, done}, Done: done, ExitCode: 0},
			&skill.Error{Category: skill.ToolFailure, Code: code, Msg: "no"}
	}
}

func newPlan(parallel bool, ts ...Tool) *Plan {
	for i := range ts {
		if ts[i].ToolPath == "" {
			ts[i].ToolPath = "skills/" + strings.ToLower(ts[i].ToolID) + "/scripts/run"
		}
	}
	return &Plan{RequestID: "plan-1", Tools: ts, Parallel: parallel, Metadata: Metadata{GenerationAttempt: 1}}
}

func req(id string, deps ...string) Tool {
	return Tool{ToolID: id, Dependencies: deps, Required: true, RetryPolicy: &skill.RetryPolicy{}}
}

func async(t Tool) Tool { t.Async = true; return t }

func states(r *Result) map[string]ToolState {
	m := map[string]ToolState{}
	for _, tr := range r.ToolResults {
		m[tr.ToolID] = tr.State
	}
	return m
}

// rendezvous makes two tools wait for each other: each succeeds only if
// the other is running at the same time. Run one after the other, the
// first would wait for a partner that never comes, and fail when the test
// context's guard expires.
type rendezvous struct {
	mu      sync.Mutex
	arrived map[string]chan struct{}
}

func (rv *rendezvous) meet(ctx context.Context, self, peer string) bool {
	rv.mu.Lock()
	ch := func(id string) chan struct{} {
		if rv.arrived[id] == nil {
			rv.arrived[id] = make(chan struct{})
		}
		return rv.arrived[id]
	}
	close(ch(self))
	other := ch(peer)
	rv.mu.Unlock()
	guard, cancel := context.WithTimeout(ctx, 5*time.Second) // a deadlock guard, not a timing assertion
	defer cancel()
	select {
	case <-other:
		return true
	case <-guard.Done():
		return false
	}
}

func TestExecuteDiamondRunsInOrderAndInParallel(t *testing.T) {
	var (
		mu  sync.Mutex
		log []string
	)
	note := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	rv := &rendezvous{arrived: map[string]chan struct{}{}}
	step := func(peer string) func(context.Context, Call) (skill.Result, error) {
		return func(ctx context.Context, c Call) (skill.Result, error) {
			note("start " + c.Tool.ToolID)
			if peer != "" && !rv.meet(ctx, c.Tool.ToolID, peer) {
				return skill.Result{}, &skill.Error{Category: skill.ToolFailure, Code: "alone", Msg: c.Tool.ToolID + " ran alone"}
			}
			note("end " + c.Tool.ToolID)
			return ok(c)
		}
	}
	f := &fake{do: map[string]func(context.Context, Call) (skill.Result, error){
		"A": step(""), "B": step("C"), "C": step("B"), "D": step(""),
	}}
	e := &Executor{Runner: f, MaxConcurrent: 2}
	p := newPlan(true, req("A"), async(req("B", "A")), async(req("C", "A")), req("D", "B", "C"))
	res := e.Execute(t.Context(), p, nil)
	if !res.Success {
		t.Fatalf("plan failed: %+v", res.ToolResults)
	}
	pos := map[string]int{}
	for i, s := range log {
		pos[s] = i
	}
	for _, before := range [][2]string{
		{"end A", "start B"}, {"end A", "start C"}, {"end B", "start D"}, {"end C", "start D"},
		{"start B", "end C"}, {"start C", "end B"}, // B and C overlapped
	} {
		if pos[before[0]] >= pos[before[1]] {
			t.Errorf("%q did not come before %q: %v", before[0], before[1], log)
		}
	}
	if got := []string{res.ToolResults[0].ToolID, res.ToolResults[3].ToolID}; !reflect.DeepEqual(got, []string{"A", "D"}) {
		t.Errorf("tool results not in dependency order: %v", got)
	}
	if want := map[string]any{"ran": map[string]any{"A": true, "B": true, "C": true, "D": true}}; !reflect.DeepEqual(res.AggregatedState, want) {
		t.Errorf("state = %v", res.AggregatedState)
	}
}

func TestExecuteSequentialUnlessParallelAndAsync(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    *Plan
	}{
		{"parallel false", newPlan(false, req("A"), async(req("B", "A")), async(req("C", "A")), req("D", "B", "C"))},
		{"async false", newPlan(true, req("A"), req("B", "A"), req("C", "A"), req("D", "B", "C"))},
		{"one async among exclusive", newPlan(true, async(req("A")), req("B"), async(req("C")))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{}
			res := (&Executor{Runner: f, MaxConcurrent: 4}).Execute(t.Context(), tt.p, nil)
			if !res.Success || f.peak != 1 {
				t.Errorf("success %v, peak concurrency %d; want 1", res.Success, f.peak)
			}
		})
	}
}

func TestExecuteCapsConcurrency(t *testing.T) {
	var ts []Tool
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		ts = append(ts, async(req(id)))
	}
	f := &fake{}
	res := (&Executor{Runner: f, MaxConcurrent: 2}).Execute(t.Context(), newPlan(true, ts...), nil)
	if !res.Success || len(f.calls) != 6 || f.peak > 2 {
		t.Errorf("success %v, %d calls, peak %d; want 6 calls, peak ≤ 2", res.Success, len(f.calls), f.peak)
	}
}

func TestExecuteRequiredFailureSkipsDependants(t *testing.T) {
	f := &fake{do: map[string]func(context.Context, Call) (skill.Result, error){
		"A": failing("BROKEN"), "F": failing("FLAKY"),
	}}
	optional := req("F")
	optional.Required = false
	p := newPlan(false,
		req("A"), req("B", "A"), req("C", "B"), // A fails: B and C must not run
		req("D"),                // independent: runs
		optional, req("E", "F"), // F is optional: E runs anyway
		req("G", "D"),
	)
	res := (&Executor{Runner: f}).Execute(t.Context(), p, map[string]any{"before": 1.0})
	want := map[string]ToolState{"A": Failed, "B": Skipped, "C": Skipped, "D": Succeeded, "F": Failed, "E": Succeeded, "G": Succeeded}
	if got := states(res); !reflect.DeepEqual(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
	if res.Success || !res.CanReplan {
		t.Errorf("success %v canReplan %v; want false, true", res.Success, res.CanReplan)
	}
	if !reflect.DeepEqual(res.FailedTools, []string{"A", "F"}) || !reflect.DeepEqual(res.DisabledSkills, []string{"a", "f"}) {
		t.Errorf("failedTools %v disabledSkills %v", res.FailedTools, res.DisabledSkills)
	}
	if e := res.Tool("B").Error; e == nil || e.Code != CodeDependencyFailed || !strings.Contains(e.Message, `"A"`) {
		t.Errorf("B's error = %+v", e)
	}
	if e := res.Tool("C").Error; e == nil || e.Code != CodeDependencyFailed {
		t.Errorf("C's error = %+v", e)
	}
	if e := res.Tool("A").Error; e == nil || e.Code != "BROKEN" || e.Category != skill.ToolFailure {
		t.Errorf("A's error = %+v", e)
	}
	if strings.Contains(strings.Join(f.calls, ","), "B") || strings.Contains(strings.Join(f.calls, ","), "C") {
		t.Errorf("a skipped tool ran: %v", f.calls)
	}
	// Failed attempts' patches never reach the state.
	wantState := map[string]any{"before": 1.0, "ran": map[string]any{"D": true, "E": true, "G": true}}
	if !reflect.DeepEqual(res.AggregatedState, wantState) {
		t.Errorf("state %v, want %v", res.AggregatedState, wantState)
	}
}

func TestExecuteOptionalFailureStillSucceeds(t *testing.T) {
	f := &fake{do: map[string]func(context.Context, Call) (skill.Result, error){"opt": failing("X")}}
	opt := req("opt")
	opt.Required = false
	res := (&Executor{Runner: f}).Execute(t.Context(), newPlan(false, opt, req("main", "opt")), nil)
	if !res.Success || res.CanReplan || !reflect.DeepEqual(res.FailedTools, []string{"opt"}) {
		t.Errorf("success %v canReplan %v failed %v", res.Success, res.CanReplan, res.FailedTools)
	}
}

func TestExecuteRetriesWithBackoff(t *testing.T) {
	tests := []struct {
		name      string
		policy    *skill.RetryPolicy
		defaults  map[string]skill.RetryPolicy
		failFirst int
		code      string
		want      []time.Duration
		state     ToolState
	}{
		{"seed example", &skill.RetryPolicy{MaxRetries: 3, BackoffMs: 100}, nil, 3, "X",
			[]time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}, Succeeded},
		{"exhausted", &skill.RetryPolicy{MaxRetries: 2, BackoffMs: 50}, nil, 99, "X",
			[]time.Duration{50 * time.Millisecond, 100 * time.Millisecond}, Failed},
		{"default policy", nil, nil, 99, "X",
			[]time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}, Failed},
		{"skill's own policy", nil, map[string]skill.RetryPolicy{"a": {MaxRetries: 1, BackoffMs: 7}}, 99, "X",
			[]time.Duration{7 * time.Millisecond}, Failed},
		{"not retried: missing script", &skill.RetryPolicy{MaxRetries: 3, BackoffMs: 100}, nil, 99, skill.CodeNotFound, nil, Failed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var slept []time.Duration
			n := 0
			f := &fake{do: map[string]func(context.Context, Call) (skill.Result, error){"a": func(ctx context.Context, c Call) (skill.Result, error) {
				if n++; n <= tt.failFirst {
					if c.Attempt != n {
						t.Errorf("attempt %d reported as %d", n, c.Attempt)
					}
					return failing(tt.code)(ctx, c)
				}
				return ok(c)
			}}}
			e := &Executor{Runner: f, Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
			if tt.defaults != nil {
				e.RetryDefaults = func(s string) (skill.RetryPolicy, bool) { p, ok := tt.defaults[s]; return p, ok }
			}
			tool := req("a")
			tool.RetryPolicy = tt.policy
			res := e.Execute(t.Context(), newPlan(false, tool), nil)
			if !reflect.DeepEqual(slept, tt.want) {
				t.Errorf("delays %v, want %v", slept, tt.want)
			}
			tr := res.Tool("a")
			if tr.State != tt.state || tr.RetryCount != len(tt.want) {
				t.Errorf("state %s retries %d; want %s, %d", tr.State, tr.RetryCount, tt.state, len(tt.want))
			}
		})
	}
}

func TestExecuteRejectsCycles(t *testing.T) {
	f := &fake{}
	p := newPlan(false, req("A", "C"), req("B", "A"), req("C", "B"), req("free"))
	res := (&Executor{Runner: f}).Execute(t.Context(), p, map[string]any{"x": 1.0})
	if res.Success || !res.CanReplan || res.Error == nil || res.Error.Category != skill.CircularDependency {
		t.Fatalf("result %+v", res)
	}
	for _, m := range []string{"A", "B", "C"} {
		if !strings.Contains(res.Error.Message, m) {
			t.Errorf("message %q does not name %s", res.Error.Message, m)
		}
	}
	if strings.Contains(res.Error.Message, "free") || len(f.calls) != 0 {
		t.Errorf("message %q names a tool outside the cycle, or tools ran: %v", res.Error.Message, f.calls)
	}
	if res.AggregatedState["x"] != 1.0 {
		t.Errorf("state lost: %v", res.AggregatedState)
	}
}

func TestExecuteInvalidPlan(t *testing.T) {
	res := (&Executor{Runner: &fake{}}).Execute(t.Context(), newPlan(false, req("A", "missing")), nil)
	if res.Success || !res.CanReplan || res.Error == nil || res.Error.Code != CodeInvalidPlan || res.Error.Category != skill.InvalidJSON {
		t.Errorf("result error %+v", res.Error)
	}
	p := newPlan(false, req("A"))
	p.Metadata.GenerationAttempt = MaxAttempts
	p.Tools[0].Dependencies = []string{"nope"}
	if res := (&Executor{Runner: &fake{}}).Execute(t.Context(), p, nil); res.CanReplan {
		t.Error("canReplan on the last attempt")
	}
}

func TestExecuteAggregates(t *testing.T) {
	f := &fake{do: map[string]func(context.Context, Call) (skill.Result, error){
		"first": func(_ context.Context, c Call) (skill.Result, error) {
			return ok(c, &protocol.StatePatch{Patch: map[string]any{"player": map[string]any{"hp": 10.0, "gold": 5.0}}},
				&protocol.Log{Level: "info", Message: "hello", Fields: map[string]any{"k": 1}},
				&protocol.Asset{AssetID: "map", Kind: "image", MediaType: "image/png", Path: "/data/map.png"})
		},
		"second": func(_ context.Context, c Call) (skill.Result, error) {
			return ok(c, &protocol.StatePatch{Patch: map[string]any{"player": map[string]any{"gold": nil, "hp": 7.0}}},
				&protocol.UIEvent{Event: protocol.NarrativeChoice, Payload: map[string]any{"choices": []any{"Run"}}},
				&protocol.ErrorEvent{ErrorCode: "W", ErrorMessage: "minor"})
		},
	}}
	var streamed []string
	var mu sync.Mutex
	e := &Executor{Runner: f, OnEvent: func(te ToolEvent) {
		mu.Lock()
		streamed = append(streamed, te.ToolID+":"+string(te.Event.Type()))
		mu.Unlock()
	}}
	res := e.Execute(t.Context(), newPlan(false, req("second", "first"), req("first")), map[string]any{"player": map[string]any{"name": "Aria", "gold": 1.0}})
	wantState := map[string]any{"player": map[string]any{"name": "Aria", "hp": 7.0}, "ran": map[string]any{"first": true, "second": true}}
	if !reflect.DeepEqual(res.AggregatedState, wantState) {
		t.Errorf("state %v, want %v", res.AggregatedState, wantState)
	}
	wantPatch := map[string]any{"player": map[string]any{"hp": 7.0, "gold": nil}, "ran": map[string]any{"first": true, "second": true}}
	if !reflect.DeepEqual(res.MergedPatch, wantPatch) {
		t.Errorf("merged patch %v, want %v", res.MergedPatch, wantPatch)
	}
	if want := []AssetRecord{{ToolID: "first", Skill: "first", AssetID: "map", Kind: "image", MediaType: "image/png", Path: "/data/map.png"}}; !reflect.DeepEqual(res.AggregatedAssets, want) {
		t.Errorf("assets %+v", res.AggregatedAssets)
	}
	if u := res.UIEvents(); len(u) != 1 || u[0].Event != protocol.NarrativeChoice {
		t.Errorf("ui events %v", u)
	}
	var order []string
	for _, te := range res.Events() {
		order = append(order, te.ToolID+":"+string(te.Event.Type()))
	}
	want := []string{"first:state_patch", "first:state_patch", "first:log", "first:asset", "first:done",
		"second:state_patch", "second:state_patch", "second:ui_event", "second:error", "second:done"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("events %v\nwant %v", order, want)
	}
	if len(streamed) != 8 {
		t.Errorf("OnEvent saw %v", streamed)
	}
	if res.Tool("first").Output != "first done" {
		t.Errorf("output %q", res.Tool("first").Output)
	}
}

func TestExecutePlanTimeout(t *testing.T) {
	// slow ends the plan's time itself once it runs, then waits for the
	// context to end as a real script is killed when the plan's time is
	// up: the time runs out while slow runs however fast the machine.
	var expire context.CancelFunc
	var bound time.Duration
	f := &fake{do: map[string]func(context.Context, Call) (skill.Result, error){
		"slow": func(ctx context.Context, c Call) (skill.Result, error) {
			expire()
			<-ctx.Done()
			return skill.Result{ExitCode: -1}, &skill.Error{Category: skill.Timeout, Code: skill.CodeTimeout, Msg: "killed"}
		},
	}}
	e := &Executor{Runner: f, PlanTimeout: 90 * time.Second,
		planContext: func(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
			bound = d
			ctx, expire = context.WithCancel(ctx)
			return ctx, expire
		}}
	res := e.Execute(t.Context(), newPlan(false, req("slow"), req("after", "slow"), req("later")), nil)
	want := map[string]ToolState{"slow": TimedOut, "after": Skipped, "later": Skipped}
	if got := states(res); !reflect.DeepEqual(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
	if bound != 90*time.Second {
		t.Errorf("the plan was bounded by %v, want its PlanTimeout", bound)
	}
	if res.Error == nil || res.Error.Code != CodePlanTimeout || res.Error.Category != skill.Timeout || !strings.Contains(res.Error.Message, "1m30s") {
		t.Errorf("plan error %+v", res.Error)
	}
	if e := res.Tool("later").Error; e == nil || e.Code != CodePlanTimeout {
		t.Errorf("later's error %+v", e)
	}
}

// With the real timer the plan still ends by its PlanTimeout: its one
// tool waits for nothing else, so whether it started before the time ran
// out (timed out) or not (skipped) is the machine's; the plan's error is
// not.
func TestExecutePlanTimeoutByTheClock(t *testing.T) {
	f := &fake{do: map[string]func(context.Context, Call) (skill.Result, error){
		"slow": func(ctx context.Context, c Call) (skill.Result, error) {
			<-ctx.Done()
			return skill.Result{ExitCode: -1}, &skill.Error{Category: skill.Timeout, Code: skill.CodeTimeout, Msg: "killed"}
		},
	}}
	res := (&Executor{Runner: f, PlanTimeout: 50 * time.Millisecond}).Execute(t.Context(), newPlan(false, req("slow")), nil)
	if s := res.Tool("slow").State; s != TimedOut && s != Skipped {
		t.Errorf("slow %s, want timeout or skipped", s)
	}
	if res.Success || res.Error == nil || res.Error.Code != CodePlanTimeout || !strings.Contains(res.Error.Message, "50ms") {
		t.Errorf("success %v, plan error %+v", res.Success, res.Error)
	}
}

func TestExecuteSkipsDisabledSkills(t *testing.T) {
	var h skill.Health
	for range 6 {
		h.Record("broken", skill.Failure)
	}
	f := &fake{}
	p := newPlan(false,
		Tool{ToolID: "x", ToolPath: "skills/broken/scripts/run", Required: true},
		Tool{ToolID: "y", ToolPath: "skills/off/scripts/run", Required: false},
		Tool{ToolID: "z", ToolPath: "skills/fine/scripts/run", Required: true, Dependencies: []string{"y"}})
	p.DisabledSkills = []string{"off"}
	res := (&Executor{Runner: f, Health: &h}).Execute(t.Context(), p, nil)
	want := map[string]ToolState{"x": Skipped, "y": Skipped, "z": Succeeded}
	if got := states(res); !reflect.DeepEqual(got, want) || len(f.calls) != 1 {
		t.Errorf("states %v calls %v; want %v and only z run", got, f.calls, want)
	}
	if res.Success || !reflect.DeepEqual(res.DisabledSkills, []string{"broken"}) {
		t.Errorf("success %v disabled %v", res.Success, res.DisabledSkills)
	}
}

func TestExecuteRecordsHealthAndStopsRetryingAPermanentFailure(t *testing.T) {
	var h skill.Health
	f := &fake{do: map[string]func(context.Context, Call) (skill.Result, error){"a": failing("X")}}
	tool := req("a")
	tool.RetryPolicy = &skill.RetryPolicy{MaxRetries: 10}
	res := (&Executor{Runner: f, Health: &h}).Execute(t.Context(), newPlan(false, tool), nil)
	// healthy → degraded after 3, → permanentFailure after 3 more: 6 attempts, not 11.
	if len(f.calls) != 6 || h.State("a") != skill.PermanentFailure || res.Tool("a").RetryCount != 5 {
		t.Errorf("%d attempts, state %s, retries %d; want 6, permanentFailure, 5", len(f.calls), h.State("a"), res.Tool("a").RetryCount)
	}
}

func TestExecuteSurvivesARunnerPanic(t *testing.T) {
	f := &fake{do: map[string]func(context.Context, Call) (skill.Result, error){
		"boom": func(context.Context, Call) (skill.Result, error) { panic("kaboom") },
	}}
	res := (&Executor{Runner: f}).Execute(t.Context(), newPlan(false, req("boom"), req("other")), nil)
	if tr := res.Tool("boom"); tr.State != Failed || tr.Error.Code != CodeRunnerPanic {
		t.Errorf("boom = %+v", tr)
	}
	if res.Tool("other").State != Succeeded {
		t.Error("an independent tool did not run after a panic")
	}
}

func TestExecuteWithoutRunner(t *testing.T) {
	res := (&Executor{}).Execute(t.Context(), newPlan(false, req("a")), nil)
	if res.Success || res.Error == nil {
		t.Errorf("result %+v", res)
	}
	if res := (&Executor{}).Execute(t.Context(), newPlan(false), nil); !res.Success {
		t.Error("a narration-only plan needs no runner but failed")
	}
}
