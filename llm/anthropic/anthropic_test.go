package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/deadport"
	"github.com/hearth-rpg/hearth/llm"
)

const testKey = "sk-ant-test-secret-key"

// server is an httptest.Server speaking the Anthropic API; handle serves
// each request and calls counts them.
type server struct {
	*httptest.Server
	calls atomic.Int32
}

func newServer(t *testing.T, handle http.HandlerFunc) (*server, *Provider) {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.calls.Add(1)
		handle(w, r)
	}))
	t.Cleanup(s.Close)
	p, err := New(s.URL, testKey, WithHTTPClient(s.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

// sse writes one server-sent event and flushes it.
func sse(w http.ResponseWriter, event, data string) {
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data)
	w.(http.Flusher).Flush()
}

func startStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
}

const messageStart = `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000,"output_tokens":1}}}`

func textDelta(i int, s string) string {
	b, _ := json.Marshal(s)
	return fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, b)
}

func jsonDelta(i int, s string) string {
	b, _ := json.Marshal(s)
	return fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, b)
}

func blockStop(i int) string {
	return fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i)
}

func messageEnd(w http.ResponseWriter, stop string, out int) {
	sse(w, "message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, out))
	sse(w, "message_stop", `{"type":"message_stop"}`)
}

// textStream answers with a short streamed text.
func textStream(w http.ResponseWriter, r *http.Request) {
	startStream(w)
	sse(w, "message_start", messageStart)
	sse(w, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	sse(w, "ping", `{"type": "ping"}`)
	sse(w, "content_block_delta", textDelta(0, "The door "))
	sse(w, "content_block_delta", textDelta(0, "creaks open."))
	sse(w, "content_block_stop", blockStop(0))
	messageEnd(w, "end_turn", 12)
}

func collect(chunks *[]llm.Chunk) func(llm.Chunk) error {
	return func(c llm.Chunk) error {
		*chunks = append(*chunks, c)
		return nil
	}
}

func TestChatStreamsTextAndUsage(t *testing.T) {
	_, p := newServer(t, textStream)
	var chunks []llm.Chunk
	resp, err := p.Chat(context.Background(), llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.User, Content: "open the door"}}}, collect(&chunks))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Chunk{{Content: "The door "}, {Content: "creaks open."}}
	if !reflect.DeepEqual(chunks, want) {
		t.Errorf("chunks = %+v, want %+v", chunks, want)
	}
	if resp.Message.Role != llm.Assistant || resp.Message.Content != "The door creaks open." {
		t.Errorf("message = %+v", resp.Message)
	}
	if resp.StopReason != "end_turn" {
		t.Errorf("stop reason = %q", resp.StopReason)
	}
	// input_tokens excludes cache reads; the prompt count includes them.
	if want := (llm.Usage{PromptTokens: 1025, CompletionTokens: 12, CachedTokens: 1000}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}

	// fn may be nil.
	resp, err = p.Chat(context.Background(), llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.User, Content: "again"}}}, nil)
	if err != nil || resp.Message.Content != "The door creaks open." {
		t.Fatalf("nil fn: %v, %+v", err, resp)
	}
}

