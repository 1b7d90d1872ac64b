package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/cassette"
)

// recorder collects events.
type recorder struct {
	mu  sync.Mutex
	all []agent.Event
	ch  chan agent.Event
}

func newRecorder() *recorder { return &recorder{ch: make(chan agent.Event, 100)} }

func (r *recorder) sink(e agent.Event) {
	r.mu.Lock()
	r.all = append(r.all, e)
	r.mu.Unlock()
	r.ch <- e
}

func (r *recorder) types() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.all {
		out = append(out, e.Type)
	}
	return out
}

// waitFor returns the next event of type typ.
func (r *recorder) waitFor(t *testing.T, typ string) agent.Event {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e := <-r.ch:
			if e.Type == typ {
				return e
			}
		case <-timeout:
			t.Fatalf("no %s event; got %v", typ, r.types())
		}
	}
}

// auto answers pauses from a list and external tools from a map.
type auto struct {
	decisions []agent.Decision
	results   map[string]string
	pauses    int
}

func (a *auto) ToolResult(ctx context.Context, call llm.ToolCall) (string, error) {
	if r, ok := a.results[call.Name]; ok {
		return r, nil
	}
	<-ctx.Done()
	return "", ctx.Err()
}

func (a *auto) Pause(ctx context.Context, _ agent.Event) (agent.Decision, error) {
	a.pauses++
	if len(a.decisions) == 0 {
		return agent.Cancel, nil
	}
	d := a.decisions[0]
	a.decisions = a.decisions[1:]
	return d, nil
}

func lookupTool(calls *int) agent.Tool {
	return agent.Tool{
		Tool:   llm.Tool{Name: "lookup", Description: "look a word up", Parameters: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"}}}`)},
		Status: "Looking it up…",
		Run: func(ctx context.Context, args json.RawMessage) (agent.Result, error) {
			*calls++
			var a struct{ Word string }
			if err := json.Unmarshal(args, &a); err != nil {
				return agent.Result{}, err
			}
			if a.Word == "" {
				return agent.Result{}, errors.New("word is required")
			}
			return agent.Result{Content: "definition of " + a.Word}, nil
		},
	}
}

func TestInternalToolsThenAnswer(t *testing.T) {
	model := cassette.Script(
		cassette.Calls("lookup", `{"word":"lantern"}`, "nosuch", `{}`),
		cassette.Calls("lookup", `{}`),
		cassette.Text("A lantern ", "is a light."),
	)
	var ran int
	loop := &agent.Loop{Provider: model, Tools: []agent.Tool{lookupTool(&ran)}}
	rec := newRecorder()
	out, err := loop.Run(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "what is a lantern?"}}}, &auto{}, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != "A lantern is a light." || out.ToolCalls != 3 || ran != 2 {
		t.Fatalf("outcome: text %q, %d calls, %d runs", out.Text, out.ToolCalls, ran)
	}
	want := []string{"tool_status", "tool_result", "tool_status", "tool_result", "content", "content", "done"}
	if got := rec.types(); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	// The model saw each tool's result, the unknown tool named with the real ones, and the error.
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls", len(reqs))
	}
	msgs := reqs[1].Messages
	if got := msgs[len(msgs)-2].Content; got != "definition of lantern" {
		t.Errorf("tool result %q", got)
	}
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, `no tool "nosuch"`) || !strings.Contains(got, "lookup") {
		t.Errorf("unknown tool answer %q", got)
	}
	// The second step's call_1 collides with the first step's, so it is
	// renamed to the next free id: ids stay unique in the conversation.
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if last.Role != llm.ToolRole || last.Content != "error: word is required" || last.ToolCallID != "call_3" {
		t.Errorf("error result %+v", last)
	}
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Name != "lookup" {
		t.Errorf("tools offered %+v", reqs[0].Tools)
	}
	if out.Usage.PromptTokens != 300 {
		t.Errorf("usage %+v", out.Usage)
	}
}

