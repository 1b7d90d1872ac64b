package openai

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
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/deadport"
	"github.com/hearth-rpg/hearth/llm"
)

const testKey = "sk-test-0123456789abcdef"

// sse writes a Chat Completions stream: each event as "data: ...\n\n",
// flushed, then "data: [DONE]".
type sse struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

func (s sse) send(data string) {
	fmt.Fprintf(s.w, "data: %s\n\n", data)
	s.w.(http.Flusher).Flush()
}

func (s sse) done() { s.send("[DONE]") }

// chunk is one chat.completion.chunk with a delta for choice 0.
func chunk(delta string, finish string) string {
	fr := "null"
	if finish != "" {
		fr = fmt.Sprintf("%q", finish)
	}
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, fr)
}

func usageChunk(prompt, completion, cached int) string {
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}}}`,
		prompt, completion, prompt+completion, cached)
}

// server starts an httptest server whose handler gets the decoded JSON
// request body (nil for GET).
func server(t *testing.T, h func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if r.Method == http.MethodPost {
			raw, err := io.ReadAll(r.Body)
			if err != nil {
				t.Errorf("reading request: %v", err)
			}
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Errorf("request body is not JSON: %v: %s", err, raw)
			}
			body["_raw"] = string(raw)
		}
		h(t, w, r, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newProvider(t *testing.T, srv *httptest.Server, opts ...Option) *Provider {
	t.Helper()
	p, err := New(srv.URL+"/v1", testKey, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// jsonEq compares a decoded JSON value with JSON text.
func jsonEq(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want for %s: %v", what, err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s = %s, want %s", what, g, want)
	}
}

func checkChatRequest(t *testing.T, r *http.Request, body map[string]any) {
	t.Helper()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	if body["stream"] != true {
		t.Errorf("stream = %v, want true", body["stream"])
	}
	jsonEq(t, "stream_options", body["stream_options"], `{"include_usage": true}`)
}

func TestChatStreamsTextAndSendsRequest(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		checkChatRequest(t, r, body)
		if body["model"] != "llama-3.1-8b" {
			t.Errorf("model = %v", body["model"])
		}
		if body["temperature"] != 0.7 {
			t.Errorf("temperature = %v", body["temperature"])
		}
		if body["max_tokens"] != 300.0 {
			t.Errorf("max_tokens = %v", body["max_tokens"])
		}
		if _, ok := body["response_format"]; ok {
			t.Errorf("response_format sent without a schema")
		}
		jsonEq(t, "messages", body["messages"], `[
			{"role": "system", "content": "You are the narrator."},
			{"role": "user", "content": "Look around."},
			{"role": "assistant", "tool_calls": [
				{"id": "call_a", "type": "function", "function": {"name": "look", "arguments": "{\"at\":\"room\"}"}}
			]},
			{"role": "tool", "tool_call_id": "call_a", "content": "A dusty room."},
			{"role": "assistant", "content": "You see dust."},
			{"role": "user", "content": "And?"}
		]`)
		jsonEq(t, "tools", body["tools"], `[
			{"type": "function", "function": {
				"name": "look",
				"description": "Look at something.",
				"parameters": {"type": "object", "properties": {"at": {"type": "string"}}, "required": ["at"]}
			}},
			{"type": "function", "function": {
				"name": "wait",
				"parameters": {"type": "object", "properties": {}}
			}}
		]`)

		s := startSSE(w)
		s.send(chunk(`{"role":"assistant","content":""}`, ""))
		s.send(chunk(`{"content":"The "}`, ""))
		s.send(chunk(`{"content":"room is "}`, ""))
		s.send(chunk(`{"content":"quiet."}`, ""))
		s.send(chunk(`{}`, "stop"))
		s.send(usageChunk(120, 7, 100))
		s.done()
	})
	p := newProvider(t, srv)

	temp := 0.7
	req := llm.Request{
		Model: "llama-3.1-8b",
		Messages: []llm.Message{
			{Role: llm.System, Content: "You are the narrator.", Cache: true},
			{Role: llm.User, Content: "Look around."},
			{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "call_a", Name: "look", Arguments: json.RawMessage(`{"at":"room"}`)}}},
			{Role: llm.ToolRole, ToolCallID: "call_a", Name: "look", Content: "A dusty room."},
			{Role: llm.Assistant, Content: "You see dust."},
			{Role: llm.User, Content: "And?"},
		},
		Tools: []llm.Tool{
			{Name: "look", Description: "Look at something.", Parameters: json.RawMessage(`{"type":"object","properties":{"at":{"type":"string"}},"required":["at"]}`)},
			{Name: "wait"},
		},
		Temperature: &temp,
		MaxTokens:   300,
	}
	var got []string
	resp, err := p.Chat(context.Background(), req, func(c llm.Chunk) error {
		if c.ToolCall != nil {
			t.Errorf("unexpected tool call %+v", c.ToolCall)
		}
		got = append(got, c.Content)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"The ", "room is ", "quiet."}; !reflect.DeepEqual(got, want) {
		t.Errorf("chunks = %q, want %q", got, want)
	}
	if resp.Message.Role != llm.Assistant || resp.Message.Content != "The room is quiet." || resp.Message.ToolCalls != nil {
		t.Errorf("message = %+v", resp.Message)
	}
	if want := (llm.Usage{PromptTokens: 120, CompletionTokens: 7, CachedTokens: 100}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.StopReason != "stop" {
		t.Errorf("stop reason = %q", resp.StopReason)
	}
}

func TestChatSchemaSendsResponseFormat(t *testing.T) {
	schema := `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}},"required":["zeta","alpha"]}`
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		checkChatRequest(t, r, body)
		jsonEq(t, "response_format", body["response_format"], `{
			"type": "json_schema",
			"json_schema": {"name": "output", "strict": false, "schema": `+schema+`}
		}`)
		// The model writes properties in schema order: it must be kept.
		raw := body["_raw"].(string)
		if z, a := strings.Index(raw, `"zeta"`), strings.Index(raw, `"alpha"`); z < 0 || a < 0 || z > a {
			t.Errorf("schema properties reordered: %s", raw)
		}
		s := startSSE(w)
		s.send(chunk(`{"content":"{\"zeta\":\"z\","}`, ""))
		s.send(chunk(`{"content":"\"alpha\":1}"}`, "stop"))
		s.done()
	})
	p := newProvider(t, srv)
	resp, err := p.Chat(context.Background(), llm.Request{
		Model:    "m",
		Messages: []llm.Message{{Role: llm.User, Content: "json please"}},
		Schema:   json.RawMessage(schema),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != `{"zeta":"z","alpha":1}` {
		t.Errorf("content = %q", resp.Message.Content)
	}
	if resp.Usage != (llm.Usage{}) {
		t.Errorf("usage without a usage chunk = %+v", resp.Usage)
	}
}

func TestChatAssemblesParallelToolCalls(t *testing.T) {
	handed := make(chan struct{})
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		checkChatRequest(t, r, body)
		s := startSSE(w)
		s.send(chunk(`{"role":"assistant","content":"Let me check."}`, ""))
		s.send(chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"move","arguments":""}}]}`, ""))
		s.send(chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"to\""}}]}`, ""))
		s.send(chunk(`{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"take","arguments":"{\"it"}}]}`, ""))
		s.send(chunk(`{"tool_calls":[{"index":0,"function":{"arguments":": \"no"}}]}`, ""))
		s.send(chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"em\": \"la"}}]}`, ""))
		s.send(chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"rth\"}"}}]}`, ""))
		s.send(chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"mp\"}"}}]}`, ""))
		s.send(chunk(`{}`, "tool_calls"))
		// The calls must be handed over at finish_reason, before the
		// usage chunk and the end of the stream.
		select {
		case <-handed:
		case <-time.After(5 * time.Second):
			t.Errorf("tool calls not handed over when finish_reason arrived")
		}
		s.send(usageChunk(50, 30, 0))
		s.done()
	})
	p := newProvider(t, srv)
	var calls []llm.ToolCall
	var text string
	resp, err := p.Chat(context.Background(), llm.Request{
		Model:    "m",
		Messages: []llm.Message{{Role: llm.User, Content: "go north and take the lamp"}},
		Tools: []llm.Tool{
			{Name: "move", Parameters: json.RawMessage(`{"type":"object"}`)},
			{Name: "take", Parameters: json.RawMessage(`{"type":"object"}`)},
		},
	}, func(c llm.Chunk) error {
		text += c.Content
		if c.ToolCall != nil {
			calls = append(calls, *c.ToolCall)
			if len(calls) == 2 {
				close(handed)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "call_1", Name: "move", Arguments: json.RawMessage(`{"to": "north"}`)},
		{ID: "call_2", Name: "take", Arguments: json.RawMessage(`{"item": "lamp"}`)},
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("streamed calls = %s, want %s", fmtCalls(calls), fmtCalls(want))
	}
	if !reflect.DeepEqual(resp.Message.ToolCalls, want) {
		t.Errorf("response calls = %s, want %s", fmtCalls(resp.Message.ToolCalls), fmtCalls(want))
	}
	if text != "Let me check." || resp.Message.Content != text {
		t.Errorf("text = %q, content = %q", text, resp.Message.Content)
	}
	if resp.StopReason != "tool_calls" || resp.Usage.PromptTokens != 50 || resp.Usage.CompletionTokens != 30 {
		t.Errorf("stop reason %q, usage %+v", resp.StopReason, resp.Usage)
	}
}

func fmtCalls(cs []llm.ToolCall) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "[%s %s %s]", c.ID, c.Name, c.Arguments)
	}
	return b.String()
}

