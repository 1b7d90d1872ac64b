package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/prompt"
	"github.com/hearth-rpg/hearth/tokens"
)

// Errors from the assistant's client-facing methods.
var (
	// ErrNoActive: no request is running for that conversation (it
	// finished, timed out, was cancelled or never started) — HTTP 404.
	ErrNoActive = &hearth.Error{Code: hearth.NotFound, Message: "no request is active for this conversation"}
	// ErrWrongCall: the request is not waiting for that tool call — 400.
	ErrWrongCall = &hearth.Error{Code: hearth.Invalid, Message: "the active request is not waiting for that tool call"}
	// ErrBusy: the conversation already has a request running — 409.
	ErrBusy = &hearth.Error{Code: hearth.Conflict, Message: "this conversation already has a request running"}
	// ErrNotPaused: continue or cancel sent while the request is not
	// paused — 409.
	ErrNotPaused = &hearth.Error{Code: hearth.Conflict, Message: "the request is not paused"}
)

// InvalidError is a request the client must fix; its message says how.
// It has code hearth.Invalid.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

// Unwrap gives the error its code.
func (e *InvalidError) Unwrap() error { return &hearth.Error{Code: hearth.Invalid, Message: e.Msg} }

func invalid(format string, a ...any) error { return &InvalidError{Msg: fmt.Sprintf(format, a...)} }

// Request is a chat request (seed 000 §4.3.3).
type Request struct {
	Model          string       `json:"model,omitempty"`
	Messages       []Message    `json:"messages"`
	Stream         *bool        `json:"stream,omitempty"` // default true
	UserContext    *UserContext `json:"user_context,omitempty"`
	ConversationID string       `json:"conversation_id,omitempty"`
	// Tools names the tools to offer; empty offers all.
	Tools []string `json:"tools,omitempty"`
	// SystemSchema is the client's game system description, kept with
	// the conversation for system_schema. Its "system" (Foundry's
	// game.system.id) also chooses the library, unless System says.
	SystemSchema json.RawMessage `json:"system_schema,omitempty"`
	// System is the game system the chat is about (mgt2e, dnd5e, …); it
	// chooses which bundled packs document_search reads.
	System string `json:"system,omitempty"`
	// Library names bundled packs to search besides the uploaded
	// documents (e.g. srd51), whatever the system.
	Library []string `json:"library,omitempty"`
	// Tags limits searches to documents with any of these tags, unless
	// the model's search names its own.
	Tags []string `json:"tags,omitempty"`
}

// Streaming reports whether the client asked for an event stream.
func (r Request) Streaming() bool { return r.Stream == nil || *r.Stream }

// Message is a message a client sends: its own words and, for one-shot
// queries with context, earlier answers.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// UserContext is the Foundry user a request is made for (seed 000 §2.3).
// Its role can only narrow what the authenticated user may read: a GM's
// key asking for a player gets the player's view, a player's key asking
// for a GM's still gets the player's.
type UserContext struct {
	UserID        string   `json:"userId"`
	UserName      string   `json:"userName"`
	Role          int      `json:"role"`
	OwnedActorIDs []string `json:"ownedActorIds,omitempty"`
	CharacterID   string   `json:"characterId,omitempty"`
}

// Limits on what a client may send.
const (
	MaxMessages       = 50
	MaxMessageBytes   = 32 << 10
	MaxSchemaBytes    = 256 << 10
	DefaultHistory    = 6000 // tokens of earlier conversation kept in context
	maxToolResultSize = 64 << 10
)

// Options configure an Assistant.
type Options struct {
	Provider      llm.Provider
	Model         string // used when a request names none
	Toolbox       *Toolbox
	Conversations Conversations
	Agent         agent.Config
	Prompts       *prompt.Registry
	// System names the game system when the client does not (e.g. mgt2e).
	System string
	// HistoryBudget caps the earlier conversation put in context, in
	// tokens, when the model's context length is unknown (default
	// DefaultHistory). When the provider lists the model's context length,
	// the history gets what the rest of the request leaves of it.
	HistoryBudget int
	// Library names bundled packs every chat searches (config
	// assistant.library); others are searched only for their own system.
	Library []string
	// ModelsTTL is how long the provider's model list is trusted
	// (default a minute): it decides which models a request may name and
	// their context lengths. Once it has passed, the list is asked for
	// again behind the chats starting meanwhile, which use the last one
	// (a chat naming a model that one lacks waits for the new list).
	ModelsTTL time.Duration
	Now       func() time.Time
	Logger    *slog.Logger
}