func TestExternalToolThroughRun(t *testing.T) {
	// Two calls in turn: while the run waits for the second, a second
	// result for the first is refused as unknown. (With one call the run
	// could finish first, and refuse it as finished.)
	model := cassette.Script(
		cassette.Calls("fvtt_read", `{"actor":"ship"}`),
		cassette.Calls("fvtt_read", `{"actor":"crew"}`),
		cassette.Text("The jump drive is damaged."),
	)
	loop := &agent.Loop{Provider: model, Tools: []agent.Tool{{Tool: llm.Tool{Name: "fvtt_read"}, External: true}}}
	rec := newRecorder()
	run := loop.Start(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "ship?"}}}, rec.sink)
	call := rec.waitFor(t, agent.ToolCall)
	if call.Tool != "fvtt_read" || string(call.Args) != `{"actor":"ship"}` {
		t.Fatalf("tool_call %+v", call)
	}
	if err := run.Deliver("wrong", "{}"); !errors.Is(err, agent.ErrUnknownCall) {
		t.Fatalf("Deliver(wrong id) = %v", err)
	}
	if err := run.Decide(agent.Continue); !errors.Is(err, agent.ErrNotPaused) {
		t.Fatalf("Decide while not paused = %v", err)
	}
	if err := run.Deliver(call.ID, `{"jump_drive":"damaged"}`); err != nil {
		t.Fatal(err)
	}
	next := rec.waitFor(t, agent.ToolCall)
	if next.ID == call.ID || string(next.Args) != `{"actor":"crew"}` {
		t.Fatalf("second tool_call %+v after %+v", next, call)
	}
	if err := run.Deliver(call.ID, `{}`); !errors.Is(err, agent.ErrUnknownCall) {
		t.Fatalf("second Deliver = %v", err)
	}
	if err := run.Deliver(next.ID, `{"crew":"asleep"}`); err != nil {
		t.Fatal(err)
	}
	out, err := run.Wait()
	if err != nil || out.Text != "The jump drive is damaged." {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	if got := model.Requests()[1].Messages[2]; got.Content != `{"jump_drive":"damaged"}` || got.ToolCallID != call.ID {
		t.Fatalf("model saw %+v", got)
	}
	if err := run.Deliver(call.ID, "{}"); !errors.Is(err, agent.ErrFinished) {
		t.Fatalf("Deliver after the end = %v", err)
	}
}

// A client answers the moment it reads an event — here, before the sink
// even returns. The run must already be waiting for that answer.
func TestAnswerBeforeTheEventIsHandled(t *testing.T) {
	model := cassette.Script(
		cassette.Calls("fvtt_read", `{}`),
		cassette.Text("Read."),
		cassette.Text("never"),
	)
	loop := &agent.Loop{Provider: model, Tools: []agent.Tool{{Tool: llm.Tool{Name: "fvtt_read"}, External: true}},
		Config: agent.Config{PauseAfterCalls: 1}}
	ready := make(chan *agent.Run)
	var run *agent.Run
	errs := make(chan error, 4)
	sink := func(e agent.Event) {
		if run == nil && (e.Type == agent.ToolCall || e.Type == agent.Pause) {
			run = <-ready
		}
		switch e.Type {
		case agent.ToolCall:
			errs <- run.Deliver(e.ID, `{"ok":true}`)
		case agent.Pause:
			errs <- run.Decide(agent.Continue)
		}
	}
	r := loop.Start(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "?"}}}, sink)
	ready <- r
	out, err := r.Wait()
	close(errs)
	for e := range errs {
		if e != nil {
			t.Errorf("answer from the sink: %v", e)
		}
	}
	if err != nil || out.Text != "Read." {
		t.Fatalf("outcome %+v, %v", out, err)
	}
}

func TestExternalToolTimeout(t *testing.T) {
	model := cassette.Script(cassette.Calls("dice_roll", `{"formula":"1d20"}`), cassette.Text("I could not roll."))
	loop := &agent.Loop{Provider: model, Tools: []agent.Tool{{Tool: llm.Tool{Name: "dice_roll"}, External: true}},
		Config: agent.Config{ExternalToolTimeout: 20 * time.Millisecond}}
	rec := newRecorder()
	out, err := loop.Run(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "roll"}}}, &auto{}, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.types(); !slices.Equal(got, []string{"tool_call", "error", "content", "done"}) {
		t.Fatalf("events %v", got)
	}
	if e := rec.all[1]; !e.Recoverable || !strings.Contains(e.Message, "within 20ms") {
		t.Fatalf("error event %+v", e)
	}
	if out.Text != "I could not roll." {
		t.Fatalf("text %q", out.Text)
	}
}

