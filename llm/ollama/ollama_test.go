package ollama

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
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/deadport"
	"github.com/hearth-rpg/hearth/llm"
)

// ollamaServer is a fake Ollama speaking the native wire format. Each
// handler gets the decoded JSON body (nil for GET) and writes the answer.
type ollamaServer struct {
	t        *testing.T
	handlers map[string]func(w http.ResponseWriter, r *http.Request, body map[string]any)
	mu       sync.Mutex
	bodies   map[string][]map[string]any
}

func newServer(t *testing.T, handlers map[string]func(http.ResponseWriter, *http.Request, map[string]any), opts ...Option) (*ollamaServer, *Provider) {
	t.Helper()
	s := &ollamaServer{t: t, handlers: handlers, bodies: map[string][]map[string]any{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	p, err := New(srv.URL, append([]Option{WithModel("llama3.2")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

func (s *ollamaServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, ok := s.handlers[r.Method+" "+r.URL.Path]
	if !ok {
		s.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		return
	}
	var body map[string]any
	if r.Method == http.MethodPost {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			s.t.Errorf("reading request body: %v", err)
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			s.t.Errorf("request body is not a JSON object: %v\n%s", err, raw)
		}
	}
	s.mu.Lock()
	s.bodies[r.URL.Path] = append(s.bodies[r.URL.Path], body)
	s.mu.Unlock()
	h(w, r, body)
}

// ndjson writes each value as one line, flushing after each so that the
// client sees separate chunks.
func ndjson(lines ...any) func(http.ResponseWriter, *http.Request, map[string]any) {
	return func(w http.ResponseWriter, _ *http.Request, _ map[string]any) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		for _, l := range lines {
			switch l := l.(type) {
			case string:
				io.WriteString(w, l+"\n")
			default:
				b, _ := json.Marshal(l)
				w.Write(append(b, '\n'))
			}
			w.(http.Flusher).Flush()
		}
	}
}

func chunk(content string) map[string]any {
	return map[string]any{
		"model": "llama3.2", "created_at": "2024-07-22T20:33:28.123648Z",
		"message": map[string]any{"role": "assistant", "content": content},
		"done":    false,
	}
}

func final(reason string, prompt, eval int) map[string]any {
	return map[string]any{
		"model": "llama3.2", "created_at": "2024-07-22T20:33:28.123648Z",
		"message":     map[string]any{"role": "assistant", "content": ""},
		"done":        true,
		"done_reason": reason, "total_duration": 1234567, "load_duration": 1000,
		"prompt_eval_count": prompt, "prompt_eval_duration": 2000,
		"eval_count": eval, "eval_duration": 3000,
	}
}

func wantJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if gb, _ := json.Marshal(got); !reflect.DeepEqual(normalise(t, gb), w) {
		t.Errorf("%s = %s, want %s", what, gb, want)
	}
}

func normalise(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

func ptr[T any](v T) *T { return &v }

const attackSchema = `{"type":"object","properties":{"target":{"type":"string","description":"who to attack"},"weapon":{"type":"string","enum":["sword","bow"]}},"required":["target"]}`

func TestChatRequestBody(t *testing.T) {
	history := []llm.Message{
		{Role: llm.System, Content: "You are the narrator."},
		{Role: llm.User, Content: "attack the goblin"},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "attack", Arguments: json.RawMessage(`{"target":"goblin"}`)}}},
		{Role: llm.ToolRole, ToolCallID: "call_1", Name: "attack", Content: `{"hit":true}`},
	}
	tests := []struct {
		name  string
		req   llm.Request
		check func(t *testing.T, body map[string]any)
	}{{
		name: "messages and options",
		req:  llm.Request{Model: "qwen3:8b", Messages: history, Temperature: ptr(0.25), MaxTokens: 300},
		check: func(t *testing.T, body map[string]any) {
			wantJSON(t, "model", body["model"], `"qwen3:8b"`)
			wantJSON(t, "stream", body["stream"], `true`)
			wantJSON(t, "messages", body["messages"], `[
				{"role":"system","content":"You are the narrator."},
				{"role":"user","content":"attack the goblin"},
				{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"index":0,"name":"attack","arguments":{"target":"goblin"}}}]},
				{"role":"tool","content":"{\"hit\":true}","tool_name":"attack","tool_call_id":"call_1"}]`)
			wantJSON(t, "options", body["options"], `{"temperature":0.25,"num_predict":300}`)
			if _, ok := body["format"]; ok {
				t.Errorf("format sent without a schema: %v", body["format"])
			}
			if _, ok := body["tools"]; ok {
				t.Errorf("tools sent without tools: %v", body["tools"])
			}
		},
	}, {
		name: "default model, tools",
		req: llm.Request{
			Messages: history[:2],
			Tools:    []llm.Tool{{Name: "attack", Description: "Attack someone.", Parameters: json.RawMessage(attackSchema)}, {Name: "look", Description: "Look around."}},
		},
		check: func(t *testing.T, body map[string]any) {
			wantJSON(t, "model", body["model"], `"llama3.2"`)
			wantJSON(t, "stream", body["stream"], `true`)
			wantJSON(t, "tools", body["tools"], `[
				{"type":"function","function":{"name":"attack","description":"Attack someone.","parameters":`+attackSchema+`}},
				{"type":"function","function":{"name":"look","description":"Look around.","parameters":{"type":"object","properties":{}}}}]`)
			if o, ok := body["options"]; ok && o != nil {
				t.Errorf("options = %v, want none", o)
			}
		},
	}, {
		name: "schema becomes format",
		req:  llm.Request{Messages: history[1:2], Schema: json.RawMessage(`{"type":"object","properties":{"intent":{"type":"string"}},"required":["intent"]}`)},
		check: func(t *testing.T, body map[string]any) {
			wantJSON(t, "format", body["format"], `{"type":"object","properties":{"intent":{"type":"string"}},"required":["intent"]}`)
			wantJSON(t, "messages", body["messages"], `[{"role":"user","content":"attack the goblin"}]`)
		},
	}, {
		name: "images go base64 on the message",
		req: llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "Describe it.", Images: []llm.Image{
			{MIMEType: "image/webp", Data: []byte("RIFF\x00\x00\x00\x00WEBPVP8L")}, {MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
		}}}},
		check: func(t *testing.T, body map[string]any) {
			wantJSON(t, "messages", body["messages"], `[{"role":"user","content":"Describe it.","images":["UklGRgAAAABXRUJQVlA4TA==","iVBORw=="]}]`)
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){
				"POST /api/chat": ndjson(chunk("ok"), final("stop", 1, 1)),
			})
			if _, err := p.Chat(context.Background(), tt.req, nil); err != nil {
				t.Fatal(err)
			}
			if n := len(s.bodies["/api/chat"]); n != 1 {
				t.Fatalf("%d chat requests, want 1", n)
			}
			tt.check(t, s.bodies["/api/chat"][0])
		})
	}
}