// Assistant runs chats. It is safe for concurrent use.
type Assistant struct {
	o       Options
	counter *tokens.Counter
	prompt  *prompt.Template
	prompts promptCache // rendered system prompts
	// tools is the tool set every chat is offered, built once: its
	// tools act for the caller Start puts on the run's context
	// (withCaller), so a chat's start does not bind a list of its own.
	tools func() []agent.Tool

	mu     sync.Mutex
	active map[string]*Active
	wg     sync.WaitGroup

	modelsMu     sync.Mutex
	models       []llm.Model
	modelsAt     time.Time
	modelsOK     bool          // models is the list fetched at modelsAt
	modelsFailed bool          // the last fetch failed (at modelsAt)
	modelsFetch  chan struct{} // closed when the fetch in flight ends; nil when none is
}

// Model lists that could not be fetched are not asked for again for
// failedModelsTTL (or ModelsTTL if shorter): many OpenAI-compatible
// servers have no model list, and asking on every chat start cost each
// chat a round trip to the model server, and a burst of chats as many.
const failedModelsTTL = 10 * time.Second

// modelsFetchTimeout bounds a fetch of the model list that chats share.
const modelsFetchTimeout = 10 * time.Second

// New returns an assistant.
func New(o Options) (*Assistant, error) {
	if o.Provider == nil || o.Toolbox == nil || o.Conversations == nil {
		return nil, errors.New("assistant: Provider, Toolbox and Conversations are required")
	}
	if o.Prompts == nil {
		r, err := prompt.New("", nil)
		if err != nil {
			return nil, err
		}
		o.Prompts = r
	}
	t, err := o.Prompts.Get("assistant")
	if err != nil {
		return nil, err
	}
	c, err := tokens.CL100K()
	if err != nil {
		return nil, err
	}
	if o.HistoryBudget <= 0 {
		o.HistoryBudget = DefaultHistory
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Agent.Subject == "" {
		o.Agent.Subject = "Seneschal"
	}
	if o.ModelsTTL <= 0 {
		o.ModelsTTL = time.Minute
	}
	return &Assistant{o: o, counter: c, prompt: t, active: map[string]*Active{},
		tools: sync.OnceValue(func() []agent.Tool { return o.Toolbox.Tools(Caller{}) })}, nil
}

// Active is a request in progress.
type Active struct {
	ConversationID string
	UserID         string
	Started        time.Time
	run            *agent.Run    // set once, before started closes
	started        chan struct{} // closed once run is set
	cancel         context.CancelCauseFunc
	saved          chan struct{} // closed once the conversation is saved and the request no longer active
}

// Wait waits for the request to finish and be saved.
func (a *Active) Wait() (*agent.Outcome, error) {
	<-a.saved
	return a.run.Wait()
}

// Done is closed when the request has finished and been saved: a stream
// that ends there lets its client send the next message at once, to this
// server (no longer busy) or another (which reads the saved conversation).
func (a *Active) Done() <-chan struct{} { return a.saved }

// Start begins a chat for user. Events go to sink until a done event;
// cancelling ctx (the client went away) abandons the request, which is
// then saved with what it produced. A request that does not stream gets
// no external tools (nobody could run them) and ends at its first pause.
func (as *Assistant) Start(ctx context.Context, user auth.User, req Request, sink func(agent.Event)) (*Active, error) {
	a, run, err := as.Prepare(ctx, user, req, sink)
	if err != nil {
		return nil, err
	}
	go run()
	return a, nil
}

// Prepare is Start without the goroutine: the request is active (and
// takes tool results and pause answers) once Prepare returns, and run
// runs it on the caller's goroutine, returning once it has ended and been
// saved. run must be called once when err is nil. An HTTP handler that
// streams the chat runs it on its own goroutine, which would otherwise
// only wait: a goroutine less a chat, and its stack already grown.
func (as *Assistant) Prepare(ctx context.Context, user auth.User, req Request, sink func(agent.Event)) (a *Active, run func(), err error) {
	if err := validate(req); err != nil {
		return nil, nil, err
	}
	role := user.Role
	if uc := req.UserContext; uc != nil && uc.Role >= int(access.Player) && access.Level(uc.Role) < role {
		role = access.Level(uc.Role)
	}
	now := as.o.Now()
	conv, err := as.conversation(ctx, user, req.ConversationID, now)
	if err != nil {
		return nil, nil, err
	}
	if len(req.SystemSchema) > 0 {
		conv.Metadata.SystemSchema = req.SystemSchema
	}
	model := req.Model
	if model == "" {
		model = as.o.Model
	}
	info, err := as.model(ctx, model, req.Model != "")
	if err != nil {
		return nil, nil, err
	}
	caller := Caller{Role: role, Schema: conv.Metadata.SystemSchema,
		Library: Selection{System: gameSystem(req, conv.Metadata.SystemSchema, as.o.System), Packs: append(slices.Clone(as.o.Library), req.Library...), Tags: req.Tags}}
	tools, err := Select(as.tools(), req.Tools)
	if err != nil {
		return nil, nil, invalid("%v", err)
	}
	stream := req.Streaming()
	if !stream {
		tools = internalOnly(tools)
	}
	system, err := as.systemPrompt(user, req, role, tools, conv.Metadata.SystemSchema)
	if err != nil {
		return nil, nil, err
	}
	asked := make([]llm.Message, len(req.Messages))
	for i, m := range req.Messages {
		asked[i] = llm.Message{Role: llm.Role(m.Role), Content: m.Content}
	}
	budget := as.o.HistoryBudget
	if info.ContextLength > 0 {
		budget = as.historyBudget(info.ContextLength, system, tools, asked)
	}
	earlier, kept := as.history(conv.Messages, budget)
	if len(earlier) > 0 {
		system += "\n\n" + summarise(earlier, as.counter, max(budget/4, 200))
	}
	// One allocation: a message is 120 bytes, and growing the list by
	// appending threw a copy away every chat.
	msgs := make([]llm.Message, 0, 1+len(kept)+len(asked))
	msgs = append(msgs, llm.Message{Role: llm.System, Content: system, Cache: true})
	msgs = append(msgs, kept...)
	msgs = append(msgs, asked...)
	cfg := as.o.Agent
	if !stream {
		cfg.PauseAfterCalls = 1 << 20 // no one to ask; the hard limits still hold
		cfg.PauseAfter = cfg.HardTimeout
	}
	loop := &agent.Loop{Provider: as.o.Provider, Tools: tools, Config: cfg, Reserved: callIDs(earlier)}

	as.mu.Lock()
	if _, busy := as.active[conv.ID]; busy {
		as.mu.Unlock()
		return nil, nil, ErrBusy
	}
	rctx, cancel := context.WithCancelCause(withCaller(ctx, &caller))
	a = &Active{ConversationID: conv.ID, UserID: user.ID, Started: now, cancel: cancel,
		started: make(chan struct{}), saved: make(chan struct{})}
	as.active[conv.ID] = a
	as.wg.Add(1)
	as.mu.Unlock()

	as.o.Logger.InfoContext(ctx, "chat started", "conversation", conv.ID, "user", user.ID, "role", role.String(),
		"tools", len(tools), "stream", stream, "model", model, "history_dropped", len(earlier))
	if len(earlier) > 0 {
		sink(agent.Event{Type: agent.HistoryTrimmed, Dropped: len(earlier), Kept: len(kept), ContextLength: info.ContextLength,
			Message: fmt.Sprintf("%d earlier messages no longer fit the model's context; they were summarised.", len(earlier))})
	}
	// The conversation is saved on the run's own goroutine once it ends:
	// a goroutine here only to wait would hold a stack the whole stream.
	release := func() {
		as.mu.Lock()
		delete(as.active, conv.ID)
		as.mu.Unlock()
		close(a.saved)
		cancel(nil)
	}
	ended := false // the run returned (set and read on the run's goroutine)
	var runLoop func()
	a.run, runLoop = loop.Prepare(rctx, llm.Request{Model: model, Messages: msgs}, sink, func(out *agent.Outcome, err error) {
		ended = true
		defer as.wg.Done()
		as.finish(conv, earlier, out, err)
		release()
	})
	// The request is findable (by a tool result or a pause's answer from
	// another request) from the moment it is in as.active, before run is
	// set: those wait for this.
	close(a.started)
	return a, func() {
		defer func() {
			// A run that panicked on an HTTP handler's goroutine is
			// recovered there, and the server goes on: the conversation
			// must not stay busy, nor Shutdown wait for it.
			if p := recover(); p != nil {
				if !ended {
					as.wg.Done()
					release()
				}
				panic(p)
			}
		}()
		runLoop()
	}, nil
}

func validate(req Request) error {
	if len(req.Messages) == 0 {
		return invalid("messages is empty: send at least one user message")
	}
	if len(req.Messages) > MaxMessages {
		return invalid("%d messages: send at most %d; the conversation keeps the rest", len(req.Messages), MaxMessages)
	}
	for i, m := range req.Messages {
		switch m.Role {
		case string(llm.User), string(llm.Assistant):
		default:
			return invalid("messages[%d].role %q: use user or assistant", i, m.Role)
		}
		if len(m.Content) > MaxMessageBytes {
			return invalid("messages[%d] is %d bytes; the limit is %d", i, len(m.Content), MaxMessageBytes)
		}
	}
	if last := req.Messages[len(req.Messages)-1]; last.Role != string(llm.User) || strings.TrimSpace(last.Content) == "" {
		return invalid("the last message must be the user's, and not empty")
	}
	if len(req.SystemSchema) > MaxSchemaBytes {
		return invalid("system_schema is %d bytes; the limit is %d", len(req.SystemSchema), MaxSchemaBytes)
	}
	if len(req.SystemSchema) > 0 && !json.Valid(req.SystemSchema) {
		return invalid("system_schema is not valid JSON")
	}
	return nil
}

// conversation loads the user's conversation, or starts one (with the
// client's id when it chose one, unless another user holds that id). A new
// conversation is written when its first request ends: a chat's start
// costs no write.
func (as *Assistant) conversation(ctx context.Context, user auth.User, id string, now time.Time) (Conversation, error) {
	if id != "" {
		if len(id) > 128 {
			return Conversation{}, invalid("conversation_id is longer than 128 characters")
		}
		conv, err := as.o.Conversations.Get(ctx, user.ID, id)
		if err == nil || !errors.Is(err, ErrNotFound) {
			return conv, err
		}
		if taken, err := as.o.Conversations.Exists(ctx, id); err != nil {
			return conv, err
		} else if taken {
			return conv, ErrNotFound
		}
	} else {
		id = NewID()
	}
	return Conversation{ID: id, UserID: user.ID, Created: now, Updated: now, Messages: []llm.Message{}}, nil
}

func (as *Assistant) systemPrompt(user auth.User, req Request, role access.Level, tools []agent.Tool, schema json.RawMessage) (string, error) {
	name := user.Name
	if uc := req.UserContext; uc != nil && uc.UserName != "" {
		name = uc.UserName
	}
	system := as.o.System
	var caps struct {
		System string `json:"system"`
	}
	if len(schema) > 0 && json.Unmarshal(schema, &caps) == nil && caps.System != "" {
		system = caps.System
	}
	var external []string
	for _, t := range tools {
		if t.External {
			external = append(external, t.Name)
		}
	}
	key := promptKey{name: name, role: role, tools: strings.Join(Names(tools), ", "), external: strings.Join(external, ", ")}
	// Only prompts with the server's own system are kept: a client's
	// schema may name any system, and the cache stays small.
	cache := system == as.o.System
	if cache {
		if p, ok := as.prompts.get(key); ok {
			return p, nil
		}
	}
	var roleName string
	switch role {
	case access.Player:
		roleName = "a player"
	case access.Trusted:
		roleName = "a trusted player"
	case access.Assistant:
		roleName = "an assistant game master"
	case access.GM:
		roleName = "the game master"
	}
	p, err := as.prompt.Render(map[string]any{
		"UserName": name, "RoleName": roleName, "Player": role < access.Assistant, "System": system,
		"Tools": key.tools, "External": key.external,
	})
	if err == nil && cache {
		as.prompts.put(key, p)
	}
	return p, err
}

// maxPrompts bounds the rendered system prompts kept: one a user, role
// and tool set in use.
const maxPrompts = 256

// promptKey is what a system prompt is rendered from, besides the
// server's system.
type promptKey struct {
	name            string
	role            access.Level
	tools, external string
}

// promptCache keeps rendered system prompts: the template is fixed when
// the assistant is made, so a prompt depends on its key alone, and need
// not be rendered (text/template, a 4 KB string) for every chat.
type promptCache struct {
	mu sync.Mutex
	m  map[promptKey]string
}

func (c *promptCache) get(k promptKey) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[k]
	return p, ok
}

