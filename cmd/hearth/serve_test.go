package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/hearthtest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// secretBook is a GM-only book ingested into a data directory.
const secretBook = "# Purser's Secret\n\nThe purser Karesh is a Zhodani infiltrator who sabotages the jump drive.\n"

// dataWithSecret makes a data directory holding a GM-only book, a game and
// a GM and a player key.
func dataWithSecret(t *testing.T) (dir, gmKey, playerKey string) {
	t.Helper()
	dir = t.TempDir()
	book := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(book, []byte(secretBook), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, nil, "ingest", book, "--access", "gm_only", "--tags", "plot", "--data", dir)
	run(t, strings.NewReader("look\n"), "play", "--new", "--seed", "3", "--data", dir)
	key := regexp.MustCompile(`hth_[a-z0-9_]+`)
	gmKey = key.FindString(run(t, nil, "user", "add", "gm", "--role", "gm", "--data", dir))
	playerKey = key.FindString(run(t, nil, "user", "add", "ann", "--role", "player", "--data", dir))
	if gmKey == "" || playerKey == "" {
		t.Fatal("no keys printed")
	}
	return dir, gmKey, playerKey
}

func connectMCP(t *testing.T, tr sdk.Transport) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	c := sdk.NewClient(&sdk.Implementation{Name: "hearth-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// Every MCP tool, called through the real binary over stdio.
func TestMCPStdio(t *testing.T) {
	dir, _, _ := dataWithSecret(t)
	cmd := exec.Command(hearthBin, "mcp", "--data", dir)
	cmd.Stderr = io.Discard
	cs := connectMCP(t, &sdk.CommandTransport{Command: cmd})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	want := "document_get document_search game_act game_list_sessions game_state image_search system_schema traveller_jump_calc traveller_skill_lookup traveller_uwp_parse"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("tools %s\nwant %s", got, want)
	}
	// stdio is the GM's own machine: the GM-only book is there.
	if text, isErr := callText(t, cs, "document_search", map[string]any{"query": "purser Zhodani infiltrator"}); isErr || !strings.Contains(text, "Karesh") {
		t.Fatalf("document_search: %q", text)
	}
	id := regexp.MustCompile(`document_id ([0-9a-f]+)`).FindStringSubmatch(must(callText(t, cs, "document_search", map[string]any{"query": "purser"})))
	if id == nil {
		t.Fatal("no document_id in the search result")
	}
	if text, isErr := callText(t, cs, "document_get", map[string]any{"document_id": id[1], "page": 1}); isErr || !strings.Contains(text, "jump drive") {
		t.Fatalf("document_get: %q", text)
	}
	if text, isErr := callText(t, cs, "document_get", map[string]any{"document_id": "nosuch", "page": 1}); !isErr || !strings.Contains(text, "no document") {
		t.Fatalf("document_get of nothing: %q %v", text, isErr)
	}
	if text, _ := callText(t, cs, "system_schema", map[string]any{}); !strings.Contains(text, "did not describe") {
		t.Fatalf("system_schema: %q", text)
	}
	if text, _ := callText(t, cs, "traveller_uwp_parse", map[string]any{"uwp": "A788899-C"}); !strings.Contains(text, `"trade_codes"`) {
		t.Fatalf("uwp: %q", text)
	}
	if text, _ := callText(t, cs, "traveller_jump_calc", map[string]any{"from": "Spinward Marches 1910", "to": "Spinward Marches 2110", "ship_jump_rating": 2}); !strings.Contains(text, `"distance_parsecs":2`) {
		t.Fatalf("jump: %q", text)
	}
	if text, isErr := callText(t, cs, "traveller_skill_lookup", map[string]any{"skill_name": "Athletics"}); isErr || text == "" {
		t.Fatalf("skill: %q", text)
	}
	sessions := must(callText(t, cs, "game_list_sessions", map[string]any{}))
	sid := regexp.MustCompile(`"id":\s*"([0-9a-f]+)"`).FindStringSubmatch(sessions)
	if sid == nil {
		t.Fatalf("game_list_sessions: %q", sessions)
	}
	if text, isErr := callText(t, cs, "game_state", map[string]any{"session_id": sid[1]}); isErr || !strings.Contains(text, "locations") {
		t.Fatalf("game_state: %.200q", text)
	}
	if text, isErr := callText(t, cs, "game_act", map[string]any{"session_id": sid[1], "input": "look around"}); isErr || !strings.Contains(text, "Turn 2") {
		t.Fatalf("game_act: %.300q", text)
	}
}

func must(s string, _ bool) string { return s }

// startServe runs `hearth serve` on a free port until the test ends, then
// stops it with SIGTERM and checks it shut down cleanly.
// env adds configuration variables; the rate limits are the defaults.
func startServe(t *testing.T, dir string, env ...string) string {
	t.Helper()
	return startServeIn(t, dir, "", env...)
}

// startServeIn starts hearth serve with working directory wd ("" for the
// test's).
func startServeIn(t *testing.T, dir, wd string, env ...string) string {
	t.Helper()
	return hearthtest.Server{Bin: hearthBin, Data: dir, WorkDir: wd, Env: env}.Start(t)
}

// launchServe starts hearth serve and returns it with its URL once it
// serves; stopping it is the caller's.
func launchServe(t *testing.T, dir, wd string, env ...string) (*exec.Cmd, string) {
	t.Helper()
	return hearthtest.Server{Bin: hearthBin, Data: dir, WorkDir: wd, Env: env}.Launch(t)
}

// The real server: chat, search and MCP over HTTP, each as a GM and as a
// player; the player never reads the GM-only book.
func TestServeEndToEnd(t *testing.T) {
	dir, gmKey, playerKey := dataWithSecret(t)
	url := startServe(t, dir)
	get := func(path, key string, body string) (int, string) {
		t.Helper()
		method := "GET"
		var r io.Reader
		if body != "" {
			method, r = "POST", strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, url+path, r)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/health", "", ""); code != 200 || !strings.Contains(body, "healthy") {
		t.Fatalf("health: %d %s", code, body)
	}
	if code, _ := get("/api/documents", "", ""); code != 401 {
		t.Fatalf("no key: %d", code)
	}
	q := `{"query":"purser Zhodani infiltrator"}`
	if _, body := get("/api/search", gmKey, q); !strings.Contains(body, "Karesh") {
		t.Fatalf("GM search: %s", body)
	}
	if _, body := get("/api/search", playerKey, q); strings.Contains(body, "Karesh") {
		t.Fatalf("player search leaks: %s", body)
	}
	// The offline assistant quotes the books, as the caller's role.
	chat := `{"messages":[{"role":"user","content":"Who is the purser Karesh?"}]}`
	if _, body := get("/api/chat", gmKey, chat); !strings.Contains(body, `"type":"done"`) || !strings.Contains(body, "Zhodani") {
		t.Fatalf("GM chat: %s", body)
	}
	if _, body := get("/api/chat", playerKey, chat); !strings.Contains(body, `"type":"done"`) || strings.Contains(body, "Zhodani") {
		t.Fatalf("player chat: %s", body)
	}
	// MCP over streamable HTTP, behind the key.
	for _, c := range []struct {
		key    string
		secret bool
	}{{gmKey, true}, {playerKey, false}} {
		cs := connectMCP(t, &sdk.StreamableClientTransport{Endpoint: url + "/mcp", MaxRetries: -1,
			HTTPClient: &http.Client{Transport: hearthtest.Bearer{Key: c.key}}})
		text, _ := callText(t, cs, "document_search", map[string]any{"query": "purser Zhodani infiltrator"})
		if strings.Contains(text, "Karesh") != c.secret {
			t.Errorf("MCP document_search (secret expected %v): %q", c.secret, text)
		}
		if c.secret {
			continue
		}
		// A player's game_state is the player's view.
		sessions := must(callText(t, cs, "game_list_sessions", map[string]any{}))
		sid := regexp.MustCompile(`"id":\s*"([0-9a-f]+)"`).FindStringSubmatch(sessions)
		if sid == nil {
			t.Fatalf("sessions: %q", sessions)
		}
		var gm, pl map[string]any
		gmCS := connectMCP(t, &sdk.StreamableClientTransport{Endpoint: url + "/mcp", MaxRetries: -1,
			HTTPClient: &http.Client{Transport: hearthtest.Bearer{Key: gmKey}}})
		json.Unmarshal([]byte(must(callText(t, gmCS, "game_state", map[string]any{"session_id": sid[1]}))), &gm)
		json.Unmarshal([]byte(must(callText(t, cs, "game_state", map[string]any{"session_id": sid[1]}))), &pl)
		pb, _ := json.Marshal(pl)
		gb, _ := json.Marshal(gm)
		if len(pl) == 0 || len(gm) == 0 || len(pb) >= len(gb) {
			t.Errorf("the player's state is not smaller than the GM's")
		}
		// The player's key with the GM's session id: refused, nothing run.
		req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"document_search","arguments":{"query":"purser Zhodani infiltrator"}}}`))
		req.Header.Set("Authorization", "Bearer "+playerKey)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", gmCS.ID())
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || strings.Contains(string(b), "Karesh") {
			t.Errorf("player on the GM's MCP session: %d %s", resp.StatusCode, b)
		}
		// An agent's burst of tool calls fits the MCP budget, with the
		// default limits (the chat budget allows 10 at once).
		for i := range 40 {
			if _, isErr := callText(t, cs, "traveller_uwp_parse", map[string]any{"uwp": "A788899-C"}); isErr {
				t.Fatalf("MCP call %d of 40 failed", i+1)
			}
		}
	}
	// The chat budget is untouched by all that MCP.
	if code, body := get("/api/search", playerKey, q); code != 200 {
		t.Fatalf("player search after the MCP burst: %d %s", code, body)
	}
	// Without a key, /mcp is refused.
	if code, _ := get("/mcp", "", ""); code != 401 {
		t.Fatalf("/mcp without a key: %d", code)
	}
}

// --print-config shows the layers' result, secrets masked; a bad value is
// refused with its source named.
func TestServePrintConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "hearth.toml")
	if err := os.WriteFile(cfg, []byte("[server]\nport = 9100\n\n[models.assistant]\nprovider = \"openai\"\napi_key = \"sk-very-secret\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hearthBin, "serve", "--config", cfg, "--print-config")
	cmd.Env = append(os.Environ(), "HEARTH__LIMITS__RATE_LIMIT_RPM=30")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"port = 9100", "rate_limit_rpm = 30", `api_key = "****"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("print-config lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "sk-very-secret") {
		t.Errorf("print-config shows the secret:\n%s", out)
	}
	bad := exec.Command(hearthBin, "serve", "--config", cfg, "--print-config")
	bad.Env = append(os.Environ(), "HEARTH__SERVER__PORT=eighty")
	out, err = bad.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "HEARTH__SERVER__PORT") {
		t.Fatalf("bad port: %v\n%s", err, out)
	}
}

