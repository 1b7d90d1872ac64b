package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/mcp"
)

// guard bounds waits for things that must happen, so a broken server fails
// the test instead of hanging it; it is not a timing assertion.
const guard = 20 * time.Second

// memGame is a Game over an in-memory map.
type memGame struct {
	mu       sync.Mutex
	sessions map[string]*memSession
}

type memSession struct {
	info  mcp.SessionInfo
	state map[string]any
}

func newMemGame() *memGame {
	at := time.Date(2026, 11, 1, 20, 0, 0, 0, time.UTC)
	return &memGame{sessions: map[string]*memSession{
		"s1": {info: mcp.SessionInfo{ID: "s1", Campaign: "sunken-keep", Title: "Into the Keep", Branch: "main", Updated: at},
			state: map[string]any{"hp": 10, "location": "gate", "secret": "the abbot is the lich"}},
		"s2": {info: mcp.SessionInfo{ID: "s2", Campaign: "far-trader", Turn: 7},
			state: map[string]any{"hp": 3, "location": "Regina"}},
	}}
}

func (g *memGame) Sessions(ctx context.Context) ([]mcp.SessionInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []mcp.SessionInfo
	for _, s := range g.sessions {
		out = append(out, s.info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (g *memGame) session(id string) (*memSession, error) {
	s, ok := g.sessions[id]
	if !ok {
		return nil, hearth.Errorf(hearth.NotFound, "no session %q", id)
	}
	return s, nil
}

func (g *memGame) State(ctx context.Context, id string) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	s, err := g.session(id)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s.state)
}

func (g *memGame) Act(ctx context.Context, id, input string) (mcp.TurnResult, error) {
	if err := ctx.Err(); err != nil {
		return mcp.TurnResult{}, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	s, err := g.session(id)
	if err != nil {
		return mcp.TurnResult{}, err
	}
	s.info.Turn++
	s.state["last"] = input
	r := mcp.TurnResult{Turn: s.info.Turn, Committed: true, Narrative: "You " + input + ".", Awaiting: "free_form"}
	if input == "look around" {
		r.Awaiting, r.Prompt, r.Choices = "choice", "What do you do?", []string{"Go north", "Wait"}
	}
	return r, nil
}

// fixture is a server with test tools and the hooks they report through.
type fixture struct {
	srv  *mcp.Server
	game *memGame
	// waitStarted receives when the wait tool runs; waitDone receives the
	// cause of its context's end.
	waitStarted chan struct{}
	waitDone    chan error
}

func schema(s string) json.RawMessage { return json.RawMessage(s) }

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{game: newMemGame(), waitStarted: make(chan struct{}, 1), waitDone: make(chan error, 1)}
	srv, err := mcp.New(mcp.Options{Tools: fixtureTools(f), Game: f.game, Version: "test"})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	f.srv = srv
	return f
}

// fixtureTools are the test tools, reporting through f's hooks.
func fixtureTools(f *fixture) []agent.Tool {
	return []agent.Tool{
		{Tool: llm.Tool{Name: "document_search", Description: "Search the rulebooks.",
			Parameters: schema(`{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"limit":{"type":"integer","minimum":1}},"required":["query"]}`)},
			Run: func(ctx context.Context, args json.RawMessage) (agent.Result, error) {
				var a struct{ Query string }
				if err := json.Unmarshal(args, &a); err != nil {
					return agent.Result{}, err
				}
				return agent.Result{Content: "3 passages on " + a.Query, Summary: "searched"}, nil
			}},
		{Tool: llm.Tool{Name: "whoami", Description: "Say who is asking."}, // no Parameters: any object
			Run: func(ctx context.Context, _ json.RawMessage) (agent.Result, error) {
				u, ok := auth.UserFrom(ctx)
				if !ok {
					return agent.Result{Content: "nobody"}, nil
				}
				return agent.Result{Content: u.ID + " " + u.Role.String()}, nil
			}},
		{Tool: llm.Tool{Name: "rules_lookup", Description: "Look up a rule.", Parameters: schema(`{"type":"object"}`)},
			Run: func(context.Context, json.RawMessage) (agent.Result, error) {
				return agent.Result{}, hearth.Errorf(hearth.NotFound, "no rule called grappling in this campaign")
			}},
		{Tool: llm.Tool{Name: "fail", Description: "Fails with the code asked for.", Parameters: schema(`{"type":"object","properties":{"code":{"type":"string"}}}`)},
			Run: func(_ context.Context, args json.RawMessage) (agent.Result, error) {
				var a struct{ Code hearth.Code }
				if err := json.Unmarshal(args, &a); err != nil {
					return agent.Result{}, err
				}
				if a.Code == hearth.Internal {
					return agent.Result{}, fmt.Errorf("query: %w", errors.New("open /srv/secret/hearth.db: database is locked"))
				}
				return agent.Result{}, fmt.Errorf("in context: %w", hearth.Errorf(a.Code, "the %s failure", a.Code))
			}},
		{Tool: llm.Tool{Name: "broken", Description: "Always panics.", Parameters: schema(`{"type":"object"}`)},
			Run: func(context.Context, json.RawMessage) (agent.Result, error) { panic("boom") }},
		{Tool: llm.Tool{Name: "wait", Description: "Runs until cancelled.", Parameters: schema(`{"type":"object"}`)},
			Run: func(ctx context.Context, _ json.RawMessage) (agent.Result, error) {
				f.waitStarted <- struct{}{}
				select {
				case <-ctx.Done():
					f.waitDone <- context.Cause(ctx)
					return agent.Result{}, ctx.Err()
				case <-time.After(guard / 2):
					// Return anyway, so a server that fails to cancel fails the test instead of hanging it.
					f.waitDone <- errors.New("the tool's context was never cancelled")
					return agent.Result{}, nil
				}
			}},
		{Tool: llm.Tool{Name: "fvtt_read", Description: "Runs in the browser.", Parameters: schema(`{"type":"object"}`)},
			External: true},
	}
}

// transports connect a client to a fixture's server over each real
// transport, returning the client session; cleanup is registered on t.
var transports = []struct {
	name    string
	connect func(t *testing.T, f *fixture, wrap func(http.Handler) http.Handler) *sdk.ClientSession
}{
	{"streamable-http", func(t *testing.T, f *fixture, wrap func(http.Handler) http.Handler) *sdk.ClientSession {
		ts := httptest.NewServer(wrap(f.srv.Handler()))
		t.Cleanup(ts.Close)
		return connect(t, &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1})
	}},
	{"sse", func(t *testing.T, f *fixture, wrap func(http.Handler) http.Handler) *sdk.ClientSession {
		ts := httptest.NewServer(wrap(f.srv.SSEHandler()))
		t.Cleanup(ts.Close)
		return connect(t, &sdk.SSEClientTransport{Endpoint: ts.URL + "/mcp/sse"})
	}},
	{"stdio", func(t *testing.T, f *fixture, _ func(http.Handler) http.Handler) *sdk.ClientSession {
		serverIn, clientOut := io.Pipe()
		clientIn, serverOut := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- f.srv.Run(ctx, &mcp.StdioTransport{In: serverIn, Out: serverOut}) }()
		cs := connect(t, &sdk.IOTransport{Reader: clientIn, Writer: clientOut})
		t.Cleanup(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run returned %v after its context was cancelled, want nil", err)
				}
			case <-time.After(guard):
				t.Error("Run did not return after its context was cancelled")
			}
		})
		return cs
	}},
}