func (c *promptCache) put(k promptKey, p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxPrompts {
		c.m = map[promptKey]string{} // all start again: they are cheap to render
	}
	c.m[k] = p
}

// history splits the earlier messages into those left out and the latest
// that fit budget (tokens), cut only before a user message so no tool
// result loses the call it answers.
func (as *Assistant) history(msgs []llm.Message, budget int) (earlier, kept []llm.Message) {
	total := 0
	start := len(msgs)
	for i := len(msgs) - 1; i >= 0; i-- {
		total += as.size(msgs[i])
		if total > budget {
			break
		}
		if msgs[i].Role == llm.User {
			start = i
		}
	}
	return msgs[:start], msgs[start:]
}

func (as *Assistant) size(m llm.Message) int {
	n := as.counter.Count(m.Content) + 4
	for _, c := range m.ToolCalls {
		n += as.counter.Count(string(c.Arguments)) + 4
	}
	return n
}

// historyBudget is what a model of contextLength tokens leaves for earlier
// messages once the system prompt, the tools, the new messages and room
// for the answer (an eighth, at least 512 tokens) are counted.
func (as *Assistant) historyBudget(contextLength int, system string, tools []agent.Tool, asked []llm.Message) int {
	used := as.counter.Count(system) + max(contextLength/8, 512)
	for _, t := range tools {
		used += as.counter.Count(t.Name+t.Description+string(t.Parameters)) + 8
	}
	for _, m := range asked {
		used += as.size(m)
	}
	return max(contextLength-used, 0)
}