func TestPauseContinueThenCancel(t *testing.T) {
	var script []cassette.Interaction
	for i := range 6 {
		script = append(script, cassette.Interaction{Op: "chat", Chunks: []llm.Chunk{{Content: fmt.Sprintf("step %d. ", i)}},
			Response: &llm.Response{Message: llm.Message{Content: fmt.Sprintf("step %d. ", i),
				ToolCalls: []llm.ToolCall{{Name: "lookup", Arguments: json.RawMessage(`{"word":"x"}`)}}}}})
	}
	var ran int
	loop := &agent.Loop{Provider: cassette.Script(script...), Tools: []agent.Tool{lookupTool(&ran)},
		Config: agent.Config{PauseAfterCalls: 2, Subject: "Seneschal"}}
	rec := newRecorder()
	ctl := &auto{decisions: []agent.Decision{agent.Continue, agent.Cancel}}
	out, err := loop.Run(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "go"}}}, ctl, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if ctl.pauses != 2 || !out.Cancelled || out.ToolCalls != 4 || ran != 4 {
		t.Fatalf("pauses %d, outcome %+v", ctl.pauses, out)
	}
	// What was said before the cancel is kept.
	if out.Text != "step 0. step 1. step 2. step 3. " {
		t.Fatalf("text %q", out.Text)
	}
	var pauses []agent.Event
	for _, e := range rec.all {
		if e.Type == agent.Pause {
			pauses = append(pauses, e)
		}
	}
	if pauses[0].Reason != agent.ToolLimit || pauses[0].ToolCallsMade != 2 || pauses[1].ToolCallsMade != 4 ||
		pauses[0].Message != "Seneschal has made 2 tool calls. Would you like to continue?" {
		t.Fatalf("pauses %+v", pauses)
	}
	if last := rec.all[len(rec.all)-1]; last.Type != agent.Done || last.Usage == nil {
		t.Fatalf("last event %+v", last)
	}
}

func TestTimePause(t *testing.T) {
	clock := time.Unix(0, 0)
	var ran int
	lookup := lookupTool(&ran)
	run := lookup.Run
	lookup.Run = func(ctx context.Context, a json.RawMessage) (agent.Result, error) {
		clock = clock.Add(45 * time.Second) // each lookup takes 45 s
		return run(ctx, a)
	}
	loop := &agent.Loop{Provider: cassette.Script(cassette.Calls("lookup", `{"word":"a"}`), cassette.Calls("lookup", `{"word":"b"}`), cassette.Text("done")),
		Tools: []agent.Tool{lookup}, Now: func() time.Time { return clock }}
	rec := newRecorder()
	ctl := &auto{decisions: []agent.Decision{agent.Cancel}}
	out, err := loop.Run(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "go"}}}, ctl, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Cancelled || ran != 2 {
		t.Fatalf("outcome %+v after %d lookups", out, ran)
	}
	p := rec.all[slices.IndexFunc(rec.all, func(e agent.Event) bool { return e.Type == agent.Pause })]
	if p.Reason != agent.TimeLimit || p.ElapsedSeconds != 90 {
		t.Fatalf("pause %+v", p)
	}
}

func TestConsecutiveInternalLimitWithdrawsTools(t *testing.T) {
	var script []cassette.Interaction
	for range 2 {
		script = append(script, cassette.Calls("lookup", `{"word":"a"}`, "lookup", `{"word":"b"}`))
	}
	script = append(script, cassette.Text("Enough."))
	model := cassette.Script(script...)
	var ran int
	loop := &agent.Loop{Provider: model, Tools: []agent.Tool{lookupTool(&ran)}, Config: agent.Config{MaxConsecutiveInternal: 3}}
	out, err := loop.Run(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "go"}}}, &auto{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The third call ran, the fourth was refused; after that the model had no tools.
	if ran != 3 || out.Text != "Enough." {
		t.Fatalf("%d lookups, text %q", ran, out.Text)
	}
	reqs := model.Requests()
	if len(reqs) != 3 || len(reqs[2].Tools) != 0 || len(reqs[1].Tools) != 1 {
		t.Fatalf("%d calls; tools offered: %d %d", len(reqs), len(reqs[1].Tools), len(reqs[2].Tools))
	}

	// A model that calls tools even after they are withdrawn is stopped.
	stubborn := cassette.Script(cassette.Calls("lookup", `{"word":"a"}`, "lookup", `{"word":"b"}`, "lookup", `{"word":"c"}`, "lookup", `{"word":"d"}`),
		cassette.Calls("lookup", `{"word":"e"}`), cassette.Text("never reached"))
	loop.Provider = stubborn
	_, err = loop.Run(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "go"}}}, &auto{}, nil)
	if !errors.Is(err, agent.ErrNoAnswer) || stubborn.Remaining() != 1 {
		t.Fatalf("err = %v, %d answers left", err, stubborn.Remaining())
	}
}