func TestChatToolCallsWithoutFinishReasonOrIDs(t *testing.T) {
	// Some servers number every call 0, give no ids, or end without a
	// finish_reason; the calls still come out, once each.
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.send(chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"look","arguments":"{}"}}]}`, ""))
		s.send(chunk(`{"tool_calls":[{"index":0,"id":"b","function":{"name":"wait"}}]}`, ""))
		s.send(chunk(`{"tool_calls":[{"index":2,"function":{"name":"rest","arguments":"{\"hours\":8}"}}]}`, ""))
		s.done()
	})
	p := newProvider(t, srv)
	var n int
	resp, err := p.Chat(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "x"}}},
		func(c llm.Chunk) error {
			if c.ToolCall != nil {
				n++
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "a", Name: "look", Arguments: json.RawMessage(`{}`)},
		{ID: "b", Name: "wait", Arguments: json.RawMessage(`{}`)},
		{ID: "call_2", Name: "rest", Arguments: json.RawMessage(`{"hours":8}`)},
	}
	if !reflect.DeepEqual(resp.Message.ToolCalls, want) || n != 3 {
		t.Errorf("calls = %s (%d streamed), want %s", fmtCalls(resp.Message.ToolCalls), n, fmtCalls(want))
	}
}

func TestChatCallbackErrorStops(t *testing.T) {
	stop := errors.New("player quit")
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.send(chunk(`{"content":"one"}`, ""))
		s.send(chunk(`{"content":"two"}`, ""))
		s.done()
	})
	p := newProvider(t, srv)
	calls := 0
	_, err := p.Chat(context.Background(), llm.Request{Model: "m"}, func(c llm.Chunk) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("err = %v after %d calls, want %v after 1", err, calls, stop)
	}
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		kind       llm.ErrorKind
		transient  bool
		retryAfter time.Duration
		message    string
	}{
		{"rate limited", 429, map[string]string{"Retry-After": "2"},
			`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
			llm.RateLimited, true, 2 * time.Second, "Rate limit reached"},
		{"server error, plain text", 500, nil, "Internal Server Error", llm.Overloaded, true, 0, "Internal Server Error"},
		{"proxy 502, HTML", 502, nil, "<html><body>502 Bad Gateway</body></html>", llm.Overloaded, true, 0, "502 Bad Gateway"},
		{"bad request", 400, nil, `{"error":{"message":"model 'nope' not found","type":"invalid_request_error"}}`,
			llm.BadRequest, false, 0, "model 'nope' not found"},
		{"vLLM bad request", 400, nil, `{"object":"error","message":"max_tokens is too large","type":"BadRequestError","code":400}`,
			llm.BadRequest, false, 0, "max_tokens is too large"},
		{"auth, key echoed", 401, nil, `{"error":{"message":"Incorrect API key provided: ` + testKey + `"}}`,
			llm.Auth, false, 0, "Incorrect API key provided: [redacted]"},
		{"empty body", 503, map[string]string{"Retry-After-Ms": "1500"}, "", llm.Overloaded, true, 1500 * time.Millisecond, "503 Service Unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := 0
			srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
				hits++
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			p := newProvider(t, srv, WithName("openrouter"))
			calls := []struct {
				name string
				call func() error
			}{
				{"chat", func() error {
					_, err := p.Chat(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
					return err
				}},
				{"models", func() error { _, err := p.Models(context.Background()); return err }},
				{"embed", func() error { _, err := p.Embed(context.Background(), "e", []string{"x"}); return err }},
			}
			for _, c := range calls {
				err := c.call()
				var e *llm.Error
				if !errors.As(err, &e) {
					t.Fatalf("%s: error %v (%T) is not an *llm.Error", c.name, err, err)
				}
				if e.Provider != "openrouter" || e.Kind != tt.kind || e.Status != tt.status || e.Transient() != tt.transient || e.RetryAfter != tt.retryAfter {
					t.Errorf("%s: got %+v, want kind %s status %d transient %v retry after %v", c.name, e, tt.kind, tt.status, tt.transient, tt.retryAfter)
				}
				if !strings.Contains(e.Message, tt.message) {
					t.Errorf("%s: message %q does not contain %q", c.name, e.Message, tt.message)
				}
				if strings.Contains(err.Error(), testKey) || strings.Contains(fmt.Sprintf("%+v", e.Err), testKey) {
					t.Errorf("%s: API key in error: %v", c.name, err)
				}
			}
			if hits != len(calls) {
				t.Errorf("server hit %d times for %d calls: the SDK retried", hits, len(calls))
			}
		})
	}
}