// callIDs lists the tool-call ids in msgs.
func callIDs(msgs []llm.Message) []string {
	var ids []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// finish saves what a request produced, whatever ended it, after the
// earlier messages left out of its context: the record keeps them all.
func (as *Assistant) finish(conv Conversation, earlier []llm.Message, out *agent.Outcome, runErr error) {
	if out == nil {
		return
	}
	msgs := slices.Clone(earlier)
	if n := len(out.Messages) - 1; n > 0 && out.Messages[0].Role == llm.System {
		// One allocation for what is appended below (all but the system
		// prompt): grown message by message it threw copies away.
		msgs = slices.Grow(msgs, n)
	}
	for _, m := range out.Messages {
		if m.Role != llm.System {
			m.Cache = false
			msgs = append(msgs, m)
		}
	}
	conv.Messages = msgs
	conv.Updated = as.o.Now()
	conv.Metadata.TotalTokensEstimate += out.Usage.PromptTokens + out.Usage.CompletionTokens
	// The client may be gone; saving must not depend on its context.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := as.o.Conversations.Save(ctx, conv); err != nil {
		as.o.Logger.Error("save conversation", "conversation", conv.ID, "err", err)
	}
	as.o.Logger.Info("chat finished", "conversation", conv.ID, "tool_calls", out.ToolCalls,
		"prompt_tokens", out.Usage.PromptTokens, "completion_tokens", out.Usage.CompletionTokens,
		"cancelled", out.Cancelled, "stopped", out.Stopped, "err", runErr)
}