func TestHardTimeout(t *testing.T) {
	loop := &agent.Loop{Provider: cassette.Script(cassette.Calls("fvtt_read", `{}`)), Tools: []agent.Tool{{Tool: llm.Tool{Name: "fvtt_read"}, External: true}},
		// The external tool never answers, so the hard limit always ends
		// the run; it is long enough for the model's call to come first on
		// a loaded machine.
		Config: agent.Config{HardTimeout: 2 * time.Second, ExternalToolTimeout: time.Hour}}
	rec := newRecorder()
	out, err := loop.Run(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "go"}}}, &auto{}, rec.sink)
	if !errors.Is(err, agent.ErrHardTimeout) || out.Stopped != "hard_timeout" {
		t.Fatalf("err %v, outcome %+v", err, out)
	}
	if got := rec.types(); !slices.Equal(got, []string{"tool_call", "error", "done"}) {
		t.Fatalf("events %v", got)
	}
}

func TestModelErrorKeepsText(t *testing.T) {
	failing := cassette.Interaction{Op: "chat", Chunks: []llm.Chunk{{Content: "The door "}},
		Error: &cassette.Failure{Kind: llm.Overloaded, Status: 529, Message: "overloaded"}}
	loop := &agent.Loop{Provider: cassette.Script(failing)}
	rec := newRecorder()
	out, err := loop.Run(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "go"}}}, &auto{}, rec.sink)
	if err == nil || out.Text != "The door " {
		t.Fatalf("err %v, text %q", err, out.Text)
	}
	e := rec.all[1]
	if e.Type != agent.Error || !e.Recoverable {
		t.Fatalf("error event %+v", e)
	}
}

func TestEventJSON(t *testing.T) {
	for _, tc := range []struct {
		e    agent.Event
		want string
	}{
		{agent.Event{Type: agent.Content, Text: "hi"}, `{"type":"content","text":"hi"}`},
		{agent.Event{Type: agent.ToolCall, ID: "tc_1", Tool: "fvtt_read", Args: json.RawMessage(`{"a":1}`)}, `{"type":"tool_call","id":"tc_1","tool":"fvtt_read","args":{"a":1}}`},
		{agent.Event{Type: agent.ToolStatus, Message: "Searching rulebooks..."}, `{"type":"tool_status","message":"Searching rulebooks..."}`},
		{agent.Event{Type: agent.ToolResult, ID: "tc_2", Tool: "document_search", Summary: "3 results"}, `{"type":"tool_result","id":"tc_2","tool":"document_search","summary":"3 results"}`},
		{agent.Event{Type: agent.Pause, Reason: agent.ToolLimit, ToolCallsMade: 10, ElapsedSeconds: 45, Message: "m"}, `{"type":"pause","reason":"tool_limit","tool_calls_made":10,"elapsed_seconds":45,"message":"m"}`},
		{agent.Event{Type: agent.Error, Message: "x", Recoverable: false}, `{"type":"error","message":"x","recoverable":false}`},
		{agent.Event{Type: agent.Done, Usage: &llm.Usage{PromptTokens: 5, CompletionTokens: 7}}, `{"type":"done","usage":{"prompt_tokens":5,"completion_tokens":7}}`},
		{agent.Event{Type: agent.Done}, `{"type":"done"}`},
	} {
		b, err := json.Marshal(tc.e)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.e.Type, b, err, tc.want)
		}
		var back agent.Event
		if err := json.Unmarshal(b, &back); err != nil || back.Type != tc.e.Type {
			t.Errorf("round trip %s: %+v, %v", tc.want, back, err)
		}
	}
}