func connect(t *testing.T, tr sdk.Transport) *sdk.ClientSession {
	t.Helper()
	// The SSE client keeps its event stream on the Connect context, so it
	// may end only with the test.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	timer := time.AfterFunc(guard, cancel)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "hearth-test", Version: "1"}, nil).Connect(ctx, tr, nil)
	timer.Stop()
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func noWrap(h http.Handler) http.Handler { return h }

func text(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestListTools(t *testing.T) {
	want := []string{"broken", "document_search", "fail", "game_act", "game_list_sessions", "game_state", "rules_lookup", "wait", "whoami"}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, newFixture(t), noWrap)
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			var got []string
			byName := map[string]*sdk.Tool{}
			for _, tool := range res.Tools {
				got = append(got, tool.Name)
				byName[tool.Name] = tool
				s, ok := tool.InputSchema.(map[string]any)
				if !ok || s["type"] != "object" {
					t.Errorf("%s: input schema %v, want an object schema", tool.Name, tool.InputSchema)
				}
				if tool.Description == "" {
					t.Errorf("%s: no description", tool.Name)
				}
			}
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Fatalf("tools = %v, want %v (external tools must not be listed)", got, want)
			}
			requires := map[string][]string{
				"document_search": {"query"},
				"game_state":      {"session_id"},
				"game_act":        {"input", "session_id"},
			}
			for name, fields := range requires {
				var req []string
				for _, r := range byName[name].InputSchema.(map[string]any)["required"].([]any) {
					req = append(req, r.(string))
				}
				sort.Strings(req)
				if !slices.Equal(req, fields) {
					t.Errorf("%s requires %v, want %v", name, req, fields)
				}
			}
			if byName["game_act"].OutputSchema == nil || byName["game_list_sessions"].OutputSchema == nil {
				t.Error("game_act and game_list_sessions should declare output schemas")
			}
			if a := byName["game_state"].Annotations; a == nil || !a.ReadOnlyHint {
				t.Error("game_state should be annotated read-only")
			}
			if a := byName["game_act"].Annotations; a == nil || a.ReadOnlyHint {
				t.Error("game_act must not be annotated read-only")
			}
		})
	}
}