// `hearth mcp` answers a malformed line with a JSON-RPC parse error and
// keeps serving; notifications/initialized right after initialize is no
// error.
func TestMCPStdioBadLine(t *testing.T) {
	cmd := exec.Command(hearthBin, "mcp", "--data", t.TempDir())
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`this is not json`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	} {
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	var replies []map[string]any
	for len(replies) < 3 && sc.Scan() {
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Text(), err)
		}
		replies = append(replies, r)
	}
	in.Close() // the client goes: a normal end
	if err := cmd.Wait(); err != nil {
		t.Fatalf("hearth mcp: %v\n%s", err, stderr.String())
	}
	byID := map[string]map[string]any{}
	for _, r := range replies {
		byID[fmt.Sprint(r["id"])] = r
	}
	if e, _ := byID["<nil>"]["error"].(map[string]any); e == nil || e["code"] != -32700.0 {
		t.Errorf("no parse error for the bad line: %v", replies)
	}
	if byID["1"]["result"] == nil || byID["2"]["result"] == nil {
		t.Errorf("initialize and tools/list, around the bad line, were not both answered: %v", replies)
	}
	if strings.Contains(stderr.String(), `"level":"ERROR"`) {
		t.Errorf("errors logged:\n%s", stderr.String())
	}
}

// limits.mcp_rpm is MCP's own budget: spent, /mcp and /mcp/sse answer 429
// with Retry-After while the chat budget is still whole.
func TestServeMCPBudget(t *testing.T) {
	dir := t.TempDir()
	key := regexp.MustCompile(`hth_[a-z0-9_]+`).FindString(run(t, nil, "user", "add", "gm", "--role", "gm", "--data", dir))
	url := startServe(t, dir, "HEARTH__LIMITS__MCP_RPM=1") // one request a minute, one at once
	do := func(method, path string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, url+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := do("POST", "/mcp"); resp.StatusCode == http.StatusTooManyRequests {
		t.Fatal("the first MCP request was refused")
	}
	for _, path := range []string{"/mcp", "/mcp/sse?sessionid=x"} {
		resp := do("POST", path)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s over the MCP budget: %d, Retry-After %q", path, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	if resp := do("GET", "/api/documents"); resp.StatusCode != http.StatusOK {
		t.Errorf("/api/documents with the MCP budget spent: %d", resp.StatusCode)
	}
}

// With the default limits a browser's many small requests pass, while the
// routes that make a model work keep limits.rate_limit_rpm's burst of 10:
// the eleventh chat at once is refused, and reading goes on.
func TestServeModelBudget(t *testing.T) {
	dir := t.TempDir()
	key := regexp.MustCompile(`hth_[a-z0-9_]+`).FindString(run(t, nil, "user", "add", "gm", "--role", "gm", "--data", dir))
	url := startServe(t, dir)
	do := func(method, path, body string) *http.Response {
		t.Helper()
		var r io.Reader
		if body != "" {
			r = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, url+path, r)
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for i := range 100 {
		if resp := do("GET", "/api/sessions", ""); resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /api/sessions number %d: %d", i+1, resp.StatusCode)
		}
	}
	chat := `{"messages":[{"role":"user","content":"grappling"}],"stream":false}`
	for i := range 10 {
		if resp := do("POST", "/api/chat", chat); resp.StatusCode != http.StatusOK {
			t.Fatalf("chat number %d: %d", i+1, resp.StatusCode)
		}
	}
	for _, path := range []string{"/api/chat", "/api/chat/continue"} {
		resp := do("POST", path, chat)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s past the model budget: %d, Retry-After %q", path, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	if resp := do("GET", "/api/sessions", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /api/sessions with the model budget spent: %d", resp.StatusCode)
	}
}
