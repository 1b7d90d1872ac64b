package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/llm"
)

// Tool is a tool the model may call.
type Tool struct {
	llm.Tool
	// External tools run in the client: the loop emits a tool_call event
	// and waits for Controller.ToolResult.
	External bool
	// Status is shown while an internal tool runs ("Searching rulebooks…").
	Status string
	// Run executes an internal tool. Its error is given to the model as
	// the tool's result, so the model can correct itself; it does not stop
	// the loop.
	Run func(ctx context.Context, args json.RawMessage) (Result, error)
}

// Result is what an internal tool returns: Content for the model, Summary
// for people watching (the tool_result event).
type Result struct {
	Content string
	Summary string
}

// Config holds the loop's limits; zero fields take the defaults of the
// Seneschal design.
type Config struct {
	PauseAfterCalls        int           // tool calls before a pause (10)
	MaxConsecutiveInternal int           // internal calls without model output before tools are withdrawn (5)
	PauseAfter             time.Duration // time before a pause (60 s)
	HardTimeout            time.Duration // absolute limit for the run (300 s)
	ExternalToolTimeout    time.Duration // wait for a client's tool result (30 s)
	// Subject names the assistant in pause messages ("Seneschal", "The game master").
	Subject string
}

func (c Config) withDefaults() Config {
	if c.PauseAfterCalls <= 0 {
		c.PauseAfterCalls = 10
	}
	if c.MaxConsecutiveInternal <= 0 {
		c.MaxConsecutiveInternal = 5
	}
	if c.PauseAfter <= 0 {
		c.PauseAfter = 60 * time.Second
	}
	if c.HardTimeout <= 0 {
		c.HardTimeout = 300 * time.Second
	}
	if c.ExternalToolTimeout <= 0 {
		c.ExternalToolTimeout = 30 * time.Second
	}
	if c.Subject == "" {
		c.Subject = "The assistant"
	}
	return c
}

// Decision answers a pause.
type Decision int

// Decisions.
const (
	Continue Decision = iota
	Cancel
)

// Controller is the client side of a run: it executes external tools and
// answers pauses.
type Controller interface {
	// ToolResult returns the client's result for an external call. ctx
	// ends at the external tool timeout.
	ToolResult(ctx context.Context, call llm.ToolCall) (string, error)
	// Pause answers a pause event: continue or cancel.
	Pause(ctx context.Context, pause Event) (Decision, error)
}

// Loop is an agent: a model with tools and limits. A Loop is reusable and
// safe for concurrent runs.
type Loop struct {
	Provider llm.Provider
	Tools    []Tool
	Config   Config
	// Now is the clock (tests replace it). Default time.Now.
	Now func() time.Time
	// Reserved are tool-call ids the conversation used earlier that are not
	// in the request's messages (trimmed from context); new calls avoid
	// them as they avoid the ids in the messages.
	Reserved []string
}

// Outcome is what a run produced.
type Outcome struct {
	// Text is everything the model said to the user, in order.
	Text string
	// Messages is the whole conversation, including the request's.
	Messages  []llm.Message
	ToolCalls int
	Usage     llm.Usage
	// Results are the tool_result events of the run, internal and
	// external, in order: what a cancelled run hands back with Text.
	Results []Event
	// Cancelled is set when the client cancelled (at a pause, or at any
	// moment by cancelling the context with cause ErrCancelled); Stopped
	// names a hard limit that ended the run ("hard_timeout").
	Cancelled bool
	Stopped   string
}

// Errors a run can end with (wrapped).
var (
	// ErrCancelled is the context cause with which a client's cancel ends
	// a run at any moment: the run ends cleanly, Cancelled, with what it
	// gathered, not with an error.
	ErrCancelled   = errors.New("cancelled by the user")
	ErrHardTimeout = errors.New("the hard time limit was reached")
	ErrNoAnswer    = errors.New("the model kept calling tools after they were withdrawn instead of answering")
)