func TestChatToolUseSplitAcrossDeltas(t *testing.T) {
	_, p := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		startStream(w)
		sse(w, "message_start", messageStart)
		sse(w, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		sse(w, "content_block_delta", textDelta(0, "Let me roll."))
		sse(w, "content_block_stop", blockStop(0))
		sse(w, "content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"roll","input":{}}}`)
		sse(w, "content_block_delta", jsonDelta(1, ""))
		sse(w, "content_block_delta", jsonDelta(1, `{"dice": "2`))
		sse(w, "content_block_delta", jsonDelta(1, `d6", "mod`))
		sse(w, "content_block_delta", jsonDelta(1, `ifier": 3}`))
		sse(w, "content_block_stop", blockStop(1))
		sse(w, "content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_02","name":"look","input":{}}}`)
		sse(w, "content_block_stop", blockStop(2))
		messageEnd(w, "tool_use", 40)
	})
	var chunks []llm.Chunk
	resp, err := p.Chat(context.Background(), llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.User, Content: "roll"}}}, collect(&chunks))
	if err != nil {
		t.Fatal(err)
	}
	roll := llm.ToolCall{ID: "toolu_01", Name: "roll", Arguments: json.RawMessage(`{"dice": "2d6", "modifier": 3}`)}
	look := llm.ToolCall{ID: "toolu_02", Name: "look", Arguments: json.RawMessage(`{}`)}
	wantChunks := []llm.Chunk{{Content: "Let me roll."}, {ToolCall: &roll}, {ToolCall: &look}}
	if !reflect.DeepEqual(chunks, wantChunks) {
		t.Errorf("chunks = %s", dump(chunks))
	}
	if !reflect.DeepEqual(resp.Message.ToolCalls, []llm.ToolCall{roll, look}) {
		t.Errorf("tool calls = %s", dump(resp.Message.ToolCalls))
	}
	if resp.Message.Content != "Let me roll." || resp.StopReason != "tool_use" {
		t.Errorf("response = %s", dump(resp))
	}
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// TestChatRequestBody has the server check every part of the request.
func TestChatRequestBody(t *testing.T) {
	temp := 0.7
	req := llm.Request{
		Model: "claude-sonnet-test",
		Messages: []llm.Message{
			{Role: llm.System, Content: "You are the narrator."},
			{Role: llm.System, Content: "Rules: be brief.", Cache: true},
			{Role: llm.User, Content: "Attack the goblin and look around."},
			{Role: llm.Assistant, Content: "Rolling.", ToolCalls: []llm.ToolCall{
				{ID: "toolu_a", Name: "attack", Arguments: json.RawMessage(`{"target":"goblin"}`)},
				{ID: "toolu_b", Name: "look", Arguments: nil},
			}},
			{Role: llm.ToolRole, ToolCallID: "toolu_a", Name: "attack", Content: "hit for 5"},
			{Role: llm.ToolRole, ToolCallID: "toolu_b", Name: "look", Content: "a dark cave", Cache: true},
			{Role: llm.User, Content: "What now?"},
		},
		Tools: []llm.Tool{
			{Name: "attack", Description: "Attack someone.", Parameters: json.RawMessage(`{"type":"object","properties":{"target":{"type":"string"}},"required":["target"],"additionalProperties":false}`)},
			{Name: "look", Description: "Look around."},
		},
		Schema:      json.RawMessage(`{"type":"object","properties":{"say":{"type":"string"}}}`),
		Temperature: &temp,
	}
	want := `{
	  "model": "claude-sonnet-test",
	  "max_tokens": 4096,
	  "temperature": 0.7,
	  "stream": true,
	  "system": [
	    {"type": "text", "text": "You are the narrator."},
	    {"type": "text", "text": "Rules: be brief.", "cache_control": {"type": "ephemeral"}},
	    {"type": "text", "text": ` + jsonString(schemaInstruction+string(req.Schema)) + `}
	  ],
	  "messages": [
	    {"role": "user", "content": [{"type": "text", "text": "Attack the goblin and look around."}]},
	    {"role": "assistant", "content": [
	      {"type": "text", "text": "Rolling."},
	      {"type": "tool_use", "id": "toolu_a", "name": "attack", "input": {"target": "goblin"}},
	      {"type": "tool_use", "id": "toolu_b", "name": "look", "input": {}}
	    ]},
	    {"role": "user", "content": [
	      {"type": "tool_result", "tool_use_id": "toolu_a", "content": [{"type": "text", "text": "hit for 5"}]},
	      {"type": "tool_result", "tool_use_id": "toolu_b", "content": [{"type": "text", "text": "a dark cave"}], "cache_control": {"type": "ephemeral"}},
	      {"type": "text", "text": "What now?"}
	    ]}
	  ],
	  "tools": [
	    {"name": "attack", "description": "Attack someone.", "input_schema": {"type": "object", "properties": {"target": {"type": "string"}}, "required": ["target"], "additionalProperties": false}},
	    {"name": "look", "description": "Look around.", "input_schema": {"type": "object", "properties": {}}}
	  ]
	}`
	var wantBody any
	if err := json.Unmarshal([]byte(want), &wantBody); err != nil {
		t.Fatal(err)
	}

	_, p := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		fail := func(format string, args ...any) {
			t.Errorf(format, args...)
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"test server: bad request"}}`, http.StatusBadRequest)
		}
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			fail("request %s %s, want POST /v1/messages", r.Method, r.URL.Path)
			return
		}
		if got := r.Header.Get("x-api-key"); got != testKey {
			fail("x-api-key = %q", got)
			return
		}
		if got := r.Header.Get("anthropic-version"); got != "2023-06-01" {
			fail("anthropic-version = %q", got)
			return
		}
		if got := r.Header.Get("Authorization"); got != "" {
			fail("unexpected Authorization header %q", got)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body any
		if err := json.Unmarshal(raw, &body); err != nil {
			fail("body is not JSON: %v", err)
			return
		}
		if !reflect.DeepEqual(body, wantBody) {
			fail("request body:\n%s\nwant:\n%s", dump(body), dump(wantBody))
			return
		}
		// Turns must alternate, starting with the user.
		for i, m := range body.(map[string]any)["messages"].([]any) {
			role := m.(map[string]any)["role"]
			if want := []string{"user", "assistant"}[i%2]; role != want {
				fail("message %d has role %v, want %s", i, role, want)
				return
			}
		}
		textStream(w, r)
	})
	resp, err := p.Chat(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "The door creaks open." {
		t.Errorf("content = %q", resp.Message.Content)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestChatMaxTokensAndCacheOnUserMessage(t *testing.T) {
	_, p := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			MaxTokens   int              `json:"max_tokens"`
			Temperature *float64         `json:"temperature"`
			System      []map[string]any `json:"system"`
			Messages    []struct {
				Role    string           `json:"role"`
				Content []map[string]any `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("decode: %v", err)
		}
		if body.MaxTokens != 300 || body.Temperature != nil || body.System != nil {
			t.Errorf("max_tokens %d, temperature %v, system %v", body.MaxTokens, body.Temperature, body.System)
		}
		if len(body.Messages) != 3 {
			t.Errorf("messages = %+v", body.Messages)
			return
		}
		if cc := body.Messages[0].Content[0]["cache_control"]; !reflect.DeepEqual(cc, map[string]any{"type": "ephemeral"}) {
			t.Errorf("cache_control on the marked user message = %v", cc)
		}
		for _, m := range body.Messages[1:] {
			for _, b := range m.Content {
				if _, ok := b["cache_control"]; ok {
					t.Errorf("cache_control on unmarked block %v", b)
				}
			}
		}
		textStream(w, r)
	})
	_, err := p.Chat(context.Background(), llm.Request{
		Model:     "claude-test",
		MaxTokens: 300,
		Messages: []llm.Message{
			{Role: llm.User, Content: "canon", Cache: true},
			{Role: llm.Assistant, Content: "ok"},
			{Role: llm.User, Content: "go"},
		},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
}

func chatErr(t *testing.T, p *Provider) *llm.Error {
	t.Helper()
	_, err := p.Chat(context.Background(), llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not an *llm.Error", err, err)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error shows the API key: %v", err)
	}
	return e
}

func apiError(status int, typ, msg string, header map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_1"}`, typ, msg)
	}
}

func TestRateLimited(t *testing.T) {
	s, p := newServer(t, apiError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", map[string]string{"retry-after": "7"}))
	e := chatErr(t, p)
	if e.Kind != llm.RateLimited || e.Status != 429 || e.RetryAfter != 7*time.Second || !e.Transient() {
		t.Errorf("error = %+v", e)
	}
	if !strings.Contains(e.Error(), "per-minute rate limit") {
		t.Errorf("message lost: %v", e)
	}
	if n := s.calls.Load(); n != 1 {
		t.Errorf("%d requests: the SDK retried", n)
	}
}

func TestOverloaded529(t *testing.T) {
	s, p := newServer(t, apiError(529, "overloaded_error", "Overloaded", nil))
	e := chatErr(t, p)
	if e.Kind != llm.Overloaded || e.Status != 529 || !e.Transient() {
		t.Errorf("error = %+v", e)
	}
	if n := s.calls.Load(); n != 1 {
		t.Errorf("%d requests: the SDK retried", n)
	}
}

func TestBadRequest(t *testing.T) {
	_, p := newServer(t, apiError(400, "invalid_request_error", "messages: roles must alternate", nil))
	e := chatErr(t, p)
	if e.Kind != llm.BadRequest || e.Status != 400 || e.Transient() {
		t.Errorf("error = %+v", e)
	}
	if !strings.Contains(e.Error(), "roles must alternate") {
		t.Errorf("message lost: %v", e)
	}
}

func TestAuthErrorHidesKey(t *testing.T) {
	_, p := newServer(t, apiError(401, "authentication_error", "invalid x-api-key", nil))
	e := chatErr(t, p) // checks the key is not in the message
	if e.Kind != llm.Auth || e.Status != 401 {
		t.Errorf("error = %+v", e)
	}
}

func TestStreamErrorEvent(t *testing.T) {
	_, p := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		startStream(w)
		sse(w, "message_start", messageStart)
		sse(w, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		sse(w, "content_block_delta", textDelta(0, "Once"))
		sse(w, "error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	})
	e := chatErr(t, p)
	if e.Kind != llm.Overloaded || !e.Transient() {
		t.Errorf("error = %+v", e)
	}
	if !strings.Contains(e.Error(), "Overloaded") {
		t.Errorf("message lost: %v", e)
	}
}

func TestMalformedStreams(t *testing.T) {
	for name, events := range map[string][][2]string{
		"bad json": {
			{"message_start", messageStart},
			{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"unterminated`},
		},
		"ends early": {
			{"message_start", messageStart},
			{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			{"content_block_delta", textDelta(0, "Once upon")},
		},
		"delta for unknown block": {
			{"message_start", messageStart},
			{"content_block_delta", textDelta(3, "stray")},
		},
		"broken tool arguments": {
			{"message_start", messageStart},
			{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"roll","input":{}}}`},
			{"content_block_delta", jsonDelta(0, `{"dice": `)},
			{"content_block_stop", blockStop(0)},
		},
		"not sse": {
			{"", `{"id":"msg_1","type":"message","content":[]}`},
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, p := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				startStream(w)
				for _, ev := range events {
					if ev[0] == "" {
						fmt.Fprintln(w, ev[1])
						continue
					}
					sse(w, ev[0], ev[1])
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := p.Chat(ctx, llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != llm.Malformed {
				t.Errorf("error = %v, want Malformed", err)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	addr := deadport.Addr(t) // held, never listening: connection refused
	p, err := New("http://"+addr, testKey)
	if err != nil {
		t.Fatal(err)
	}
	e := chatErr(t, p)
	if e.Kind != llm.Unreachable || !e.Transient() {
		t.Errorf("error = %+v", e)
	}
	if _, err := p.Models(context.Background()); !llm.IsTransient(err) {
		t.Errorf("Models: %v", err)
	}
}

func TestCallbackErrorStops(t *testing.T) {
	_, p := newServer(t, textStream)
	stop := errors.New("player quit")
	var n int
	_, err := p.Chat(context.Background(), llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, func(llm.Chunk) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err = %v after %d chunks", err, n)
	}
}

func TestCancel(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	_, p := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		startStream(w)
		sse(w, "message_start", messageStart)
		sse(w, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		sse(w, "content_block_delta", textDelta(0, "Once"))
		select { // hang until the client goes away
		case <-r.Context().Done():
		case <-release:
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.Chat(ctx, llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, func(c llm.Chunk) error {
			cancel()
			return nil
		})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Chat did not return after cancel")
	}
}

func TestModels(t *testing.T) {
	_, p := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/models" {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		if r.Header.Get("x-api-key") != testKey || r.Header.Get("anthropic-version") == "" {
			t.Errorf("headers %v", r.Header)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":[
			{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"},
			{"type":"model","id":"claude-big","display_name":"Big","created_at":"2025-09-29T00:00:00Z","max_input_tokens":1000000},
			{"type":"model","id":"other-model","display_name":"Other","created_at":"2025-09-29T00:00:00Z"}
		],"has_more":false,"first_id":"claude-sonnet-4-5","last_id":"other-model"}`)
	})
	models, err := p.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Model{{Name: "claude-sonnet-4-5", ContextLength: 200000}, {Name: "claude-big", ContextLength: 1000000}, {Name: "other-model"}}
	if !reflect.DeepEqual(models, want) {
		t.Errorf("models = %+v", models)
	}
}

func TestModelsError(t *testing.T) {
	_, p := newServer(t, apiError(403, "permission_error", "no", nil))
	_, err := p.Models(context.Background())
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Auth {
		t.Errorf("err = %v", err)
	}
}

func TestEmbed(t *testing.T) {
	p, err := New("", testKey)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Embed(context.Background(), "x", []string{"a"})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.BadRequest || !strings.Contains(e.Message, "Ollama") {
		t.Errorf("err = %v", err)
	}
	if p.Name() != "anthropic" {
		t.Errorf("name %q", p.Name())
	}
}

func TestNew(t *testing.T) {
	if _, err := New("not a url", testKey); err == nil {
		t.Error("bad URL accepted")
	}
	// A base URL ending in /v1 is accepted too.
	var path string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.Path
		textStream(w, r)
	}))
	defer s.Close()
	p, err := New(s.URL+"/v1/", testKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Chat(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if path != "/v1/messages" {
		t.Errorf("path %q", path)
	}
	if _, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil); !errors.As(err, new(*llm.Error)) {
		t.Errorf("no model: %v", err)
	}
}

// The SDK must not pick credentials or a base URL from the environment.
func TestIgnoresEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "env-token")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	_, p := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-api-key") != testKey || r.Header.Get("Authorization") != "" {
			t.Errorf("credentials from the environment: %v", r.Header)
		}
		textStream(w, r)
	})
	if _, err := p.Chat(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
}