func TestChatMalformedStream(t *testing.T) {
	tests := []struct {
		name   string
		events []string
		kind   llm.ErrorKind
	}{
		{"truncated JSON", []string{chunk(`{"content":"hi"}`, ""), `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"x"`}, llm.Malformed},
		{"not JSON", []string{`hello there`}, llm.Malformed},
		{"JSON string", []string{`"chunk"`}, llm.Malformed},
		{"error event with code", []string{chunk(`{"content":"hi"}`, ""), `{"error":{"message":"upstream failed","code":502}}`}, llm.Overloaded},
		{"error event without code", []string{`{"error":{"message":"The server had an error","type":"server_error"}}`}, llm.Overloaded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
				s := startSSE(w)
				for _, e := range tt.events {
					s.send(e)
				}
				s.done()
			})
			p := newProvider(t, srv)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			resp, err := p.Chat(ctx, llm.Request{Model: "m"}, nil)
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != tt.kind {
				t.Fatalf("got %+v, %v; want an *llm.Error of kind %s", resp, err, tt.kind)
			}
		})
	}
}

func TestChatNoEvents(t *testing.T) {
	// A server that ignores "stream": true answers with plain JSON: that
	// must not pass for an empty reply.
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`)
	})
	p := newProvider(t, srv)
	_, err := p.Chat(context.Background(), llm.Request{Model: "m"}, nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Malformed {
		t.Fatalf("err = %v, want Malformed", err)
	}
}

func TestChatCancel(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.send(chunk(`{"content":"The "}`, ""))
		<-r.Context().Done() // a stalled model
	})
	p := newProvider(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := p.Chat(ctx, llm.Request{Model: "m"}, func(c llm.Chunk) error {
			go func() { time.Sleep(50 * time.Millisecond); cancel() }()
			return nil
		})
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute): // a hang guard, not a measurement
		t.Fatal("Chat did not return a minute after its context was cancelled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if llm.IsTransient(err) {
		t.Errorf("a cancelled call is not worth retrying: %v", err)
	}
}

func TestChatTimeout(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.send(chunk(`{"content":"The "}`, ""))
		<-r.Context().Done()
	})
	p := newProvider(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := p.Chat(ctx, llm.Request{Model: "m"}, nil)
	var e *llm.Error
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &e) || e.Kind != llm.Timeout {
		t.Errorf("err = %v, want a Timeout wrapping DeadlineExceeded", err)
	}
}

func TestUnreachable(t *testing.T) {
	addr := deadport.Addr(t) // held, never listening: connection refused
	p, err := New("http://"+addr+"/v1", testKey)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Unreachable || !e.Transient() {
		t.Fatalf("chat: err = %v, want Unreachable", err)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("API key in error: %v", err)
	}
	if _, err := p.Models(context.Background()); !errors.As(err, &e) || e.Kind != llm.Unreachable {
		t.Errorf("models: err = %v, want Unreachable", err)
	}
	if _, err := p.Embed(context.Background(), "e", []string{"x"}); !errors.As(err, &e) || e.Kind != llm.Unreachable {
		t.Errorf("embed: err = %v, want Unreachable", err)
	}
}

func TestModels(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/models" {
			t.Errorf("request %s %s, want GET /v1/models", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
			t.Errorf("Authorization = %q", got)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[
			{"id":"meta-llama/llama-3.1-8b-instruct","name":"Llama 3.1 8B","created":1721692800,"context_length":131072,
			 "top_provider":{"context_length":16384}},
			{"id":"Qwen/Qwen2.5-7B-Instruct","object":"model","created":1,"owned_by":"vllm","max_model_len":32768},
			{"id":"local-model","object":"model","owned_by":"organization_owner"}
		]}`)
	})
	p := newProvider(t, srv)
	models, err := p.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Model{
		{Name: "meta-llama/llama-3.1-8b-instruct", ContextLength: 131072},
		{Name: "Qwen/Qwen2.5-7B-Instruct", ContextLength: 32768},
		{Name: "local-model"},
	}
	if !reflect.DeepEqual(models, want) {
		t.Errorf("models = %+v, want %+v", models, want)
	}
}