// ToolResult hands the client's result for an external tool call to the
// conversation's active request (seed 000 §2.4.6).
func (as *Assistant) ToolResult(userID, conversationID, callID string, result json.RawMessage) error {
	a := as.lookup(userID, conversationID)
	if a == nil {
		return ErrNoActive
	}
	if len(result) > maxToolResultSize {
		return invalid("the tool result is %d bytes; the limit is %d", len(result), maxToolResultSize)
	}
	text := string(result)
	var s string
	if json.Unmarshal(result, &s) == nil {
		text = s // a plain string result goes to the model as text
	}
	<-a.started
	switch err := a.run.Deliver(callID, text); {
	case errors.Is(err, agent.ErrUnknownCall):
		return ErrWrongCall
	case errors.Is(err, agent.ErrFinished):
		return ErrNoActive
	default:
		return err
	}
}

// Continue answers the active request's pause: "continue" or "cancel".
func (as *Assistant) Continue(userID, conversationID, action string) error {
	var d agent.Decision
	switch action {
	case "continue":
		d = agent.Continue
	case "cancel":
		d = agent.Cancel
	default:
		return invalid("action %q: use continue or cancel", action)
	}
	a := as.lookup(userID, conversationID)
	if a == nil {
		return ErrNoActive
	}
	if d == agent.Cancel {
		// Cancel works at any moment, a pending tool call included; the
		// run ends cleanly with what it gathered.
		a.cancel(agent.ErrCancelled)
		return nil
	}
	<-a.started
	switch err := a.run.Decide(d); {
	case errors.Is(err, agent.ErrNotPaused):
		return ErrNotPaused
	case errors.Is(err, agent.ErrFinished):
		return ErrNoActive
	default:
		return err
	}
}

