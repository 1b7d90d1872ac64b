package mcp_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/sqlitekeys"
	"github.com/hearth-rpg/hearth/internal/syncbuf"
	"github.com/hearth-rpg/hearth/mcp"
	"github.com/hearth-rpg/hearth/server"
)

// keyed is an MCP server behind the real auth middleware and a real
// keyring, with a GM's and a player's key, on a real HTTP server.
type keyed struct {
	url          string
	gmKey, plKey string
	gmID, plID   string
	log          *syncbuf.Buffer
	streamable   string // the endpoints
	sse          string
}

func newKeyed(t *testing.T) *keyed {
	t.Helper()
	ctx := context.Background()
	kr, err := sqlitekeys.OpenKeyring(ctx, filepath.Join(t.TempDir(), "hearth.db"),
		auth.WithParams(auth.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 16}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kr.Close() })
	k := &keyed{log: &syncbuf.Buffer{}}
	key := func(name string, role access.Level) (string, string) {
		u, err := kr.AddUser(ctx, name, role)
		if err != nil {
			t.Fatal(err)
		}
		key, _, err := kr.IssueKey(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return key, u.ID
	}
	k.gmKey, k.gmID = key("gm", access.GM)
	k.plKey, k.plID = key("ann", access.Player)

	f := newFixture(t)
	// A fresh server with a logger, so what it logs can be read; Debug, so
	// that nothing is hidden by the level.
	log := slog.New(slog.NewTextHandler(k.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := mcp.New(mcp.Options{Tools: fixtureTools(f), Game: f.game, Version: "test", Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler())
	mux.Handle("/mcp/sse", srv.SSEHandler())
	ts := httptest.NewServer(server.Require(kr, nil, nil, mux))
	t.Cleanup(ts.Close)
	k.url, k.streamable, k.sse = ts.URL, ts.URL+"/mcp", ts.URL+"/mcp/sse"
	return k
}

// post sends one JSON-RPC message with key and returns the status and body.
func post(t *testing.T, target, key, session, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const whoamiCall = `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`

// TestStreamableSessionIsTheOpeners: a player who presents a GM's
// Mcp-Session-Id with the player's own key gets 403 on every method, runs
// nothing, and the refusal is logged without the id.
func TestStreamableSessionIsTheOpeners(t *testing.T) {
	k := newKeyed(t)
	gm := connect(t, &sdk.StreamableClientTransport{Endpoint: k.streamable, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{k.gmKey}}})
	id := gm.ID()
	if id == "" {
		t.Fatal("the streamable session has no id")
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if res, err := gm.CallTool(ctx, &sdk.CallToolParams{Name: "whoami"}); err != nil || text(res) != k.gmID+" gm_only" {
		t.Fatalf("GM whoami on the GM's session: %v %v", res, err)
	}

	code, body := post(t, k.streamable, k.plKey, id, whoamiCall)
	if code != http.StatusForbidden || strings.Contains(body, k.gmID) {
		t.Fatalf("player on the GM's session: %d %q, want 403 and no tool result", code, body)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(method, k.streamable, nil)
		req.Header.Set("Authorization", "Bearer "+k.plKey)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("player %s on the GM's session: %d, want 403", method, resp.StatusCode)
		}
	}
	// Made-up ids are unknown, whoever asks.
	if code, _ := post(t, k.streamable, k.gmKey, "not-a-session", whoamiCall); code != http.StatusNotFound {
		t.Errorf("unknown session: %d, want 404", code)
	}
	// The GM's session survived the attempts (the DELETE above did not
	// close it), and the player's own session is the player's.
	if res, err := gm.CallTool(ctx, &sdk.CallToolParams{Name: "whoami"}); err != nil || text(res) != k.gmID+" gm_only" {
		t.Fatalf("GM whoami after the player's attempts: %v %v", res, err)
	}
	pl := connect(t, &sdk.StreamableClientTransport{Endpoint: k.streamable, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{k.plKey}}})
	if res, err := pl.CallTool(ctx, &sdk.CallToolParams{Name: "whoami"}); err != nil || text(res) != k.plID+" player" {
		t.Fatalf("player whoami on the player's session: %v %v", res, err)
	}
	if code, _ := post(t, k.streamable, k.gmKey, pl.ID(), whoamiCall); code != http.StatusForbidden {
		t.Errorf("GM on the player's session: %d, want 403", code)
	}
	checkLog(t, k.log.String(), id, pl.ID())
}

// TestSSESessionIsTheOpeners: the same over the HTTP+SSE transport, where
// the id is the sessionid query parameter and results come back on the
// opener's stream.
func TestSSESessionIsTheOpeners(t *testing.T) {
	k := newKeyed(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, k.sse, nil)
	req.Header.Set("Authorization", "Bearer "+k.gmKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewScanner(resp.Body)
	next := func(want string) string { // the data of the next event holding want
		t.Helper()
		for events.Scan() {
			if line := events.Text(); strings.HasPrefix(line, "data: ") && strings.Contains(line, want) {
				return strings.TrimPrefix(line, "data: ")
			}
		}
		t.Fatalf("the stream ended before an event with %q: %v", want, events.Err())
		return ""
	}
	endpoint := next("sessionid=")
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	id := u.Query().Get("sessionid")
	target := k.url + endpoint
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		if code, body := post(t, target, k.gmKey, "", msg); code != http.StatusAccepted {
			t.Fatalf("GM %s: %d %s", msg, code, body)
		}
	}
	next(`"id":1`)

	code, body := post(t, target, k.plKey, "", strings.Replace(whoamiCall, "99", "7", 1))
	if code != http.StatusForbidden {
		t.Fatalf("player on the GM's SSE session: %d %q, want 403", code, body)
	}
	if code, _ := post(t, k.sse+"?sessionid=not-a-session", k.gmKey, "", whoamiCall); code != http.StatusNotFound {
		t.Errorf("unknown SSE session: %d, want 404", code)
	}
	// The GM's own call still works, and the first result on the stream is
	// the GM's: the player's call never ran.
	if code, _ := post(t, target, k.gmKey, "", whoamiCall); code != http.StatusAccepted {
		t.Fatalf("GM whoami: %d", code)
	}
	if got := next(`"result"`); !strings.Contains(got, `"id":99`) || !strings.Contains(got, k.gmID+" gm_only") {
		t.Fatalf("first result after the player's attempt: %s, want the GM's whoami (id 99)", got)
	}
	cancel()
	checkLog(t, k.log.String(), id)
}

// checkLog wants the refusal logged with the user and no session id
// anywhere in the log, at any level.
func checkLog(t *testing.T, log string, ids ...string) {
	t.Helper()
	if !strings.Contains(log, "mcp session refused") {
		t.Errorf("the refusal is not logged:\n%s", log)
	}
	for _, id := range ids {
		if strings.Contains(log, id) {
			t.Errorf("the log holds session id %s:\n%s", id, log)
		}
	}
}

// bearer adds an API key to every request.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}