func TestCallTools(t *testing.T) {
	type call struct {
		name    string
		tool    string
		args    any
		isError bool
		want    []string // substrings of the text content
		check   func(t *testing.T, structured map[string]any)
	}
	calls := []call{
		{name: "search", tool: "document_search", args: map[string]any{"query": "grapple", "limit": 3}, want: []string{"3 passages on grapple"}},
		{name: "search without query", tool: "document_search", args: map[string]any{}, isError: true, want: []string{"query"}},
		{name: "search with wrong type", tool: "document_search", args: map[string]any{"query": 5}, isError: true, want: []string{"schema"}},
		{name: "search with bad limit", tool: "document_search", args: map[string]any{"query": "x", "limit": 0}, isError: true, want: []string{"limit"}},
		{name: "gm access", tool: "whoami", want: []string{"mcp gm_only"}},
		{name: "tool error", tool: "rules_lookup", args: map[string]any{"name": "grappling"}, isError: true, want: []string{"not_found: no rule called grappling"}},
		{name: "tool panic", tool: "broken", isError: true, want: []string{"internal: internal error"}},
		{name: "list sessions", tool: "game_list_sessions", want: []string{`"s1"`, "sunken-keep", "far-trader"},
			check: func(t *testing.T, s map[string]any) {
				list, _ := s["sessions"].([]any)
				if len(list) != 2 {
					t.Fatalf("structured sessions = %v, want 2", s["sessions"])
				}
				if first := list[0].(map[string]any); first["id"] != "s1" || first["updated"] != "2026-11-01T20:00:00Z" {
					t.Errorf("first session = %v", first)
				}
			}},
		{name: "state", tool: "game_state", args: map[string]any{"session_id": "s1"}, want: []string{`"hp":10`, "the abbot is the lich"},
			check: func(t *testing.T, s map[string]any) {
				if s["location"] != "gate" {
					t.Errorf("structured state = %v", s)
				}
			}},
		{name: "state of unknown session", tool: "game_state", args: map[string]any{"session_id": "s9"}, isError: true, want: []string{`not_found: reading the state of session "s9": no session "s9"`}},
		{name: "state with blank id", tool: "game_state", args: map[string]any{"session_id": " "}, isError: true, want: []string{"invalid: session_id is empty"}},
		{name: "state without id", tool: "game_state", isError: true, want: []string{"session_id"}},
		{name: "act", tool: "game_act", args: map[string]any{"session_id": "s1", "input": "open the door"}, want: []string{"You open the door.", "[Turn 1; awaiting free-form input]"},
			check: func(t *testing.T, s map[string]any) {
				if s["turn"] != 1.0 || s["committed"] != true || s["awaiting"] != "free_form" {
					t.Errorf("structured turn = %v", s)
				}
			}},
		{name: "act with choices", tool: "game_act", args: map[string]any{"session_id": "s1", "input": "look around"}, want: []string{"[Turn 2; awaiting choice input]\nWhat do you do?\n1. Go north\n2. Wait"}},
		{name: "turns reach the game", tool: "game_state", args: map[string]any{"session_id": "s1"}, want: []string{`"last":"look around"`}},
		{name: "act with blank input", tool: "game_act", args: map[string]any{"session_id": "s1", "input": "  "}, isError: true, want: []string{"invalid: input is empty"}},
		{name: "act without input", tool: "game_act", args: map[string]any{"session_id": "s1"}, isError: true, want: []string{"input"}},
		{name: "act in unknown session", tool: "game_act", args: map[string]any{"session_id": "s9", "input": "run"}, isError: true, want: []string{`not_found: taking a turn in session "s9": no session "s9"`}},
	}
	// Every code reaches the client as "code: message"; an internal
	// error's details stay in the server's log.
	for _, code := range []hearth.Code{hearth.NotFound, hearth.Invalid, hearth.Unauthorized, hearth.Forbidden, hearth.Conflict, hearth.Unavailable} {
		calls = append(calls, call{name: "code " + string(code), tool: "fail", args: map[string]any{"code": code}, isError: true,
			want: []string{fmt.Sprintf("%s: the %s failure", code, code)}})
	}
	calls = append(calls, call{name: "code internal", tool: "fail", args: map[string]any{"code": hearth.Internal}, isError: true,
		want: []string{"internal: internal error"}})
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, newFixture(t), noWrap)
			// In order: the game calls build on each other.
			for _, c := range calls {
				ctx, cancel := context.WithTimeout(context.Background(), guard)
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
				cancel()
				if err != nil {
					t.Fatalf("%s: CallTool: %v", c.name, err)
				}
				got := text(res)
				if res.IsError != c.isError {
					t.Errorf("%s: IsError = %v, want %v (content %q)", c.name, res.IsError, c.isError, got)
				}
				for _, w := range c.want {
					if !strings.Contains(got, w) {
						t.Errorf("%s: content %q does not contain %q", c.name, got, w)
					}
				}
				for _, secret := range []string{"/srv/secret", "boom", "panicked", "in context"} {
					if strings.Contains(got, secret) {
						t.Errorf("%s: content %q shows %q", c.name, got, secret)
					}
				}
				if c.check != nil {
					s, ok := res.StructuredContent.(map[string]any)
					if !ok {
						t.Errorf("%s: structured content %T, want an object", c.name, res.StructuredContent)
						continue
					}
					c.check(t, s)
				}
			}
			// Tools the server does not offer are protocol errors.
			for _, name := range []string{"fvtt_read", "no_such_tool"} {
				ctx, cancel := context.WithTimeout(context.Background(), guard)
				_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: map[string]any{}})
				cancel()
				if err == nil || !strings.Contains(err.Error(), name) {
					t.Errorf("calling %s: err = %v, want an unknown-tool error", name, err)
				}
			}
		})
	}
}

