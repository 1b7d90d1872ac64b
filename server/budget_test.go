package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/mcp"
)

// bearer adds an API key to every request.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

// TestOwnRateBudgets: MCP and tool results have budgets of their own. An
// agent's burst of 40 tool calls goes through although the chat budget is
// 3 requests, that budget is untouched afterwards, and each budget, once
// spent, answers 429 with Retry-After. One request a minute refills the
// buckets, so nothing here depends on how fast the machine is.
func TestOwnRateBudgets(t *testing.T) {
	echo := agent.Tool{Tool: llm.Tool{Name: "echo", Description: "Says ok.", Parameters: json.RawMessage(`{"type":"object"}`)},
		Run: func(context.Context, json.RawMessage) (agent.Result, error) { return agent.Result{Content: "ok"}, nil }}
	m, err := mcp.New(mcp.Options{Tools: []agent.Tool{echo}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOpts{ratePerMin: 1, burst: 3,
		at:    map[string]budget{"/mcp": {perMin: 1, burst: 50}, "/api/tool_result": {perMin: 1, burst: 40}},
		mount: func(mux *http.ServeMux) { mux.Handle("/mcp", m.Handler()) }})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: f.url + "/mcp", MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{f.gmKey}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 40 {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("MCP tool call %d of 40: %v %v", i+1, res, err)
		}
	}
	spend := func(path, body string, most int) {
		t.Helper()
		for range most {
			resp := f.do("POST", path, f.gmKey, body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusTooManyRequests {
				if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 {
					t.Errorf("%s: 429 with Retry-After %q", path, resp.Header.Get("Retry-After"))
				}
				return
			}
		}
		t.Errorf("%s: no 429 after %d more requests", path, most)
	}
	spend("/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 50)

	// Tool results: 40 at once are within their budget (the calls they
	// answer do not exist, so each is refused, but not for its rate).
	for i := range 40 {
		resp := f.do("POST", "/api/tool_result", f.gmKey, map[string]any{"conversation_id": "c", "tool_call_id": strconv.Itoa(i), "result": "x"})
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			t.Fatalf("tool result %d of 40: 429", i+1)
		}
	}
	spend("/api/tool_result", `{}`, 1)

	// The chat budget is whole: 3 requests, then 429.
	for range 3 {
		wantStatus(t, f.do("GET", "/api/documents", f.gmKey, nil), 200, "")
	}
	spend("/api/search", `{"query":"jump"}`, 1)
}