// Partial is what a cancelled request had gathered (seed 000 §2.4.5: "if
// cancel, backend sends partial results gathered so far"): what the model
// said and the tool results, as their SSE events have them.
type Partial struct {
	ConversationID string        `json:"conversation_id"`
	Content        string        `json:"content"`
	ToolCallsMade  int           `json:"tool_calls_made"`
	ToolResults    []agent.Event `json:"tool_results"`
	Usage          llm.Usage     `json:"usage"`
	Cancelled      bool          `json:"cancelled"`
}

// Cancel ends the conversation's active request at any moment (at a
// pause, while the model writes, while a tool result is awaited) and
// returns what it had gathered once it has ended, or ctx's error.
func (as *Assistant) Cancel(ctx context.Context, userID, conversationID string) (Partial, error) {
	a := as.lookup(userID, conversationID)
	if a == nil {
		return Partial{}, ErrNoActive
	}
	a.cancel(agent.ErrCancelled)
	select {
	case <-a.Done():
	case <-ctx.Done():
		return Partial{}, ctx.Err()
	}
	out, _ := a.Wait()
	p := Partial{ConversationID: conversationID, ToolResults: []agent.Event{}}
	if out != nil {
		p.Content, p.ToolCallsMade, p.Usage, p.Cancelled = out.Text, out.ToolCalls, out.Usage, out.Cancelled
		if out.Results != nil {
			p.ToolResults = out.Results
		}
	}
	return p, nil
}

func (as *Assistant) lookup(userID, conversationID string) *Active {
	as.mu.Lock()
	defer as.mu.Unlock()
	a := as.active[conversationID]
	if a == nil || a.UserID != userID {
		return nil
	}
	return a
}

// ActiveCount is the number of requests in progress.
func (as *Assistant) ActiveCount() int {
	as.mu.Lock()
	defer as.mu.Unlock()
	return len(as.active)
}

// IsActive reports whether the conversation has a request in progress.
func (as *Assistant) IsActive(conversationID string) bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.active[conversationID] != nil
}