// Run runs the loop on req until the model answers without calling tools,
// the client cancels at a pause, a hard limit is reached or the model
// fails. Every step goes to sink, ending with a done event. The Outcome is
// returned even with an error, holding what was produced so far.
func (l *Loop) Run(ctx context.Context, req llm.Request, ctl Controller, sink func(Event)) (*Outcome, error) {
	cfg := l.Config.withDefaults()
	now := l.Now
	if now == nil {
		now = time.Now
	}
	if sink == nil {
		sink = func(Event) {}
	}
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.HardTimeout, ErrHardTimeout)
	defer cancel()

	tools := make(map[string]Tool, len(l.Tools))
	offered := make([]llm.Tool, 0, len(l.Tools))
	for _, t := range l.Tools {
		tools[t.Name] = t
		offered = append(offered, t.Tool)
	}
	req.Tools = offered
	// Room for the answer: most runs end with it.
	out := &Outcome{Messages: append(make([]llm.Message, 0, len(req.Messages)+1), req.Messages...)}
	start := now()
	cycleStart, cycleCalls, internalRun := start, 0, 0
	used := map[string]bool{}
	for _, id := range l.Reserved {
		used[id] = true
	}
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			used[c.ID] = true
		}
		used[m.ToolCallID] = true
	}
	next := 0
	// freshID names a call whose id is empty or taken: providers number
	// calls by position in one response, so every step would say call_1.
	freshID := func() string {
		for {
			next++
			if id := fmt.Sprintf("call_%d", next); !used[id] {
				return id
			}
		}
	}
	finish := func(err error) (*Outcome, error) {
		if err != nil && errors.Is(context.Cause(ctx), ErrCancelled) {
			out.Cancelled, err = true, nil
		}
		if err != nil {
			msg := err.Error()
			if errors.Is(err, ErrHardTimeout) {
				out.Stopped = "hard_timeout"
				msg = fmt.Sprintf("%s stopped: the time limit of %s was reached.", cfg.Subject, cfg.HardTimeout)
			}
			sink(Event{Type: Error, Message: msg, Recoverable: llm.IsTransient(err)})
		}
		u := out.Usage
		sink(Event{Type: Done, Usage: &u})
		return out, err
	}
	for {
		if err := context.Cause(ctx); err != nil {
			return finish(err)
		}
		// Limits are checked between model calls, so a pause never
		// interrupts a tool or a streaming answer.
		elapsed := now().Sub(cycleStart)
		if cycleCalls >= cfg.PauseAfterCalls || (out.ToolCalls > 0 && elapsed >= cfg.PauseAfter) {
			p := Event{Type: Pause, Reason: ToolLimit, ToolCallsMade: out.ToolCalls,
				ElapsedSeconds: int(now().Sub(start).Seconds())}
			if cycleCalls >= cfg.PauseAfterCalls {
				p.Message = fmt.Sprintf("%s has made %d tool calls. Would you like to continue?", cfg.Subject, out.ToolCalls)
			} else {
				p.Reason = TimeLimit
				p.Message = fmt.Sprintf("%s has been working for %d seconds. Would you like to continue?", cfg.Subject, p.ElapsedSeconds)
			}
			sink(p)
			d, err := ctl.Pause(ctx, p)
			if err != nil {
				return finish(fmt.Errorf("waiting for continue or cancel: %w", cause(ctx, err)))
			}
			if d == Cancel {
				out.Cancelled = true
				return finish(nil)
			}
			cycleStart, cycleCalls = now(), 0
		}
		if internalRun >= cfg.MaxConsecutiveInternal {
			// The model keeps calling tools without saying anything:
			// take the tools away so that it must answer.
			req.Tools = nil
		} else {
			req.Tools = offered
		}
		req.Messages = out.Messages
		var said streamed
		resp, err := l.Provider.Chat(ctx, req, func(c llm.Chunk) error {
			if c.Content != "" {
				said.add(c)
				sink(Event{Type: Content, Text: c.Content})
			}
			return nil
		})
		if err != nil {
			text := said.String()
			out.Text += text
			if text != "" {
				out.Messages = append(out.Messages, llm.Message{Role: llm.Assistant, Content: text})
			}
			return finish(fmt.Errorf("model: %w", cause(ctx, err)))
		}
		out.Usage = out.Usage.Add(resp.Usage)
		msg := resp.Message
		msg.Role = llm.Assistant
		if said.empty() && msg.Content != "" {
			// A provider that does not stream: emit the answer whole.
			sink(Event{Type: Content, Text: msg.Content})
		}
		out.Text += msg.Content
		if strings.TrimSpace(msg.Content) != "" {
			internalRun = 0
		}
		out.Messages = append(out.Messages, msg)
		if len(msg.ToolCalls) == 0 {
			return finish(nil)
		}
		if req.Tools == nil && len(offered) > 0 {
			// Tools were withdrawn and the model still calls them: it
			// will not answer; stop instead of looping to the hard timeout.
			return finish(ErrNoAnswer)
		}
		for i := range msg.ToolCalls {
			if id := msg.ToolCalls[i].ID; id == "" || used[id] {
				msg.ToolCalls[i].ID = freshID()
			}
			used[msg.ToolCalls[i].ID] = true
		}
		out.Messages[len(out.Messages)-1] = msg // with its ids
		for i, call := range msg.ToolCalls {
			out.ToolCalls++
			cycleCalls++
			content, err := l.call(ctx, cfg, tools, call, ctl, sink, &internalRun, out)
			if err != nil {
				// Every call keeps an answer, so the saved conversation is
				// one a provider accepts when it goes on.
				for _, c := range msg.ToolCalls[i:] {
					out.Messages = append(out.Messages, llm.Message{Role: llm.ToolRole, ToolCallID: c.ID, Name: c.Name,
						Content: "error: " + context.Cause(ctx).Error()})
				}
				return finish(err)
			}
			out.Messages = append(out.Messages, llm.Message{Role: llm.ToolRole, ToolCallID: call.ID, Name: call.Name, Content: content})
		}
	}
}