func TestEmbed(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		if r.URL.Path != "/v1/embeddings" {
			t.Errorf("path = %s", r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
			t.Errorf("Authorization = %q", got)
		}
		if body["model"] != "nomic-embed-text" {
			t.Errorf("model = %v", body["model"])
		}
		jsonEq(t, "input", body["input"], `["a lamp", "a sword"]`)
		w.Header().Set("Content-Type", "application/json")
		// Out of order on purpose.
		io.WriteString(w, `{"object":"list","model":"nomic-embed-text","data":[
			{"object":"embedding","index":1,"embedding":[0.5,-0.25]},
			{"object":"embedding","index":0,"embedding":[1,0.125]}
		],"usage":{"prompt_tokens":4,"total_tokens":4}}`)
	})
	p := newProvider(t, srv)
	vecs, err := p.Embed(context.Background(), "nomic-embed-text", []string{"a lamp", "a sword"})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]float32{{1, 0.125}, {0.5, -0.25}}; !reflect.DeepEqual(vecs, want) {
		t.Errorf("vectors = %v, want %v", vecs, want)
	}
	if vecs, err := p.Embed(context.Background(), "nomic-embed-text", nil); err != nil || vecs != nil {
		t.Errorf("no texts: %v, %v", vecs, err)
	}
}