func TestCancelledCallCancelsTool(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			f := newFixture(t)
			cs := tr.connect(t, f, noWrap)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			callErr := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "wait", Arguments: map[string]any{}})
				callErr <- err
			}()
			select {
			case <-f.waitStarted:
			case <-time.After(guard):
				t.Fatal("the wait tool never started")
			}
			cancel()
			select {
			case err := <-callErr:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("CallTool returned %v, want context.Canceled", err)
				}
			case <-time.After(guard):
				t.Fatal("CallTool did not return after its context was cancelled")
			}
			select {
			case cause := <-f.waitDone:
				if !errors.Is(cause, context.Canceled) {
					t.Errorf("tool context ended with %v, want context.Canceled", cause)
				}
			case <-time.After(guard):
				t.Fatal("cancelling the client call did not cancel the tool's context")
			}
			// The session outlives the cancelled call.
			ctx2, cancel2 := context.WithTimeout(context.Background(), guard)
			defer cancel2()
			res, err := cs.CallTool(ctx2, &sdk.CallToolParams{Name: "whoami"})
			if err != nil || text(res) != "mcp gm_only" {
				t.Errorf("call after cancel: %v, %v", res, err)
			}
		})
	}
}

// TestHTTPUserIsKept checks that a user the auth middleware put on the
// request reaches the tools unchanged rather than being raised to GM.
func TestHTTPUserIsKept(t *testing.T) {
	withUser := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(auth.WithUser(r.Context(), auth.User{ID: "key-7", Role: access.Assistant})))
		})
	}
	for _, tr := range transports[:2] {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, newFixture(t), withUser)
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "whoami"})
			if err != nil {
				t.Fatal(err)
			}
			if got := text(res); got != "key-7 assistant" {
				t.Errorf("whoami = %q, want the middleware's user %q", got, "key-7 assistant")
			}
		})
	}
}