// A context window goes with every chat as num_ctx, beside the call's
// own options, so Ollama neither cuts the prompt nor reloads the model.
func TestContextWindowSentAsNumCtx(t *testing.T) {
	for _, tt := range []struct {
		name string
		req  llm.Request
		want string
	}{
		{"alone", llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "look"}}}, `{"num_ctx":10240}`},
		{"with options", llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "look"}}, MaxTokens: 50}, `{"num_ctx":10240,"num_predict":50}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){
				"POST /api/chat": ndjson(chunk("ok"), final("stop", 1, 1)),
			}, WithContextWindow(10240))
			if _, err := p.Chat(context.Background(), tt.req, nil); err != nil {
				t.Fatal(err)
			}
			wantJSON(t, "options", s.bodies["/api/chat"][0]["options"], tt.want)
		})
	}
}

func TestChatStreamsText(t *testing.T) {
	_, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){
		"POST /api/chat": ndjson(chunk("The goblin "), chunk("snarls"), chunk(" and lunges."), final("stop", 26, 7)),
	})
	var got []string
	resp, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "look"}}}, func(c llm.Chunk) error {
		if c.ToolCall != nil {
			t.Errorf("unexpected tool call %+v", c.ToolCall)
		}
		got = append(got, c.Content)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"The goblin ", "snarls", " and lunges."}; !reflect.DeepEqual(got, want) {
		t.Errorf("chunks = %q, want %q", got, want)
	}
	want := &llm.Response{
		Message:    llm.Message{Role: llm.Assistant, Content: "The goblin snarls and lunges."},
		Usage:      llm.Usage{PromptTokens: 26, CompletionTokens: 7},
		StopReason: "stop",
	}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response = %+v, want %+v", resp, want)
	}
}

func TestChatToolCalls(t *testing.T) {
	toolChunk := map[string]any{
		"model": "llama3.2", "created_at": "2024-07-22T20:33:28.123648Z",
		"message": map[string]any{"role": "assistant", "content": "", "tool_calls": []any{
			map[string]any{"function": map[string]any{"index": 0, "name": "attack", "arguments": map[string]any{"target": "goblin", "weapon": "sword"}}},
			map[string]any{"id": "abc", "function": map[string]any{"index": 1, "name": "look", "arguments": map[string]any{}}},
		}},
		"done": false,
	}
	_, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){
		"POST /api/chat": ndjson(chunk("Right."), toolChunk, final("stop", 40, 12)),
	})
	var calls []llm.ToolCall
	var text string
	resp, err := p.Chat(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "attack the goblin"}},
		Tools:    []llm.Tool{{Name: "attack", Parameters: json.RawMessage(attackSchema)}, {Name: "look"}},
	}, func(c llm.Chunk) error {
		if c.ToolCall != nil {
			calls = append(calls, *c.ToolCall)
		}
		text += c.Content
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if text != "Right." || resp.Message.Content != "Right." {
		t.Errorf("text = %q, content = %q", text, resp.Message.Content)
	}
	if !reflect.DeepEqual(calls, resp.Message.ToolCalls) {
		t.Errorf("streamed calls %+v differ from response's %+v", calls, resp.Message.ToolCalls)
	}
	if len(calls) != 2 {
		t.Fatalf("calls = %+v, want 2", calls)
	}
	for i, want := range []struct{ id, name, args string }{
		{"call_1", "attack", `{"target":"goblin","weapon":"sword"}`},
		{"abc", "look", `{}`},
	} {
		c := calls[i]
		if c.ID != want.id || c.Name != want.name {
			t.Errorf("call %d = %s %s, want %s %s", i, c.ID, c.Name, want.id, want.name)
		}
		wantJSON(t, fmt.Sprintf("call %d arguments", i), json.RawMessage(c.Arguments), want.args)
	}
	if resp.Usage != (llm.Usage{PromptTokens: 40, CompletionTokens: 12}) || resp.StopReason != "stop" {
		t.Errorf("usage %+v stop %q", resp.Usage, resp.StopReason)
	}
}

func TestHTTPErrors(t *testing.T) {
	fail := func(status int, retryAfter, body string) func(http.ResponseWriter, *http.Request, map[string]any) {
		return func(w http.ResponseWriter, _ *http.Request, _ map[string]any) {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
	calls := map[string]func(p *Provider) error{
		"chat": func(p *Provider) error {
			_, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
			return err
		},
		"models": func(p *Provider) error { _, err := p.Models(context.Background()); return err },
		"embed":  func(p *Provider) error { _, err := p.Embed(context.Background(), "", []string{"x"}); return err },
	}
	tests := []struct {
		name       string
		status     int
		retryAfter string
		body       string
		kind       llm.ErrorKind
		transient  bool
		wait       time.Duration
		msg        string
	}{
		{"429 with retry-after", 429, "7", `{"error":"too many requests"}`, llm.RateLimited, true, 7 * time.Second, "too many requests"},
		{"429 without body", 429, "", ``, llm.RateLimited, true, 0, ""},
		{"500", 500, "", `{"error":"model runner has unexpectedly stopped"}`, llm.Overloaded, true, 0, "unexpectedly stopped"},
		{"503 plain text", 503, "2", `busy`, llm.Overloaded, true, 2 * time.Second, "busy"},
		{"404 model not found", 404, "", `{"error":"model \"nope\" not found, try pulling it first"}`, llm.BadRequest, false, 0, "not found"},
		{"401", 401, "", `{"error":"unauthorized"}`, llm.Auth, false, 0, ""},
	}
	for _, tt := range tests {
		for call, do := range calls {
			t.Run(tt.name+"/"+call, func(t *testing.T) {
				h := fail(tt.status, tt.retryAfter, tt.body)
				_, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){
					"POST /api/chat": h, "GET /api/tags": h, "POST /api/embed": h,
				})
				err := do(p)
				var e *llm.Error
				if !errors.As(err, &e) {
					t.Fatalf("err = %v (%T), want *llm.Error", err, err)
				}
				if e.Kind != tt.kind || e.Status != tt.status || e.Transient() != tt.transient || llm.IsTransient(err) != tt.transient {
					t.Errorf("err = %v: kind %s status %d transient %v, want %s %d %v", err, e.Kind, e.Status, e.Transient(), tt.kind, tt.status, tt.transient)
				}
				if e.RetryAfter != tt.wait {
					t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tt.wait)
				}
				if e.Provider != "ollama" || !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("err = %q, want provider ollama and %q", err, tt.msg)
				}
			})
		}
	}
}

func TestChatMalformedStream(t *testing.T) {
	tests := []struct {
		name  string
		lines []any
	}{
		{"broken JSON", []any{chunk("Once"), `{"model":"llama3.2","message":{"role":"assistant","content":" upon`, final("stop", 1, 1)}},
		{"not JSON", []any{chunk("Once"), `data: {"content":"x"}`}},
		{"wrong types", []any{chunk("Once"), `{"model":"llama3.2","message":"upon","done":false}`}},
		{"no final chunk", []any{chunk("Once"), chunk(" upon")}},
		{"empty body", nil},
		{"error mid-stream", []any{chunk("Once"), `{"error":"an error was encountered while running the model"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){
				"POST /api/chat": func(w http.ResponseWriter, r *http.Request, body map[string]any) {
					ndjson(tt.lines...)(w, r, body)
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			resp, err := p.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
			if err == nil {
				t.Fatalf("no error; response %+v", resp)
			}
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != llm.Malformed {
				t.Fatalf("err = %v, want llm.Malformed", err)
			}
		})
	}
}

func TestChatMalformedLineDoesNotHang(t *testing.T) {
	// The server sends a bad line and then keeps the connection open: the
	// client must give up on the bad line, not wait for more.
	release := make(chan struct{})
	_, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){
		"POST /api/chat": func(w http.ResponseWriter, r *http.Request, body map[string]any) {
			ndjson(chunk("Once"), `{{{`)(w, r, body)
			select {
			case <-r.Context().Done():
			case <-release:
			}
		},
	})
	defer close(release)
	errc := make(chan error, 1)
	go func() {
		_, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
		errc <- err
	}()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("no error for a malformed line")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Chat hung on a malformed line")
	}
}

func TestUnreachable(t *testing.T) {
	url := "http://" + deadport.Addr(t) // held, never listening: connection refused
	p, err := New(url, WithModel("llama3.2"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, chatErr := p.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
	_, modelsErr := p.Models(ctx)
	_, embedErr := p.Embed(ctx, "", []string{"x"})
	for name, err := range map[string]error{"chat": chatErr, "models": modelsErr, "embed": embedErr} {
		var e *llm.Error
		if !errors.As(err, &e) || e.Kind != llm.Unreachable || !e.Transient() {
			t.Errorf("%s: err = %v, want transient llm.Unreachable", name, err)
		}
	}
}

func TestChatCallbackErrorStops(t *testing.T) {
	stop := errors.New("player quit")
	_, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){
		"POST /api/chat": ndjson(chunk("a"), chunk("b"), chunk("c"), final("stop", 1, 3)),
	})
	n := 0
	resp, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, func(llm.Chunk) error {
		n++
		return stop
	})
	if err != stop || resp != nil {
		t.Errorf("resp, err = %v, %v; want nil, %v", resp, err, stop)
	}
	if n != 1 {
		t.Errorf("callback ran %d times, want 1", n)
	}
}

func TestChatContext(t *testing.T) {
	// The server sends one chunk and then waits until the client goes.
	handler := func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		ndjson(chunk("Once"))(w, r, body)
		<-r.Context().Done()
	}
	t.Run("cancelled", func(t *testing.T) {
		_, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){"POST /api/chat": handler})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := p.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, func(llm.Chunk) error {
			cancel()
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		_, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){"POST /api/chat": handler})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := p.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
		var e *llm.Error
		if !errors.As(err, &e) || e.Kind != llm.Timeout || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want llm.Timeout wrapping context.DeadlineExceeded", err)
		}
	})
}

func TestModels(t *testing.T) {
	s, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){
		"GET /api/tags": func(w http.ResponseWriter, _ *http.Request, _ map[string]any) {
			io.WriteString(w, `{"models":[
				{"name":"llama3.2:latest","model":"llama3.2:latest","modified_at":"2024-09-25T14:06:41.512Z","size":2019393189,"digest":"a80c4f17acd5","details":{"format":"gguf","family":"llama","families":["llama"],"parameter_size":"3.2B","quantization_level":"Q4_K_M"}},
				{"name":"nomic-embed-text:latest","model":"nomic-embed-text:latest","modified_at":"2024-09-25T14:06:41.512Z","size":274302450,"digest":"0a109f422b47","details":{"format":"gguf","family":"nomic-bert","parameter_size":"137M","quantization_level":"F16"}}]}`)
		},
		"POST /api/show": func(w http.ResponseWriter, _ *http.Request, body map[string]any) {
			switch body["model"] {
			case "llama3.2:latest":
				io.WriteString(w, `{"modelfile":"FROM x","details":{"parent_model":"","format":"gguf","family":"llama","families":["llama"],"parameter_size":"3.2B","quantization_level":"Q4_K_M"},
					"model_info":{"general.architecture":"llama","general.parameter_count":3212749888,"llama.context_length":131072,"llama.embedding_length":3072},
					"capabilities":["completion","tools"],"modified_at":"2024-09-25T14:06:41.512Z"}`)
			case "nomic-embed-text:latest":
				// No context length: the model says nothing.
				io.WriteString(w, `{"details":{"format":"gguf","family":"nomic-bert","parameter_size":"137M","quantization_level":"F16"},
					"model_info":{"general.architecture":"nomic-bert","nomic-bert.embedding_length":768}}`)
			default:
				t.Errorf("show for unexpected model %v", body["model"])
				w.WriteHeader(404)
				io.WriteString(w, `{"error":"model not found"}`)
			}
		},
	})
	got, err := p.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Model{
		{Name: "llama3.2:latest", ContextLength: 131072, ParameterSize: "3.2B", Quantization: "Q4_K_M"},
		{Name: "nomic-embed-text:latest", ContextLength: 0, ParameterSize: "137M", Quantization: "F16"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Models = %+v, want %+v", got, want)
	}
	if n := len(s.bodies["/api/show"]); n != 2 {
		t.Errorf("%d show requests, want 2", n)
	}
}

func TestEmbed(t *testing.T) {
	s, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){
		"POST /api/embed": func(w http.ResponseWriter, _ *http.Request, body map[string]any) {
			wantJSON(t, "model", body["model"], `"nomic-embed-text"`)
			wantJSON(t, "input", body["input"], `["the goblin","a sword"]`)
			io.WriteString(w, `{"model":"nomic-embed-text","embeddings":[[0.5,-0.25,1],[0,0.125,-1]],"total_duration":14143917,"load_duration":1019500,"prompt_eval_count":8}`)
		},
	})
	got, err := p.Embed(context.Background(), "nomic-embed-text", []string{"the goblin", "a sword"})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]float32{{0.5, -0.25, 1}, {0, 0.125, -1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Embed = %v, want %v", got, want)
	}
	if len(s.bodies["/api/embed"]) != 1 {
		t.Errorf("%d embed requests, want 1", len(s.bodies["/api/embed"]))
	}

	t.Run("count mismatch", func(t *testing.T) {
		_, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){
			"POST /api/embed": func(w http.ResponseWriter, _ *http.Request, _ map[string]any) {
				io.WriteString(w, `{"model":"m","embeddings":[[1]]}`)
			},
		})
		_, err := p.Embed(context.Background(), "m", []string{"a", "b"})
		var e *llm.Error
		if !errors.As(err, &e) || e.Kind != llm.Malformed {
			t.Errorf("err = %v, want llm.Malformed", err)
		}
	})
}

func TestNew(t *testing.T) {
	p, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "ollama" {
		t.Errorf("Name = %q", p.Name())
	}
	for _, bad := range []string{"ftp://host", "http://", "http://a b/"} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%q): no error", bad)
		}
	}
	if _, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User}}}, nil); err == nil {
		t.Error("Chat without a model: no error")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{" 120 ", 2 * time.Minute},
		{"-1", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// Images where no provider takes them are refused before anything is sent.
func TestChatRefusesMisplacedImages(t *testing.T) {
	tests := []struct {
		name string
		msg  llm.Message
		want string
	}{
		{"on a system message", llm.Message{Role: llm.System, Content: "x", Images: []llm.Image{{MIMEType: "image/png", Data: []byte{1}}}}, "only user messages"},
		{"without bytes", llm.Message{Role: llm.User, Content: "x", Images: []llm.Image{{MIMEType: "image/png"}}}, "no bytes"},
		{"not an image", llm.Message{Role: llm.User, Content: "x", Images: []llm.Image{{MIMEType: "text/plain", Data: []byte{1}}}}, "MIME type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, p := newServer(t, map[string]func(http.ResponseWriter, *http.Request, map[string]any){
				"POST /api/chat": ndjson(chunk("ok"), final("stop", 1, 1)),
			})
			_, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{tt.msg}}, nil)
			var e *llm.Error
			if !errors.As(err, &e) || e.Kind != llm.BadRequest || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a bad request saying %q", err, tt.want)
			}
			if n := len(s.bodies["/api/chat"]); n != 0 {
				t.Errorf("%d requests sent", n)
			}
		})
	}
}