func TestEmbedWrongCount(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"object":"embedding","index":5,"embedding":[1]}]}`)
	})
	p := newProvider(t, srv)
	_, err := p.Embed(context.Background(), "e", []string{"x"})
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Malformed {
		t.Errorf("err = %v, want Malformed", err)
	}
}

func TestNoKeyNoEnvironment(t *testing.T) {
	// A key meant for OpenAI must not reach a local server configured
	// without one.
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	t.Setenv("OPENAI_ORG_ID", "org-secret")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/elsewhere")
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		if r.URL.Path != "/models" {
			t.Errorf("path = %s", r.URL.Path)
		}
		if h := r.Header.Get("Authorization"); h != "" {
			t.Errorf("Authorization sent: %q", h)
		}
		if h := r.Header.Get("OpenAI-Organization"); h != "" {
			t.Errorf("OpenAI-Organization sent: %q", h)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[]}`)
	})
	p, err := New(srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "openai" {
		t.Errorf("name = %q", p.Name())
	}
	if _, err := p.Models(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestNew(t *testing.T) {
	p, err := New("", testKey, WithName("vllm"), WithHTTPClient(&http.Client{Timeout: time.Second}))
	if err != nil || p.Name() != "vllm" {
		t.Fatalf("New: %v, %v", p, err)
	}
	for _, bad := range []string{"localhost:8000", "ftp://host/v1", "http://", "http://host/v1?key=" + testKey, "::"} {
		if _, err := New(bad, testKey); err == nil {
			t.Errorf("New(%q) accepted", bad)
		} else if strings.Contains(err.Error(), testKey) {
			t.Errorf("New(%q): key in error %v", bad, err)
		}
	}
}

func TestBadRequestsAreNotSent(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		t.Errorf("request sent")
	})
	p := newProvider(t, srv)
	for _, req := range []llm.Request{
		{Model: "m", Messages: []llm.Message{{Role: "narrator", Content: "x"}}},
		{Model: "m", Messages: []llm.Message{{Role: llm.ToolRole, Content: "x"}}},
		{Model: "m", Tools: []llm.Tool{{Name: "t", Parameters: json.RawMessage(`[1]`)}}},
		{Model: "m", Schema: json.RawMessage(`{"type":`)},
		{Model: "m", Messages: []llm.Message{{Role: llm.System, Content: "x", Images: []llm.Image{{MIMEType: "image/png", Data: []byte{1}}}}}},
		{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "x", Images: []llm.Image{{MIMEType: "image/png"}}}}},
	} {
		_, err := p.Chat(context.Background(), req, nil)
		var e *llm.Error
		if !errors.As(err, &e) || e.Kind != llm.BadRequest {
			t.Errorf("%+v: err = %v, want BadRequest", req, err)
		}
	}
}

