package server_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"image"
	"image/jpeg"
	"io"
	"io/fs"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/assistant/sqliteconversations"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/sqlitekeys"
	"github.com/hearth-rpg/hearth/chargen/sqlitecharacters"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/ingest"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/ingest/library/sqlitelibrary"
	"github.com/hearth-rpg/hearth/ingest/markdown"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
	"github.com/hearth-rpg/hearth/server"
)

// The words only the GM's book holds. A player must never see them.
const secret = "Zhodani infiltrator Karesh"

type fixture struct {
	t       *testing.T
	url     string
	gmKey   string
	plKey   string
	pl2Key  string // a second player
	model   *cassette.Player
	chat    *assistant.Assistant
	lib     *library.Library
	imageGM int64
	srv     *server.Server
	assets  string // fvtt.assets_path
	db      string // the SQLite file
	kr      *auth.Keyring
	opts    server.Options
}

type fixtureOpts struct {
	script     []cassette.Interaction
	agent      agent.Config
	maxUpload  int64
	ratePerMin float64
	burst      int
	provider   llm.Provider
	publicURL  string
	log        *slog.Logger // default quiet
	proxies    []string     // server.trusted_proxies
	// at gives exact paths their own rate budgets; mount adds routes.
	at    map[string]budget
	mount func(*http.ServeMux)
	// model is the budget of the routes that make a model work, with
	// modelRoutes among the mounted ones.
	model       *budget
	modelRoutes []string
	// public adds routes that need no key.
	public func(*http.ServeMux)
	// sessions turns on browser sign-in, on clock when set.
	sessions bool
	clock    *clock
	// beforeStage is the server's test hook in uploads' ingests.
	beforeStage func(ctx context.Context, job, stage string) error
	// keepAlive is server.Options.KeepAlive.
	keepAlive time.Duration
}

type budget struct {
	perMin float64
	burst  int
}

func newFixture(t *testing.T, o fixtureOpts) *fixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "hearth.db")
	ix, err := sqliteindex.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	st, err := sqlitelibrary.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	lib := library.New(st, ix)
	put := func(id, title string, level access.Level, text string, withImage bool) {
		t.Helper()
		var ims []library.Image
		if withImage {
			ims = []library.Image{{Page: 1, Index: 0, Width: 2, Height: 2, Data: tinyWebP, Description: "deck plan of the " + title}}
		}
		err := lib.Put(ctx, library.Document{ID: id, Title: title, Format: "markdown", Source: id + ".md", Hash: id, Access: level, Tags: []string{"traveller"}},
			[]library.Page{{Number: 1, Text: text}}, ims,
			[]chunk.Chunk{{Section: []string{title}, Page: 1, Text: text}})
		if err != nil {
			t.Fatal(err)
		}
	}
	put("core", "Core Rulebook", access.Player, "Repairing a jump drive takes an Engineer (j-drive) check at 8+ and 1D hours.", true)
	put("secrets", "Adventure Secrets", access.GM, "The purser is a "+secret+" who sabotages the jump drive.", true)
	ims, err := lib.SearchImages(ctx, library.ImageQuery{Document: "secrets", Role: access.GM})
	if err != nil || len(ims) != 1 {
		t.Fatalf("gm image: %v %v", ims, err)
	}

	convs, err := sqliteconversations.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { convs.Close() })
	model := cassette.Script(o.script...)
	var provider llm.Provider = model
	if o.provider != nil {
		provider = o.provider
	}
	chat, err := assistant.New(assistant.Options{Provider: provider, Model: "test", Conversations: convs,
		Toolbox: &assistant.Toolbox{Search: ix, Documents: lib}, Agent: o.agent, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	kopts := []auth.Option{auth.WithParams(auth.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 16})}
	if o.clock != nil {
		kopts = append(kopts, auth.WithClock(o.clock.Now))
	}
	kr, err := sqlitekeys.OpenKeyring(ctx, db, kopts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kr.Close() })
	key := func(name string, role access.Level) string {
		if _, err := kr.AddUser(ctx, name, role); err != nil {
			t.Fatal(err)
		}
		k, _, err := kr.IssueKey(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	f := &fixture{t: t, kr: kr, model: model, chat: chat, lib: lib, imageGM: ims[0].ID, assets: filepath.Join(dir, "fvtt"), db: db}
	log := quiet
	if o.log != nil {
		log = o.log
	}
	f.gmKey, f.plKey, f.pl2Key = key("gm", access.GM), key("player", access.Player), key("player2", access.Player)
	chars, err := sqlitecharacters.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chars.Close() })
	var lim *auth.Limiter
	if o.ratePerMin > 0 {
		lim = auth.NewLimiter(o.ratePerMin, o.burst)
	}
	var reg ingest.Registry
	reg.Register(ingest.Markdown, markdown.Markdown{})
	reg.Register(ingest.Text, markdown.Text{})
	a := server.Auth{Keys: kr, Log: log}
	if o.sessions {
		if a.Sessions, err = kr.Sessions(auth.SessionOptions{Idle: time.Hour, Max: 24 * time.Hour, Logger: log}); err != nil {
			t.Fatal(err)
		}
	}
	at := map[string]func(http.Handler) http.Handler{}
	for path, b := range o.at {
		a := a
		a.Limit = auth.NewLimiter(b.perMin, b.burst)
		at[path] = a.Require
	}
	all := a
	all.Limit = lim
	f.opts = server.Options{Version: "test", Assistant: chat, Index: ix, Library: lib, Extractors: &reg, Logger: log,
		Authenticate: all.Require, Sessions: a.Sessions,
		AuthenticateAt: at, Mount: o.mount, Public: o.public,
		MaxUploadBytes: o.maxUpload, PublicURL: o.publicURL, WorkDir: filepath.Join(dir, "work"), AssetsPath: f.assets,
		TrustedProxies: o.proxies, BeforeStage: o.beforeStage, Characters: chars, ModelRoutes: o.modelRoutes,
		Users: kr, ModelRoles: []server.ModelRole{{Role: "narrator", Provider: "openai", Model: "narrator-1"}},
		KeepAlive: o.keepAlive}
	if o.model != nil {
		f.opts.ModelLimit = auth.NewLimiter(o.model.perMin, o.model.burst)
	}
	f.serve()
	return f
}