func TestRunEndsWhenClientCloses(t *testing.T) {
	f := newFixture(t)
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- f.srv.Run(context.Background(), &mcp.StdioTransport{In: serverIn, Out: serverOut})
	}()
	cs := connect(t, &sdk.IOTransport{Reader: clientIn, Writer: clientOut})
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v after the client closed, want nil", err)
		}
	case <-time.After(guard):
		t.Fatal("Run did not return after the client closed")
	}
}

func TestNewRejects(t *testing.T) {
	run := func(context.Context, json.RawMessage) (agent.Result, error) { return agent.Result{}, nil }
	tool := func(name, params string) agent.Tool {
		return agent.Tool{Tool: llm.Tool{Name: name, Description: "d", Parameters: json.RawMessage(params)}, Run: run}
	}
	cases := []struct {
		name  string
		opts  mcp.Options
		error string // "" when New must succeed
	}{
		{"valid", mcp.Options{Tools: []agent.Tool{tool("a", `{"type":"object"}`), tool("b.c-d_e", "")}, Game: newMemGame()}, ""},
		{"no tools at all", mcp.Options{}, ""},
		{"duplicate", mcp.Options{Tools: []agent.Tool{tool("a", `{"type":"object"}`), tool("a", `{"type":"object"}`)}}, `"a" is defined twice`},
		{"clash with game tool", mcp.Options{Tools: []agent.Tool{tool("game_act", `{"type":"object"}`)}, Game: newMemGame()}, `"game_act" is defined twice`},
		{"game name free without a game", mcp.Options{Tools: []agent.Tool{tool("game_act", `{"type":"object"}`)}}, ""},
		{"empty name", mcp.Options{Tools: []agent.Tool{tool("", `{"type":"object"}`)}}, "name is empty"},
		{"bad name", mcp.Options{Tools: []agent.Tool{tool("look up", `{"type":"object"}`)}}, `has ' '`},
		{"long name", mcp.Options{Tools: []agent.Tool{tool(strings.Repeat("x", 129), `{"type":"object"}`)}}, "at most 128"},
		{"schema not JSON", mcp.Options{Tools: []agent.Tool{tool("a", `{"type":`)}}, "not a JSON Schema"},
		{"schema not an object", mcp.Options{Tools: []agent.Tool{tool("a", `{"type":"array"}`)}}, `must have "type": "object"`},
		{"schema without type", mcp.Options{Tools: []agent.Tool{tool("a", `{"properties":{}}`)}}, `must have "type": "object"`},
		{"schema with a bad ref", mcp.Options{Tools: []agent.Tool{tool("a", `{"type":"object","properties":{"x":{"$ref":"#/$defs/nope"}}}`)}}, "parameters schema"},
		{"internal tool without Run", mcp.Options{Tools: []agent.Tool{{Tool: llm.Tool{Name: "a"}}}}, "neither external nor has a Run"},
		{"external tools are not checked", mcp.Options{Tools: []agent.Tool{{Tool: llm.Tool{Name: "bad name!"}, External: true}}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := mcp.New(c.opts)
			switch {
			case c.error == "" && err != nil:
				t.Fatalf("New: %v", err)
			case c.error != "" && (err == nil || !strings.Contains(err.Error(), c.error)):
				t.Fatalf("New error = %v, want one containing %q", err, c.error)
			}
		})
	}
}

// TestLocalhostProtection checks that a loopback request naming a public
// host is refused unless the option for a same-machine reverse proxy is set.
func TestLocalhostProtection(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	for _, disabled := range []bool{false, true} {
		srv, err := mcp.New(mcp.Options{DisableLocalhostProtection: disabled})
		if err != nil {
			t.Fatal(err)
		}
		for name, h := range map[string]http.Handler{"streamable-http": srv.Handler(), "sse": srv.SSEHandler()} {
			t.Run(fmt.Sprintf("%s/disabled=%v", name, disabled), func(t *testing.T) {
				ts := httptest.NewServer(h)
				defer ts.Close()
				req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
				req.Host = "hearth.example.com"
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if forbidden := resp.StatusCode == http.StatusForbidden; forbidden == disabled {
					t.Errorf("status %d with protection disabled=%v", resp.StatusCode, disabled)
				}
			})
		}
	}
}