func TestChatEndsAtDoneEvenIfServerKeepsConnection(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.send(chunk(`{"content":"Hi"}`, "stop"))
		s.done()
		<-r.Context().Done() // never closes on its own
	})
	p := newProvider(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := p.Chat(ctx, llm.Request{Model: "m"}, nil)
	if err != nil || resp.Message.Content != "Hi" {
		t.Fatalf("got %+v, %v", resp, err)
	}
}

func TestDoneReaderSplitReads(t *testing.T) {
	// [DONE] split across reads, with CRLF line ends.
	stream := "data: {\"a\":1}\r\n\r\ndata: [DO" + "NE]\r\n\r\ndata: {\"after\":1}\n\n"
	d := &doneReader{rc: io.NopCloser(&oneByteReader{s: stream})}
	got, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := "data: {\"a\":1}\r\n\r\ndata: [DONE]\r\n"; string(got) != want {
		t.Errorf("read %q, want %q", got, want)
	}
}

type oneByteReader struct{ s string }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.s[0]
	r.s = r.s[1:]
	return 1, nil
}

// A user message with images becomes content parts: the text, then each
// image as an image_url holding a base64 data: URL.
func TestChatSendsImagesAsContentParts(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		checkChatRequest(t, r, body)
		jsonEq(t, "messages", body["messages"], `[
			{"role": "system", "content": "You caption images."},
			{"role": "user", "content": [
				{"type": "text", "text": "Describe it."},
				{"type": "image_url", "image_url": {"url": "data:image/webp;base64,UklGRgAAAABXRUJQVlA4TA=="}},
				{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}}
			]}
		]`)
		s := startSSE(w)
		s.send(chunk(`{"content":"A map."}`, "stop"))
		s.done()
	})
	resp, err := newProvider(t, srv).Chat(context.Background(), llm.Request{Model: "gpt-4o-mini", Messages: []llm.Message{
		{Role: llm.System, Content: "You caption images."},
		{Role: llm.User, Content: "Describe it.", Images: []llm.Image{
			{MIMEType: "image/webp", Data: []byte("RIFF\x00\x00\x00\x00WEBPVP8L")},
			{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
		}},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "A map." {
		t.Errorf("content = %q", resp.Message.Content)
	}
}

// The answer is its tokens in order, whichever way each chunk is read:
// in one pass, by encoding/json (an escape; a field given twice, refused
// after its content was read), with a second choice (not the answer) or
// with a refusal; and the tokens handed out keep their text to the end.
func TestChatTextWhicheverWayChunksAreRead(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.send(chunk(`{"content":"The "}`, ""))
		s.send(chunk(`{"content":"r\u006fom "}`, ""))
		s.send(`{"choices":[{"index":0,"delta":{"content":"is "}},{"index":1,"delta":{"content":"NOT "}}]}`)
		s.send(`{"choices":[{"index":1,"delta":{"content":"NOT "}},{"index":0,"delta":{"content":"quiet"}}]}`)
		s.send(`{"choices":[{"delta":{"content":", "},"index":0,"index":0}]}`)
		s.send(chunk(`{"content":"dusty ","refusal":"no. "}`, ""))
		s.send(chunk(`{"content":"and dark."}`, "stop"))
		s.done()
	})
	p := newProvider(t, srv)
	var got, streamed []string
	resp, err := p.Chat(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "Look."}}}, func(c llm.Chunk) error {
		got = append(got, c.Content)
		streamed = append(streamed, c.Streamed)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"The ", "room ", "is ", "quiet", ", ", "dusty ", "no. ", "and dark."}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks = %q, want %q", got, want)
	}
	// Each chunk's text so far, still whole after the stream went on.
	for i, s := range streamed {
		if w := strings.Join(want[:i+1], ""); s != w {
			t.Errorf("chunk %d: streamed %q, want %q", i, s, w)
		}
	}
	if resp.Message.Content != strings.Join(want, "") {
		t.Errorf("message = %q, want %q", resp.Message.Content, strings.Join(want, ""))
	}
}

// Through the server transport, whose connections read through a small
// buffer, headers and events longer than the buffer arrive whole.
func TestServerTransportReadsLongLines(t *testing.T) {
	long := strings.Repeat("x", 3*llm.ServerReadBufferSize)
	text := strings.Repeat("y", 10*llm.ServerReadBufferSize)
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		w.Header().Set("X-Long", long)
		s := startSSE(w)
		s.send(chunk(`{"content":"`+text+`"}`, ""))
		s.send(chunk(`{"content":" end"}`, "stop"))
		s.done()
	})
	var header string
	tr := llm.ServerTransport()
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := tr.RoundTrip(r)
		if err == nil {
			header = resp.Header.Get("X-Long")
		}
		return resp, err
	})}
	p := newProvider(t, srv, WithHTTPClient(client))
	resp, err := p.Chat(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "Look."}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != text+" end" || header != long {
		t.Errorf("answer of %d bytes, header of %d; want %d and %d", len(resp.Message.Content), len(header), len(text)+4, len(long))
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