// serve starts a server over the fixture's stores, as `hearth serve`
// does: New, then Resume.
func (f *fixture) serve() {
	f.t.Helper()
	srv, err := server.New(f.opts)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := srv.Resume(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	f.srv = srv
	ts := httptest.NewServer(srv)
	f.t.Cleanup(ts.Close)
	f.url = ts.URL
}

var quiet = slog.New(slog.DiscardHandler)

// tinyWebP is a 2×2 lossless WebP.
var tinyWebP = []byte("RIFF\x1c\x00\x00\x00WEBPVP8L\x0f\x00\x00\x00/\x01@\x00\x00\x07\x10\x11\xfd\x0f\x00\x00\x00")

func (f *fixture) do(method, path, key string, body any) *http.Response {
	f.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, f.url+path, r)
	if err != nil {
		f.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp
}

func decode[T any](t *testing.T, resp *http.Response) T {
	t.Helper()
	defer resp.Body.Close()
	var v T
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", resp.Request.URL.Path, err)
	}
	return v
}

func wantStatus(t *testing.T, resp *http.Response, code int, errCode hearth.Code) {
	t.Helper()
	if resp.StatusCode != code {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: status %d, want %d: %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, code, b)
	}
	if errCode != "" {
		e := decode[api.ErrorBody](t, resp)
		if e.Error.Code != errCode || e.Error.Message == "" {
			t.Fatalf("error body %+v, want code %s", e, errCode)
		}
	}
}

// stream is an SSE client over a real connection.
type stream struct {
	t      *testing.T
	resp   *http.Response
	events chan agent.Event
	conv   string
}

func (f *fixture) openChat(key string, req map[string]any) *stream {
	f.t.Helper()
	resp := f.do("POST", "/api/chat", key, req)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		f.t.Fatalf("chat: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	s := &stream{t: f.t, resp: resp, events: make(chan agent.Event, 64), conv: resp.Header.Get("X-Conversation-ID")}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue // blank separators and keep-alive comments
			}
			var e agent.Event
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				f.t.Errorf("bad SSE data %q: %v", data, err)
				return
			}
			s.events <- e
		}
	}()
	return s
}

// next waits for the next event.
func (s *stream) next() agent.Event {
	s.t.Helper()
	select {
	case e, ok := <-s.events:
		if !ok {
			s.t.Fatal("the stream ended early")
		}
		return e
	case <-time.After(10 * time.Second):
		s.t.Fatal("no event within 10s")
	}
	return agent.Event{}
}

// until reads events up to one of type typ and returns them all.
func (s *stream) until(typ string) []agent.Event {
	s.t.Helper()
	var got []agent.Event
	for {
		e := s.next()
		got = append(got, e)
		if e.Type == typ {
			return got
		}
	}
}

func types(es []agent.Event) string {
	var out []string
	for _, e := range es {
		out = append(out, e.Type)
	}
	return strings.Join(out, " ")
}