// Shutdown cancels every active request and waits until each is saved or
// ctx ends.
func (as *Assistant) Shutdown(ctx context.Context) error {
	as.mu.Lock()
	for _, a := range as.active {
		a.cancel(errors.New("the server is shutting down"))
	}
	as.mu.Unlock()
	done := make(chan struct{})
	go func() { as.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Provider is the model server the assistant talks to, for a caller that
// checks it is reachable (the settings page's connection test).
func (as *Assistant) Provider() llm.Provider { return as.o.Provider }

// Models lists the models the provider serves.
func (as *Assistant) Models(ctx context.Context) ([]llm.Model, error) {
	ms, err := as.o.Provider.Models(ctx)
	if err == nil {
		as.modelsMu.Lock()
		as.models, as.modelsAt, as.modelsOK, as.modelsFailed = ms, as.o.Now(), true, false
		as.modelsMu.Unlock()
	}
	return ms, err
}

// modelList is the provider's model list for a chat's start: the cached
// one while fresh, else one fetch shared by every chat starting while it
// runs. ok is false when the provider could not list its models (then
// or, within failedModelsTTL, the last time it was asked).
//
// Once a fetch has answered, an expired list is not waited for unless
// fresh: the chat takes the last answer (stale is true) and one fetch
// refreshes it behind the chats. Waiting held up every chat starting
// while the model server answered, once a TTL, in a burst all of them.
func (as *Assistant) modelList(ctx context.Context, fresh bool) (ms []llm.Model, ok, stale bool) {
	for {
		as.modelsMu.Lock()
		age := as.o.Now().Sub(as.modelsAt)
		switch {
		case as.modelsOK && age < as.o.ModelsTTL:
			ms := as.models
			as.modelsMu.Unlock()
			return ms, true, false
		case as.modelsFailed && age < min(failedModelsTTL, as.o.ModelsTTL):
			as.modelsMu.Unlock()
			return nil, false, false
		}
		answered := as.modelsOK || as.modelsFailed
		ms, ok := as.models, as.modelsOK
		wait := as.modelsFetch
		if wait == nil {
			done := make(chan struct{})
			as.modelsFetch = done
			as.modelsMu.Unlock()
			if answered && !fresh {
				go as.fetchModels(ctx, done)
				return ms, ok, true
			}
			ms, ok := as.fetchModels(ctx, done)
			return ms, ok, false
		}
		as.modelsMu.Unlock()
		if answered && !fresh {
			return ms, ok, true
		}
		select {
		case <-wait:
			// Look again: the fetch has cached what it found.
		case <-ctx.Done():
			return nil, false, false
		}
	}
}

// fetchModels asks the provider for its models on behalf of every chat
// waiting on done, so one chat's leaving does not cancel it for the rest.
func (as *Assistant) fetchModels(ctx context.Context, done chan struct{}) ([]llm.Model, bool) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), modelsFetchTimeout)
	defer cancel()
	ms, err := as.o.Provider.Models(fctx)
	as.modelsMu.Lock()
	as.modelsAt, as.modelsFetch = as.o.Now(), nil
	if err != nil {
		as.modelsOK, as.modelsFailed = false, true
		as.o.Logger.DebugContext(ctx, "model list unavailable; models are not checked", "err", err)
	} else {
		as.models, as.modelsOK, as.modelsFailed = ms, true, false
	}
	as.modelsMu.Unlock()
	close(done)
	return ms, err == nil
}

// model looks name up in the provider's model list (cached for
// ModelsTTL). A name the client chose (named) that the list lacks is
// refused with the list; without a list (the provider cannot tell) any
// name is taken and the context length is unknown.
func (as *Assistant) model(ctx context.Context, name string, named bool) (llm.Model, error) {
	ms, ok, stale := as.modelList(ctx, false)
	if stale && named && !slices.ContainsFunc(ms, func(m llm.Model) bool { return m.Name == name || strings.TrimSuffix(m.Name, ":latest") == name }) {
		// A model the last list lacked may have been added since:
		// such a request waits for the list afresh, as it did before.
		ms, ok, _ = as.modelList(ctx, true)
	}
	if !ok {
		return llm.Model{Name: name}, nil
	}
	if len(ms) == 0 {
		return llm.Model{Name: name}, nil
	}
	names := make([]string, len(ms))
	for i, m := range ms {
		if m.Name == name || strings.TrimSuffix(m.Name, ":latest") == name {
			return m, nil
		}
		names[i] = m.Name
	}
	if !named {
		return llm.Model{Name: name}, nil // the server's own choice; the provider has the last word
	}
	return llm.Model{}, invalid("model %q is not available; the models are: %s", name, strings.Join(names, ", "))
}

func internalOnly(tools []agent.Tool) []agent.Tool {
	var out []agent.Tool
	for _, t := range tools {
		if !t.External {
			out = append(out, t)
		}
	}
	return out
}

// Conversations returns the conversation store.
func (as *Assistant) Conversations() Conversations { return as.o.Conversations }