// AppendJSON's fast path for content must write what MarshalJSON writes,
// for every text: the ones it takes and the ones it hands on.
func TestAppendJSONMatchesMarshal(t *testing.T) {
	for _, text := range []string{"", "hi ", "The jump drive", `say "no"`, `a\b`, "<b>&</b>", "tab\there", "line\n", "\x7f", "é", "\u2028", "\xff", "\x00"} {
		checkAppendJSON(t, agent.Event{Type: agent.Content, Text: text})
	}
	checkAppendJSON(t, agent.Event{Type: agent.ToolStatus, Message: "Searching"})
	checkAppendJSON(t, agent.Event{Type: agent.Done, Usage: &llm.Usage{PromptTokens: 5}})
}

func checkAppendJSON(t *testing.T, e agent.Event) {
	t.Helper()
	want, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.AppendJSON([]byte("data: "))
	if err != nil || string(got) != "data: "+string(want) {
		t.Errorf("AppendJSON(%q) = %s, %v; want data: %s", e.Text, got, err, want)
	}
}

func FuzzAppendJSON(f *testing.F) {
	for _, s := range []string{"hi ", `"`, "<", "\u2028", "\xff", "a\\b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkAppendJSON(t, agent.Event{Type: agent.Content, Text: text})
	})
}

// streamThenFail streams its chunks, then fails.
type streamThenFail struct{ chunks []llm.Chunk }

func (p streamThenFail) Name() string                                { return "fail" }
func (p streamThenFail) Models(context.Context) ([]llm.Model, error) { return nil, nil }
func (p streamThenFail) Embed(context.Context, string, []string) ([][]float32, error) {
	return nil, errors.New("no embeddings")
}
func (p streamThenFail) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	for _, c := range p.chunks {
		if err := fn(c); err != nil {
			return nil, err
		}
	}
	return nil, &llm.Error{Provider: "fail", Kind: llm.Overloaded, Err: errors.New("overloaded")}
}

// The partial answer of a failed call is what was streamed, whether the
// provider hands over its text (llm.Chunk.Streamed), does not, does for
// some chunks only, or hands over a text that does not go on from the
// last.
func TestModelErrorKeepsStreamedText(t *testing.T) {
	c := func(content, streamed string) llm.Chunk { return llm.Chunk{Content: content, Streamed: streamed} }
	for _, tc := range []struct {
		name   string
		chunks []llm.Chunk
	}{
		{"the provider's text", []llm.Chunk{c("The ", "The "), c("door ", "The door "), c("opens", "The door opens")}},
		{"no text", []llm.Chunk{c("The ", ""), c("door ", ""), c("opens", "")}},
		{"text, then none", []llm.Chunk{c("The ", "The "), c("door ", "The door "), c("opens", "")}},
		{"none, then text", []llm.Chunk{c("The ", ""), c("door ", "The door "), c("opens", "The door opens")}},
		{"each chunk's own", []llm.Chunk{c("The ", "The "), c("door ", "door "), c("opens", "opens")}},
		{"a tool call between", []llm.Chunk{c("The ", "The "), {ToolCall: &llm.ToolCall{ID: "c1", Name: "x"}}, c("door ", "The door "), c("opens", "The door opens")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loop := &agent.Loop{Provider: streamThenFail{tc.chunks}}
			out, err := loop.Run(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "go"}}}, &auto{}, nil)
			if err == nil || out.Text != "The door opens" {
				t.Fatalf("err %v, text %q", err, out.Text)
			}
			if last := out.Messages[len(out.Messages)-1]; last.Role != llm.Assistant || last.Content != "The door opens" {
				t.Fatalf("last message %+v", last)
			}
		})
	}
}

// With a provider that hands over its text, the loop keeps no copy of
// it: a long answer allocates no more than a short one.
func TestStreamedTextIsNotCopied(t *testing.T) {
	run := func(tokens int) float64 {
		full := strings.Repeat("ab", tokens)
		chunks := make([]llm.Chunk, tokens)
		for i := range chunks {
			chunks[i] = llm.Chunk{Content: full[2*i : 2*i+2], Streamed: full[:2*i+2]}
		}
		loop := &agent.Loop{Provider: streamThenFail{chunks}}
		req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "go"}}}
		return testing.AllocsPerRun(20, func() {
			if out, _ := loop.Run(context.Background(), req, &auto{}, func(agent.Event) {}); out.Text != full {
				t.Fatalf("text of %d bytes, want %d", len(out.Text), len(full))
			}
		})
	}
	short, long := run(10), run(5000)
	if long > short {
		t.Errorf("a run of 5,000 tokens allocates %.0f times, of 10 tokens %.0f", long, short)
	}
}