func textOf(es []agent.Event) string {
	var b strings.Builder
	for _, e := range es {
		if e.Type == agent.Content {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func userMsg(text string) []map[string]string {
	return []map[string]string{{"role": "user", "content": text}}
}

// waitInactive waits until the conversation has no active request.
func (f *fixture) waitInactive(conv string) {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for f.chat.IsActive(conv) {
		if time.Now().After(deadline) {
			f.t.Fatalf("conversation %s still active", conv)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestChatWithInternalTool(t *testing.T) {
	f := newFixture(t, fixtureOpts{script: []cassette.Interaction{
		cassette.Calls("document_search", `{"query":"repair jump drive"}`),
		cassette.Text("An Engineer (j-drive) check at 8+, ", "taking 1D hours (Core Rulebook, page 1)."),
	}})
	s := f.openChat(f.gmKey, map[string]any{"messages": userMsg("How do I repair a jump drive?")})
	es := s.until(agent.Done)
	if got := types(es); got != "tool_status tool_result content content done" {
		t.Fatalf("events: %s", got)
	}
	if es[0].Message != "Searching the rulebooks…" || es[1].Tool != "document_search" || es[1].Summary == "" {
		t.Errorf("tool events: %+v %+v", es[0], es[1])
	}
	if got := textOf(es); !strings.Contains(got, "1D hours") {
		t.Errorf("content %q", got)
	}
	if es[len(es)-1].Usage == nil {
		t.Error("done without usage")
	}
	// The model saw the search result, cited.
	reqs := f.model.Requests()
	toolMsg := reqs[1].Messages[len(reqs[1].Messages)-1]
	if toolMsg.Role != llm.ToolRole || !strings.Contains(toolMsg.Content, "Engineer (j-drive)") || !strings.Contains(toolMsg.Content, "Core Rulebook") {
		t.Errorf("tool message %+v", toolMsg)
	}
	f.waitInactive(s.conv)
	// The conversation was saved and is the user's alone.
	conv := decode[assistant.Conversation](t, f.do("GET", "/api/conversations/"+s.conv, f.gmKey, nil))
	if len(conv.Messages) != 4 || conv.Messages[0].Content != "How do I repair a jump drive?" {
		t.Errorf("saved messages %+v", conv.Messages)
	}
	wantStatus(t, f.do("GET", "/api/conversations/"+s.conv, f.plKey, nil), 404, api.NotFound)
}

func TestExternalToolRoundTrip(t *testing.T) {
	f := newFixture(t, fixtureOpts{script: []cassette.Interaction{
		cassette.Calls("fvtt_read", `{"document_type":"actor","document_id":"ship"}`),
		cassette.Text("Your ship's jump drive is damaged."),
	}})
	s := f.openChat(f.gmKey, map[string]any{"messages": userMsg("What is wrong with my ship?"), "conversation_id": "conv_ship"})
	call := s.next()
	if call.Type != agent.ToolCall || call.Tool != "fvtt_read" || call.ID == "" || !strings.Contains(string(call.Args), `"ship"`) {
		t.Fatalf("first event %+v", call)
	}
	// Wrong id: 400; unknown conversation: 404; another user's: 404.
	wantStatus(t, f.do("POST", "/api/tool_result", f.gmKey, map[string]any{"conversation_id": "conv_ship", "tool_call_id": "nope", "result": 1}), 400, api.Invalid)
	wantStatus(t, f.do("POST", "/api/tool_result", f.gmKey, map[string]any{"conversation_id": "conv_none", "tool_call_id": call.ID, "result": 1}), 404, api.NotFound)
	wantStatus(t, f.do("POST", "/api/tool_result", f.plKey, map[string]any{"conversation_id": "conv_ship", "tool_call_id": call.ID, "result": 1}), 404, api.NotFound)
	wantStatus(t, f.do("POST", "/api/tool_result", f.gmKey, map[string]any{"conversation_id": "conv_ship", "tool_call_id": call.ID,
		"result": map[string]any{"name": "Beowulf", "jump_drive": "damaged"}}), 200, "")
	es := s.until(agent.Done)
	if got := textOf(es); got != "Your ship's jump drive is damaged." {
		t.Fatalf("content %q (%s)", got, types(es))
	}
	if m := f.model.Requests()[1].Messages; !strings.Contains(m[len(m)-1].Content, `"jump_drive":"damaged"`) {
		t.Errorf("the model did not get the client's result: %+v", m[len(m)-1])
	}
	f.waitInactive("conv_ship")
	wantStatus(t, f.do("POST", "/api/tool_result", f.gmKey, map[string]any{"conversation_id": "conv_ship", "tool_call_id": call.ID, "result": 1}), 404, api.NotFound)
}

func TestPauseContinueAndCancel(t *testing.T) {
	f := newFixture(t, fixtureOpts{agent: agent.Config{PauseAfterCalls: 1}, script: []cassette.Interaction{
		cassette.Calls("document_search", `{"query":"jump"}`),
		cassette.Calls("document_search", `{"query":"drive"}`),
		cassette.Calls("document_search", `{"query":"fuel"}`),
		cassette.Text("never said"),
	}})
	s := f.openChat(f.gmKey, map[string]any{"messages": userMsg("Tell me about jump drives"), "conversation_id": "conv_p"})
	es := s.until(agent.Pause)
	p := es[len(es)-1]
	if p.Reason != agent.ToolLimit || p.ToolCallsMade != 1 || !strings.Contains(p.Message, "1 tool calls") {
		t.Fatalf("pause %+v", p)
	}
	wantStatus(t, f.do("POST", "/api/chat/continue", f.gmKey, map[string]any{"conversation_id": "conv_p", "action": "maybe"}), 400, api.Invalid)
	wantStatus(t, f.do("POST", "/api/chat/continue", f.gmKey, map[string]any{"conversation_id": "conv_p", "action": "continue"}), 200, "")
	es = s.until(agent.Pause)
	if p := es[len(es)-1]; p.ToolCallsMade != 2 {
		t.Fatalf("second pause %+v (%s)", p, types(es))
	}
	wantStatus(t, f.do("POST", "/api/chat/continue", f.gmKey, map[string]any{"conversation_id": "conv_p", "action": "cancel"}), 200, "")
	es = s.until(agent.Done)
	if strings.Contains(textOf(es), "never said") {
		t.Fatal("the model answered after the cancel")
	}
	f.waitInactive("conv_p")
	wantStatus(t, f.do("POST", "/api/chat/continue", f.gmKey, map[string]any{"conversation_id": "conv_p", "action": "continue"}), 404, api.NotFound)
	// What was gathered before the cancel is kept.
	conv := decode[assistant.Conversation](t, f.do("GET", "/api/conversations/conv_p", f.gmKey, nil))
	if len(conv.Messages) < 3 {
		t.Errorf("cancelled conversation kept %d messages", len(conv.Messages))
	}
}

// blockingModel holds its answer until the request's context ends.
type blockingModel struct{ started chan struct{} }

func (m blockingModel) Name() string                                { return "blocking" }
func (m blockingModel) Models(context.Context) ([]llm.Model, error) { return nil, nil }
func (m blockingModel) Embed(context.Context, string, []string) ([][]float32, error) {
	return nil, errors.New("no")
}
func (m blockingModel) Chat(ctx context.Context, _ llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	if err := fn(llm.Chunk{Content: "Let me think"}); err != nil {
		return nil, err
	}
	close(m.started)
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestClientDisconnectEndsTheRequest(t *testing.T) {
	model := blockingModel{started: make(chan struct{})}
	f := newFixture(t, fixtureOpts{provider: model})
	s := f.openChat(f.gmKey, map[string]any{"messages": userMsg("Think hard"), "conversation_id": "conv_gone"})
	if e := s.next(); e.Type != agent.Content {
		t.Fatalf("first event %+v", e)
	}
	<-model.started
	if !f.chat.IsActive("conv_gone") {
		t.Fatal("not active while the model works")
	}
	s.resp.Body.Close() // the browser tab closes
	f.waitInactive("conv_gone")
	if n := f.chat.ActiveCount(); n != 0 {
		t.Fatalf("%d active requests after the disconnect", n)
	}
	// Continue now finds nothing to continue.
	wantStatus(t, f.do("POST", "/api/chat/continue", f.gmKey, map[string]any{"conversation_id": "conv_gone", "action": "continue"}), 404, api.NotFound)
}

func TestOneShotJSON(t *testing.T) {
	f := newFixture(t, fixtureOpts{script: []cassette.Interaction{
		cassette.Calls("document_search", `{"query":"jump drive"}`),
		cassette.Text("Engineer (j-drive) 8+."),
	}})
	ans := decode[map[string]any](t, f.do("POST", "/api/chat", f.gmKey, map[string]any{"messages": userMsg("jump drive repair?"), "stream": false}))
	if ans["content"] != "Engineer (j-drive) 8+." || ans["tool_calls_made"] != float64(1) || ans["conversation_id"] == "" {
		t.Fatalf("answer %v", ans)
	}
	// No browser to run them: external tools are not offered.
	for _, tool := range f.model.Requests()[0].Tools {
		if tool.Name == "fvtt_read" || tool.Name == "dice_roll" {
			t.Errorf("one-shot offered external tool %s", tool.Name)
		}
	}
}

func TestAuthRateLimitAndBodyLimits(t *testing.T) {
	f := newFixture(t, fixtureOpts{ratePerMin: 1, burst: 3, maxUpload: 1 << 10})
	for _, tc := range []struct{ name, auth string }{
		{"no header", ""}, {"wrong scheme", "Basic Zm9vOmJhcg=="}, {"garbage", "Bearer nonsense"},
		{"wrong secret", "Bearer " + f.gmKey[:len(f.gmKey)-4] + "AAAA"},
	} {
		req, _ := http.NewRequest("GET", f.url+"/api/documents", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: %d", tc.name, resp.StatusCode)
		}
		resp.Body.Close()
	}
	// /health needs no key.
	h := decode[map[string]any](t, f.do("GET", "/health", "", nil))
	if h["status"] != "healthy" || h["version"] != "test" {
		t.Errorf("health %v", h)
	}
	// The build it reports is the binary's own (a test binary has no VCS
	// settings, but it has a Go version).
	if b, _ := h["build"].(map[string]any); b["version"] != hearth.Version().Version || b["go"] != hearth.Version().Go {
		t.Errorf("health build %v, want %+v", h["build"], hearth.Version())
	}
	// An upload over the limit: 413, and nothing is ingested.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("metadata", `{"title":"Big","access_level":"player","tags":["x"]}`)
	fw, _ := mw.CreateFormFile("file", "big.md")
	_, _ = fw.Write(bytes.Repeat([]byte("# Big\n\nwords "), 200))
	mw.Close()
	req, _ := http.NewRequest("POST", f.url+"/api/documents", &body)
	req.Header.Set("Authorization", "Bearer "+f.gmKey)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, resp, 413, api.TooLarge)
	// An oversized JSON body: 413 too.
	wantStatus(t, f.do("POST", "/api/search", f.gmKey, `{"query":"`+strings.Repeat("a", 2<<20)+`"}`), 413, api.TooLarge)
	// The burst of 3 is spent with this request: the next is 429.
	wantStatus(t, f.do("GET", "/api/documents", f.gmKey, nil), 200, "")
	resp = f.do("GET", "/api/documents", f.gmKey, nil)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Retry-After") == "0" {
		t.Fatalf("rate limit: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	resp.Body.Close()
	// Another key has its own budget.
	wantStatus(t, f.do("GET", "/api/documents", f.plKey, nil), 200, "")
}

func TestPlayerNeverSeesGMText(t *testing.T) {
	f := newFixture(t, fixtureOpts{script: []cassette.Interaction{
		cassette.Calls("document_search", `{"query":"purser Zhodani infiltrator"}`, "document_get", `{"document_id":"secrets","page":1}`),
		cassette.Text("I found nothing about the purser."),
	}})
	noSecret := func(where string, b []byte) {
		t.Helper()
		if bytes.Contains(b, []byte("Karesh")) || bytes.Contains(b, []byte("Adventure Secrets")) {
			t.Errorf("%s leaks GM-only text: %s", where, b)
		}
	}
	body := func(resp *http.Response) []byte {
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	// Search, even asking for the GM role in the body.
	resp := f.do("POST", "/api/search", f.plKey, map[string]any{"query": "purser Zhodani infiltrator", "user_role": 4})
	noSecret("/api/search", body(resp))
	// The GM does find it.
	if b := body(f.do("POST", "/api/search", f.gmKey, map[string]any{"query": "purser Zhodani infiltrator"})); !bytes.Contains(b, []byte("Karesh")) {
		t.Fatalf("GM search misses the secret: %s", b)
	}
	// A GM key narrowed to a player by user_context sees what a player sees.
	noSecret("/api/search as GM narrowed", body(f.do("POST", "/api/search", f.gmKey, map[string]any{"query": "purser Zhodani infiltrator", "user_role": 1})))
	// Documents, pages, images.
	noSecret("/api/documents", body(f.do("GET", "/api/documents", f.plKey, nil)))
	wantStatus(t, f.do("GET", "/api/documents/secrets", f.plKey, nil), 404, api.NotFound)
	wantStatus(t, f.do("GET", "/api/documents/secrets/pages/1", f.plKey, nil), 404, api.NotFound)
	noSecret("/api/images", body(f.do("GET", "/api/images?search=deck+plan", f.plKey, nil)))
	img := "/api/images/" + itoa(f.imageGM)
	wantStatus(t, f.do("GET", img, f.plKey, nil), 404, api.NotFound)
	wantStatus(t, f.do("GET", img+"/data", f.plKey, nil), 404, api.NotFound)
	wantStatus(t, f.do("POST", img+"/deliver", f.plKey, nil), 404, api.NotFound)
	// Chat: the model's tools read as the player, whatever user_context claims.
	s := f.openChat(f.plKey, map[string]any{"messages": userMsg("Who is the purser really?"),
		"user_context": map[string]any{"userId": "u1", "userName": "Ann", "role": 4}})
	es := s.until(agent.Done)
	for _, e := range es {
		b, _ := json.Marshal(e)
		noSecret("SSE event", b)
	}
	for _, req := range f.model.Requests() {
		for _, m := range req.Messages {
			noSecret("model context", []byte(m.Content))
		}
	}
}

func TestImagesAndDelivery(t *testing.T) {
	f := newFixture(t, fixtureOpts{publicURL: "https://hearth.example.com/"})
	list := decode[struct {
		Images []map[string]any `json:"images"`
	}](t, f.do("GET", "/api/images?document_id=core", f.gmKey, nil))
	if len(list.Images) != 1 || list.Images[0]["suggested_path"] != "seneschal/Core_Rulebook/page_1_deck_plan_of_the_Core_Rulebook.webp" {
		t.Fatalf("images %v", list.Images)
	}
	id := itoa(int64(list.Images[0]["id"].(float64)))
	if got := list.Images[0]["data_url"]; got != "https://hearth.example.com/api/images/"+id+"/data" {
		t.Errorf("data_url %v", got)
	}
	resp := f.do("GET", "/api/images/"+id+"/data", f.plKey, nil)
	if b := body(resp); resp.Header.Get("Content-Type") != "image/webp" || !bytes.Equal(b, tinyWebP) {
		t.Fatalf("data: %s %d bytes", resp.Header.Get("Content-Type"), len(b))
	}
	got := decode[map[string]any](t, f.do("POST", "/api/images/"+id+"/deliver", f.gmKey, map[string]any{"target_path": "seneschal/Core/deck.webp"}))
	if got["mode"] != "direct" || got["fvtt_path"] != "seneschal/Core/deck.webp" {
		t.Fatalf("deliver %v", got)
	}
	for _, bad := range []string{"../../etc/passwd.webp", "/abs/x.webp", "seneschal/x.png"} {
		wantStatus(t, f.do("POST", "/api/images/"+id+"/deliver", f.gmKey, map[string]any{"target_path": bad}), 400, api.Invalid)
	}
}

// TestJPEGPicture: a picture kept as a JPEG is served as image/jpeg (the
// stored type, not sniffed), suggested and delivered as a .jpg.
func TestJPEGPicture(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	var pic bytes.Buffer
	if err := jpeg.Encode(&pic, image.NewGray(image.Rect(0, 0, 20, 20)), nil); err != nil {
		t.Fatal(err)
	}
	err := f.lib.Put(context.Background(), library.Document{ID: "charts", Title: "Star Charts", Format: "pdf", Source: "charts.pdf", Hash: "charts", Access: access.Player},
		[]library.Page{{Number: 1, Text: "The Spinward Marches."}},
		[]library.Image{{Page: 1, Width: 20, Height: 20, Data: pic.Bytes(), MediaType: "image/jpeg"}},
		[]chunk.Chunk{{Page: 1, Text: "The Spinward Marches."}})
	if err != nil {
		t.Fatal(err)
	}
	list := decode[struct {
		Images []map[string]any `json:"images"`
	}](t, f.do("GET", "/api/images?document_id=charts", f.plKey, nil))
	if len(list.Images) != 1 || list.Images[0]["suggested_path"] != "seneschal/Star_Charts/page_1.jpg" || list.Images[0]["media_type"] != "image/jpeg" {
		t.Fatalf("images %v", list.Images)
	}
	id := itoa(int64(list.Images[0]["id"].(float64)))
	resp := f.do("GET", "/api/images/"+id+"/data", f.plKey, nil)
	if b := body(resp); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" || !bytes.Equal(b, pic.Bytes()) {
		t.Fatalf("data: %d %s %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(b))
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options %q, want nosniff", got)
	}
	got := decode[map[string]any](t, f.do("POST", "/api/images/"+id+"/deliver", f.gmKey, nil))
	if got["mode"] != "direct" || got["fvtt_path"] != "seneschal/Star_Charts/page_1.jpg" {
		t.Fatalf("deliver %v", got)
	}
	if b, err := os.ReadFile(filepath.Join(f.assets, "seneschal", "Star_Charts", "page_1.jpg")); err != nil || !bytes.Equal(b, pic.Bytes()) {
		t.Errorf("delivered file: %d bytes, %v", len(b), err)
	}
	wantStatus(t, f.do("POST", "/api/images/"+id+"/deliver", f.gmKey, map[string]any{"target_path": "seneschal/Charts/map.webp"}), 400, api.Invalid)
	got = decode[map[string]any](t, f.do("POST", "/api/images/"+id+"/deliver", f.gmKey, map[string]any{"target_path": "seneschal/Charts/map.jpeg"}))
	if got["fvtt_path"] != "seneschal/Charts/map.jpeg" {
		t.Errorf("deliver to .jpeg: %v", got)
	}
}

func body(resp *http.Response) []byte {
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func upload(t *testing.T, f *fixture, key, name, meta string, content []byte) *http.Response {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if meta != "" {
		_ = mw.WriteField("metadata", meta)
	}
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = fw.Write(content)
	mw.Close()
	req, _ := http.NewRequest("POST", f.url+"/api/documents", &body)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestDocumentLifecycle(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	book := []byte("# Vargr Raiders\n\nVargr corsairs prey on the Spinward Main, striking from gas giant refuelling points.\n")
	// Players may not upload; bad metadata and unsupported files are refused.
	wantStatus(t, upload(t, f, f.plKey, "raiders.md", `{"title":"Raiders"}`, book), 403, api.Forbidden)
	wantStatus(t, upload(t, f, f.gmKey, "raiders.md", `{"title":"Raiders","access_level":"root"}`, book), 400, api.Invalid)
	wantStatus(t, upload(t, f, f.gmKey, "raiders.exe", "", []byte{0x7f, 'E', 'L', 'F', 0, 1, 2}), 400, api.Invalid)

	resp := upload(t, f, f.gmKey, "raiders.md", `{"title":"Vargr Raiders","access_level":"gm_only","tags":["vargr","spinward"]}`, book)
	if resp.StatusCode != 202 {
		t.Fatalf("upload: %d %s", resp.StatusCode, body(resp))
	}
	job := decode[server.Job](t, resp)
	var done server.Job
	deadline := time.Now().Add(20 * time.Second)
	for {
		done = decode[server.Job](t, f.do("GET", "/api/documents/"+job.ID, f.gmKey, nil))
		if done.Status == server.JobDone || done.Status == server.JobFailed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ingest still %s", done.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if done.Status != server.JobDone || done.DocumentID == "" {
		t.Fatalf("job %+v", done)
	}
	// The player sees neither the job nor the book.
	wantStatus(t, f.do("GET", "/api/documents/"+job.ID, f.plKey, nil), 404, api.NotFound)
	search := func(key string) []byte {
		return body(f.do("POST", "/api/search", key, map[string]any{"query": "Vargr corsairs", "filters": map[string]any{"tags": []string{"vargr"}}}))
	}
	if b := search(f.plKey); bytes.Contains(b, []byte("corsairs")) {
		t.Fatalf("player finds a gm_only upload: %s", b)
	}
	if b := search(f.gmKey); !bytes.Contains(b, []byte("corsairs")) || !bytes.Contains(b, []byte(done.DocumentID)) {
		t.Fatalf("GM search misses the upload: %s", b)
	}
	// Opening it to players changes search at once; tags too.
	patched := decode[library.Document](t, f.do("PATCH", "/api/documents/"+done.DocumentID, f.gmKey,
		map[string]any{"access_level": "player", "tags": []string{"vargr", "raiders"}, "title": "Raiders of the Main"}))
	if patched.Access != access.Player || patched.Title != "Raiders of the Main" {
		t.Fatalf("patched %+v", patched)
	}
	if b := search(f.plKey); !bytes.Contains(b, []byte("corsairs")) || !bytes.Contains(b, []byte("Raiders of the Main")) {
		t.Fatalf("player search after opening: %s", b)
	}
	wantStatus(t, f.do("PATCH", "/api/documents/"+done.DocumentID, f.plKey, map[string]any{"access_level": "gm_only"}), 403, api.Forbidden)
	page := decode[map[string]any](t, f.do("GET", "/api/documents/"+done.DocumentID+"/pages/1", f.plKey, nil))
	if !strings.Contains(page["text"].(string), "corsairs") {
		t.Fatalf("page %v", page)
	}
	wantStatus(t, f.do("DELETE", "/api/documents/"+done.DocumentID, f.plKey, nil), 403, api.Forbidden)
	if resp := f.do("DELETE", "/api/documents/"+done.DocumentID, f.gmKey, nil); resp.StatusCode != 204 {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	if b := search(f.gmKey); bytes.Contains(b, []byte("corsairs")) {
		t.Fatalf("deleted book still found: %s", b)
	}
	wantStatus(t, f.do("GET", "/api/documents/"+done.DocumentID, f.gmKey, nil), 404, api.NotFound)
}

func TestMetricsAndErrorsInGerman(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	req, _ := http.NewRequest("GET", f.url+"/api/nothing", nil)
	req.Header.Set("Authorization", "Bearer "+f.gmKey)
	req.Header.Set("Accept-Language", "de-DE,de;q=0.9,en;q=0.5")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	e := decode[api.ErrorBody](t, resp)
	if resp.StatusCode != 404 || !strings.Contains(e.Error.Message, "Die API hat kein GET /api/nothing") || resp.Header.Get("Content-Language") != "de" {
		t.Fatalf("%d %q %q", resp.StatusCode, e.Error.Message, resp.Header.Get("Content-Language"))
	}
	if resp.Header.Get("X-Request-ID") == "" {
		t.Error("no request id")
	}
	m := string(body(f.do("GET", "/metrics", "", nil)))
	for _, want := range []string{`hearth_http_requests_total{code="404",endpoint="/api/",method="GET"} 1`, "hearth_active_chats 0", "hearth_http_request_duration_seconds_bucket"} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// With a trusted proxy, X-Forwarded-For names the client the wrong-secret
// budget is counted for, so two clients behind it do not share one; from
// an untrusted peer the header is ignored.
func TestTrustedProxyClientBudgets(t *testing.T) {
	tests := []struct {
		name     string
		proxies  []string
		separate bool
	}{
		{"trusted proxy", []string{"127.0.0.0/8", "::1"}, true},
		{"untrusted peer", []string{"10.0.0.0/8"}, false},
		{"no proxies", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fixtureOpts{proxies: tt.proxies})
			i := strings.LastIndex(f.gmKey, "_")
			wrong := f.gmKey[:i+1] + strings.Repeat("a", len(f.gmKey)-i-1)
			as := func(client, key string) int {
				t.Helper()
				req, err := http.NewRequest("GET", f.url+"/api/documents", nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("X-Forwarded-For", client)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode == 429 && resp.Header.Get("Retry-After") == "" {
					t.Errorf("429 without Retry-After")
				}
				return resp.StatusCode
			}
			for n := range auth.FailureBurst {
				if got := as("203.0.113.9", wrong); got != 401 {
					t.Fatalf("wrong secret %d: %d, want 401", n+1, got)
				}
			}
			if got := as("203.0.113.9", wrong); got != 429 {
				t.Fatalf("past the budget: %d, want 429", got)
			}
			want := 429
			if tt.separate {
				want = 401
			}
			if got := as("198.51.100.7", wrong); got != want {
				t.Errorf("another client behind the same peer: %d, want %d", got, want)
			}
			if got := as("203.0.113.9", f.gmKey); got != 200 {
				t.Errorf("the real key from the throttled client: %d, want 200", got)
			}
		})
	}
}

// Image delivery never writes outside fvtt.assets_path, even through a
// symbolic link inside it: such a link is refused with a clear error; a
// link that stays inside is followed; a link at the target itself is
// replaced, not written through.
func TestDeliverConfinedToAssets(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.webp")
	if err := os.WriteFile(victim, []byte("not yours"), 0o644); err != nil {
		t.Fatal(err)
	}
	mkdir := func(p string) {
		if err := os.MkdirAll(filepath.Join(f.assets, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(to, at string) {
		if err := os.Symlink(to, filepath.Join(f.assets, at)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	mkdir("seneschal/Real")
	mkdir("seneschal/Files")
	link(outside, "seneschal/Out")                                      // a folder leading out
	link("Real", "seneschal/In")                                        // one staying inside
	link(filepath.Join(f.assets, "seneschal", "Real"), "seneschal/Abs") // inside, but absolute
	link(victim, "seneschal/Files/deck.webp")                           // a file leading out
	mkdir("elsewhere")
	link(outside, "elsewhere/deeper")
	link("../elsewhere/deeper", "seneschal/Chain") // inside, then out

	deliver := func(target string) *http.Response {
		return f.do("POST", "/api/images/"+itoa(f.imageGM)+"/deliver", f.gmKey, map[string]any{"target_path": target})
	}
	for _, tt := range []struct{ target, why string }{
		{"seneschal/Out/deck.webp", "leads outside"},
		{"seneschal/Out/new/deck.webp", "leads outside"},
		{"seneschal/Chain/deck.webp", "leads outside"},
		{"seneschal/Abs/deck.webp", "absolute path"},
	} {
		resp := deliver(tt.target)
		if resp.StatusCode != 400 {
			t.Errorf("%s: status %d, want 400: %s", tt.target, resp.StatusCode, body(resp))
			continue
		}
		e := decode[api.ErrorBody](t, resp)
		if e.Error.Code != api.Invalid || !strings.Contains(e.Error.Message, "symbolic link") || !strings.Contains(e.Error.Message, tt.why) {
			t.Errorf("%s: %+v; want a message about a link that %s", tt.target, e, tt.why)
		}
	}
	for _, tt := range []struct{ target, lands string }{
		{"seneschal/In/deck.webp", "seneschal/Real/deck.webp"},
		{"seneschal/Files/deck.webp", "seneschal/Files/deck.webp"},
	} {
		got := decode[map[string]any](t, deliver(tt.target))
		if got["mode"] != "direct" {
			t.Errorf("%s: %v, want direct", tt.target, got)
		}
		fi, err := os.Lstat(filepath.Join(f.assets, filepath.FromSlash(tt.lands)))
		if err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %s is %v, %v; want the image file", tt.target, tt.lands, fi, err)
		}
	}
	var written []string
	filepath.WalkDir(outside, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			written = append(written, p)
		}
		return nil
	})
	if b, _ := os.ReadFile(victim); string(b) != "not yours" || len(written) != 1 {
		t.Errorf("outside the assets: %q, victim holds %q", written, b)
	}
}

// A store that fails inside answers 500 with the request id and nothing
// of the failure; the log has the details under the same request id.
func TestInternalErrorsStayInTheLog(t *testing.T) {
	var logs bytes.Buffer
	f := newFixture(t, fixtureOpts{log: slog.New(server.LogHandler(slog.NewJSONHandler(&logs, nil)))})
	// Break the conversations table for real, from another connection.
	db, err := sql.Open("sqlite", f.db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("DROP TABLE assistant_conversations"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	req, _ := http.NewRequest("GET", f.url+"/api/conversations", nil)
	req.Header.Set("Authorization", "Bearer "+f.gmKey)
	req.Header.Set("X-Request-ID", "leak-check-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d: %s", resp.StatusCode, raw)
	}
	var e api.ErrorBody
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	if e.Error.Code != hearth.Internal || e.Error.RequestID != "leak-check-1" ||
		e.Error.Message != "Internal error (request leak-check-1). The details are in the server's log." {
		t.Errorf("body %s", raw)
	}
	for _, detail := range []string{"no such table", "conversations", "SQL", f.db, filepath.Base(filepath.Dir(f.db))} {
		if strings.Contains(string(raw), detail) {
			t.Errorf("body %s shows %q", raw, detail)
		}
	}
	// The operator finds the failure by the id the user quotes.
	var found bool
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"request_id":"leak-check-1"`) && strings.Contains(line, `"level":"ERROR"`) && strings.Contains(line, "no such table") {
			found = true
		}
	}
	if !found {
		t.Errorf("no error record with the request id and the cause in the log:\n%s", logs.String())
	}
}