// Images on a user message become base64 image blocks ahead of its text.
func TestChatSendsImageBlocks(t *testing.T) {
	want := `[{"role": "user", "content": [
		{"type": "image", "source": {"type": "base64", "media_type": "image/webp", "data": "UklGRgAAAABXRUJQVlA4TA=="}},
		{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}},
		{"type": "text", "text": "Describe it."}
	]}]`
	var wantMsgs any
	if err := json.Unmarshal([]byte(want), &wantMsgs); err != nil {
		t.Fatal(err)
	}
	_, p := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("decode: %v", err)
		}
		if !reflect.DeepEqual(body["messages"], wantMsgs) {
			t.Errorf("messages:\n%s\nwant:\n%s", dump(body["messages"]), dump(wantMsgs))
		}
		textStream(w, r)
	})
	_, err := p.Chat(context.Background(), llm.Request{Model: "claude-test", Messages: []llm.Message{
		{Role: llm.User, Content: "Describe it.", Images: []llm.Image{
			{MIMEType: "image/webp", Data: []byte("RIFF\x00\x00\x00\x00WEBPVP8L")},
			{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
		}},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, p2 := newServer(t, func(w http.ResponseWriter, r *http.Request) { textStream(w, r) })
	_, err = p2.Chat(context.Background(), llm.Request{Model: "claude-test", Messages: []llm.Message{
		{Role: llm.Assistant, Content: "x", Images: []llm.Image{{MIMEType: "image/png", Data: []byte{1}}}},
	}}, nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.BadRequest || s.calls.Load() != 0 {
		t.Errorf("an image on an assistant message: err = %v, %d calls", err, s.calls.Load())
	}
}