// streamed is the text a model call has streamed, kept for a partial
// answer if the call fails. While the provider hands over all its text
// with each chunk (llm.Chunk.Streamed) that is kept, not copied: a copy
// grown token by token was twice the answer's size in garbage a chat.
type streamed struct {
	view string          // the provider's text so far, Content last
	b    strings.Builder // the contents, once a chunk came without it
}

func (s *streamed) add(c llm.Chunk) {
	if s.b.Len() == 0 && len(c.Streamed) == len(s.view)+len(c.Content) && strings.HasSuffix(c.Streamed, c.Content) {
		s.view = c.Streamed
		return
	}
	if s.view != "" {
		s.b.WriteString(s.view)
		s.view = ""
	}
	s.b.WriteString(c.Content)
}

func (s *streamed) empty() bool { return s.view == "" && s.b.Len() == 0 }

func (s *streamed) String() string {
	if s.view != "" {
		return s.view
	}
	return s.b.String()
}

// call runs one tool call and returns what the model is told. Only a hard
// failure (the run's context ending) is an error.
func (l *Loop) call(ctx context.Context, cfg Config, tools map[string]Tool, call llm.ToolCall, ctl Controller,
	sink func(Event), internalRun *int, out *Outcome) (string, error) {
	t, ok := tools[call.Name]
	if !ok {
		names := make([]string, 0, len(tools))
		for n := range tools {
			names = append(names, n)
		}
		slices.Sort(names)
		return fmt.Sprintf("error: there is no tool %q; the tools are: %s", call.Name, strings.Join(names, ", ")), nil
	}
	if args := bytes.TrimSpace(call.Arguments); len(args) > 0 && (!json.Valid(args) || args[0] != '{') {
		return fmt.Sprintf("error: the arguments of %s must be a JSON object; got %s", call.Name, firstLine(string(args), 200)), nil
	}
	if t.External {
		*internalRun = 0
		sink(Event{Type: ToolCall, ID: call.ID, Tool: call.Name, Args: call.Arguments})
		tctx, cancel := context.WithTimeout(ctx, cfg.ExternalToolTimeout)
		defer cancel()
		res, err := ctl.ToolResult(tctx, call)
		if err != nil {
			if cerr := context.Cause(ctx); cerr != nil {
				return "", cerr
			}
			msg := fmt.Sprintf("%s did not return a result: %v", call.Name, err)
			if errors.Is(err, context.DeadlineExceeded) {
				msg = fmt.Sprintf("%s did not return a result within %s", call.Name, cfg.ExternalToolTimeout)
			}
			sink(Event{Type: Error, Message: msg, Recoverable: true})
			return "error: " + msg, nil
		}
		out.Results = append(out.Results, Event{Type: ToolResult, ID: call.ID, Tool: call.Name, Summary: firstLine(res, 120)})
		return res, nil
	}
	*internalRun++
	if *internalRun > cfg.MaxConsecutiveInternal {
		return fmt.Sprintf("error: %d tool calls in a row without an answer; answer now with what you have", *internalRun-1), nil
	}
	status := t.Status
	if status == "" {
		status = "Running " + call.Name + "…"
	}
	sink(Event{Type: ToolStatus, Tool: call.Name, Message: status}) // Tool is not sent; a server uses it to localize
	res, err := t.Run(ctx, call.Arguments)
	if err != nil {
		if cerr := context.Cause(ctx); cerr != nil {
			return "", cerr
		}
		e := Event{Type: ToolResult, ID: call.ID, Tool: call.Name, Summary: "error: " + err.Error()}
		out.Results = append(out.Results, e)
		sink(e)
		return "error: " + err.Error(), nil
	}
	summary := res.Summary
	if summary == "" {
		summary = firstLine(res.Content, 120)
	}
	e := Event{Type: ToolResult, ID: call.ID, Tool: call.Name, Summary: summary}
	out.Results = append(out.Results, e)
	sink(e)
	return res.Content, nil
}

func cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && errors.Is(c, ErrHardTimeout) {
		return c
	}
	return err
}

func firstLine(s string, max int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
