package gemini

import (
	"context"
	"encoding/base64"
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

const testKey = "test-key-do-not-leak"

// fakeGemini is an httptest server speaking the Gemini REST wire format.
// Handlers get the decoded JSON body; check is called on every request and
// fails the test (and answers 400) when it returns an error.
type fakeGemini struct {
	t        *testing.T
	srv      *httptest.Server
	requests atomic.Int32
	stream   func(w http.ResponseWriter, model string, body map[string]any)
	list     func(w http.ResponseWriter, r *http.Request)
	embed    func(w http.ResponseWriter, model string, body map[string]any)
}

func newFake(t *testing.T) *fakeGemini {
	t.Helper()
	f := &fakeGemini{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGemini) serve(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if got := r.Header.Get("x-goog-api-key"); got != testKey {
		f.t.Errorf("x-goog-api-key = %q, want the key", got)
		httpError(w, 401, "UNAUTHENTICATED", "missing key")
		return
	}
	if strings.Contains(r.URL.String(), testKey) {
		f.t.Errorf("key in URL %s", r.URL)
	}
	var body map[string]any
	if r.Method == http.MethodPost {
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			f.t.Errorf("Content-Type = %q", ct)
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			f.t.Errorf("request body: %v", err)
			httpError(w, 400, "INVALID_ARGUMENT", "bad body")
			return
		}
	}
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasPrefix(path, "/v1beta/models/") && strings.HasSuffix(path, ":streamGenerateContent"):
		if r.URL.Query().Get("alt") != "sse" {
			f.t.Errorf("stream without alt=sse: %s", r.URL)
		}
		model := strings.TrimSuffix(strings.TrimPrefix(path, "/v1beta/models/"), ":streamGenerateContent")
		if f.stream == nil {
			f.t.Errorf("unexpected stream request %s", path)
			httpError(w, 404, "NOT_FOUND", "no stream")
			return
		}
		f.stream(w, model, body)
	case r.Method == http.MethodGet && path == "/v1beta/models":
		if f.list == nil {
			f.t.Errorf("unexpected list request")
			httpError(w, 404, "NOT_FOUND", "no list")
			return
		}
		f.list(w, r)
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":batchEmbedContents"):
		model := strings.TrimSuffix(strings.TrimPrefix(path, "/v1beta/models/"), ":batchEmbedContents")
		if f.embed == nil {
			f.t.Errorf("unexpected embed request")
			httpError(w, 404, "NOT_FOUND", "no embed")
			return
		}
		f.embed(w, model, body)
	default:
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		httpError(w, 404, "NOT_FOUND", "no such method")
	}
}

func httpError(w http.ResponseWriter, code int, status, msg string, details ...map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	e := map[string]any{"code": code, "message": msg, "status": status}
	if len(details) > 0 {
		e["details"] = details
	}
	json.NewEncoder(w).Encode(map[string]any{"error": e})
}

// sse writes events as a Gemini stream: each one a "data: <json>" line
// followed by a blank line.
func sse(w http.ResponseWriter, events ...any) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	for _, e := range events {
		var data []byte
		if s, ok := e.(string); ok {
			data = []byte(s)
		} else {
			data, _ = json.Marshal(e)
		}
		fmt.Fprintf(w, "data: %s\r\n\r\n", data)
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
}

func textEvent(text string) map[string]any {
	return map[string]any{"candidates": []any{map[string]any{
		"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}},
	}}}
}

func (f *fakeGemini) provider(t *testing.T, opts ...Option) *Provider {
	t.Helper()
	p, err := New(context.Background(), f.srv.URL, testKey, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func kindOf(t *testing.T, err error) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error %q contains the API key", err)
	}
	return e
}

// get walks decoded JSON: strings index objects, ints index arrays.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func jsonOf(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestChatStreamsTextAndUsage(t *testing.T) {
	f := newFake(t)
	f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
		if model != "gemini-2.5-flash" {
			t.Errorf("model = %q", model)
		}
		sse(w,
			textEvent("The door "),
			textEvent("creaks "),
			map[string]any{
				"candidates": []any{map[string]any{
					"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": "open."}}},
					"finishReason": "STOP",
				}},
				"usageMetadata": map[string]any{
					"promptTokenCount": 12, "candidatesTokenCount": 5, "cachedContentTokenCount": 4, "totalTokenCount": 17,
				},
			},
		)
	}
	p := f.provider(t, WithModel("gemini-2.5-flash"))
	var chunks []string
	resp, err := p.Chat(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.User, Content: "open the door"}},
	}, func(c llm.Chunk) error {
		if c.ToolCall != nil {
			t.Errorf("unexpected tool call %+v", c.ToolCall)
		}
		chunks = append(chunks, c.Content)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"The door ", "creaks ", "open."}; !reflect.DeepEqual(chunks, want) {
		t.Errorf("chunks = %q, want %q", chunks, want)
	}
	if resp.Message.Role != llm.Assistant || resp.Message.Content != "The door creaks open." {
		t.Errorf("message = %+v", resp.Message)
	}
	if want := (llm.Usage{PromptTokens: 12, CompletionTokens: 5, CachedTokens: 4}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.StopReason != "stop" {
		t.Errorf("stop reason = %q", resp.StopReason)
	}
	if n := f.requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestChatRequestBody(t *testing.T) {
	params := `{"type":"object","properties":{"target":{"type":"string","description":"who"}},"required":["target"]}`
	schema := `{"type":"object","properties":{"intent":{"type":"string","enum":["go","take"]}},"required":["intent"]}`
	f := newFake(t)
	f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
		var problems []string
		check := func(what string, got, want any) {
			if !reflect.DeepEqual(got, want) {
				problems = append(problems, fmt.Sprintf("%s = %#v, want %#v", what, got, want))
			}
		}
		check("systemInstruction text 0", get(body, "systemInstruction", "parts", 0, "text"), "You are the narrator.")
		check("systemInstruction text 1", get(body, "systemInstruction", "parts", 1, "text"), "Be brief.")
		contents, _ := body["contents"].([]any)
		check("number of contents", len(contents), 4)
		check("contents[0].role", get(body, "contents", 0, "role"), "user")
		check("contents[0] text", get(body, "contents", 0, "parts", 0, "text"), "attack the goblin")
		check("contents[1].role", get(body, "contents", 1, "role"), "model")
		check("contents[1] text", get(body, "contents", 1, "parts", 0, "text"), "Rolling.")
		check("contents[1] call name", get(body, "contents", 1, "parts", 1, "functionCall", "name"), "attack")
		check("contents[1] call id", get(body, "contents", 1, "parts", 1, "functionCall", "id"), "fc-1")
		check("contents[1] call args", get(body, "contents", 1, "parts", 1, "functionCall", "args"), map[string]any{"target": "goblin"})
		check("contents[1] second call", get(body, "contents", 1, "parts", 2, "functionCall", "name"), "look")
		check("contents[2].role", get(body, "contents", 2, "role"), "user")
		check("functionResponse name", get(body, "contents", 2, "parts", 0, "functionResponse", "name"), "attack")
		check("functionResponse id", get(body, "contents", 2, "parts", 0, "functionResponse", "id"), "fc-1")
		check("functionResponse response", get(body, "contents", 2, "parts", 0, "functionResponse", "response"),
			map[string]any{"result": map[string]any{"hit": true, "damage": 4.0}})
		check("second functionResponse (name from the call)", get(body, "contents", 2, "parts", 1, "functionResponse", "name"), "look")
		check("second functionResponse response", get(body, "contents", 2, "parts", 1, "functionResponse", "response"),
			map[string]any{"result": "a dark cave"})
		check("contents[3].role", get(body, "contents", 3, "role"), "user")
		check("contents[3] text", get(body, "contents", 3, "parts", 0, "text"), "and then?")
		check("tool name", get(body, "tools", 0, "functionDeclarations", 0, "name"), "attack")
		check("tool description", get(body, "tools", 0, "functionDeclarations", 0, "description"), "Attack someone.")
		check("tool schema", get(body, "tools", 0, "functionDeclarations", 0, "parametersJsonSchema"), jsonOf(t, params))
		check("temperature", get(body, "generationConfig", "temperature"), 0.25)
		check("maxOutputTokens", get(body, "generationConfig", "maxOutputTokens"), 300.0)
		check("responseMimeType", get(body, "generationConfig", "responseMimeType"), "application/json")
		check("responseJsonSchema", get(body, "generationConfig", "responseJsonSchema"), jsonOf(t, schema))
		if len(problems) > 0 {
			for _, p := range problems {
				t.Error(p)
			}
			httpError(w, 400, "INVALID_ARGUMENT", strings.Join(problems, "; "))
			return
		}
		sse(w, map[string]any{"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": `{"intent":"go"}`}}},
			"finishReason": "STOP",
		}}})
	}
	p := f.provider(t)
	temp := 0.25
	resp, err := p.Chat(context.Background(), llm.Request{
		Model: "gemini-2.5-pro",
		Messages: []llm.Message{
			{Role: llm.System, Content: "You are the narrator.", Cache: true},
			{Role: llm.User, Content: "attack the goblin"},
			{Role: llm.System, Content: "Be brief."},
			{Role: llm.Assistant, Content: "Rolling.", ToolCalls: []llm.ToolCall{
				{ID: "fc-1", Name: "attack", Arguments: json.RawMessage(`{"target":"goblin"}`)},
				{ID: "fc-2", Name: "look", Arguments: json.RawMessage(`{}`)},
			}},
			{Role: llm.ToolRole, ToolCallID: "fc-1", Name: "attack", Content: `{"hit":true,"damage":4}`},
			{Role: llm.ToolRole, ToolCallID: "fc-2", Content: "a dark cave"},
			{Role: llm.User, Content: "and then?"},
		},
		Tools:       []llm.Tool{{Name: "attack", Description: "Attack someone.", Parameters: json.RawMessage(params)}},
		Schema:      json.RawMessage(schema),
		Temperature: &temp,
		MaxTokens:   300,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != `{"intent":"go"}` {
		t.Errorf("content = %q", resp.Message.Content)
	}
}

func TestChatNoSchemaNoJSONMode(t *testing.T) {
	f := newFake(t)
	f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
		if v := get(body, "generationConfig", "responseMimeType"); v != nil {
			t.Errorf("responseMimeType = %v without a schema", v)
		}
		if v := get(body, "generationConfig", "temperature"); v != nil {
			t.Errorf("temperature = %v when none was set", v)
		}
		if v := body["tools"]; v != nil {
			t.Errorf("tools = %v when none were given", v)
		}
		sse(w, map[string]any{"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": "ok"}}}, "finishReason": "MAX_TOKENS",
		}}})
	}
	resp, err := f.provider(t).Chat(context.Background(), llm.Request{
		Model: "gemini-2.5-flash", Messages: []llm.Message{{Role: llm.User, Content: "hi"}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != "length" {
		t.Errorf("stop reason = %q", resp.StopReason)
	}
}

func TestChatFunctionCall(t *testing.T) {
	sig := []byte("opaque-signature")
	f := newFake(t)
	f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
		sse(w,
			map[string]any{"candidates": []any{map[string]any{
				"content": map[string]any{"role": "model", "parts": []any{
					map[string]any{"text": "Let me check."},
					map[string]any{
						"functionCall":     map[string]any{"id": "fc-7", "name": "move", "args": map[string]any{"direction": "north", "steps": 2}},
						"thoughtSignature": base64.StdEncoding.EncodeToString(sig),
					},
				}},
			}}},
			map[string]any{
				"candidates": []any{map[string]any{
					"content": map[string]any{"role": "model", "parts": []any{
						map[string]any{"functionCall": map[string]any{"name": "inventory"}},
					}},
					"finishReason": "STOP",
				}},
				"usageMetadata": map[string]any{"promptTokenCount": 30, "candidatesTokenCount": 9},
			},
		)
	}
	p := f.provider(t)
	var calls []llm.ToolCall
	var text strings.Builder
	resp, err := p.Chat(context.Background(), llm.Request{
		Model:    "gemini-3-flash-preview",
		Messages: []llm.Message{{Role: llm.User, Content: "go north twice"}},
		Tools: []llm.Tool{
			{Name: "move", Description: "Move.", Parameters: json.RawMessage(`{"type":"object"}`)},
			{Name: "inventory", Description: "List items."},
		},
	}, func(c llm.Chunk) error {
		if c.ToolCall != nil {
			calls = append(calls, *c.ToolCall)
		}
		text.WriteString(c.Content)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != "Let me check." || resp.Message.Content != "Let me check." {
		t.Errorf("text = %q, content = %q", text.String(), resp.Message.Content)
	}
	if len(calls) != 2 || !reflect.DeepEqual(calls, resp.Message.ToolCalls) {
		t.Fatalf("streamed calls %+v, response calls %+v", calls, resp.Message.ToolCalls)
	}
	if c := calls[0]; c.ID != "fc-7" || c.Name != "move" || string(c.Arguments) != `{"direction":"north","steps":2}` {
		t.Errorf("call 0 = %+v (%s)", c, c.Arguments)
	}
	if c := calls[1]; !generatedID.MatchString(c.ID) || c.Name != "inventory" || string(c.Arguments) != `{}` {
		t.Errorf("call 1 = %+v (%s)", c, c.Arguments)
	}
	if resp.StopReason != "tool_calls" {
		t.Errorf("stop reason = %q", resp.StopReason)
	}
	if resp.Usage.PromptTokens != 30 || resp.Usage.CompletionTokens != 9 {
		t.Errorf("usage = %+v", resp.Usage)
	}

	// Replaying the calls sends the signature back on the call that had one
	// and no made-up ID; a call from elsewhere gets the documented
	// placeholder.
	f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
		first := get(body, "contents", 1, "parts", 1)
		if got := get(first, "thoughtSignature"); got != base64.StdEncoding.EncodeToString(sig) {
			t.Errorf("replayed signature = %v", got)
		}
		if got := get(first, "functionCall", "id"); got != "fc-7" {
			t.Errorf("replayed id = %v", got)
		}
		second := get(body, "contents", 1, "parts", 2)
		if got := get(second, "functionCall", "id"); got != nil {
			t.Errorf("made-up id sent back: %v", got)
		}
		if got := get(second, "thoughtSignature"); got != nil {
			t.Errorf("second parallel call has signature %v", got)
		}
		if got := get(body, "contents", 2, "parts", 1, "functionResponse", "id"); got != nil {
			t.Errorf("made-up id sent back in the response: %v", got)
		}
		foreign := get(body, "contents", 3, "parts", 0)
		if got := get(foreign, "thoughtSignature"); got != base64.StdEncoding.EncodeToString([]byte(skipSignature)) {
			t.Errorf("foreign call signature = %v", got)
		}
		sse(w, map[string]any{"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": "Done."}}}, "finishReason": "STOP",
		}}})
	}
	msgs := []llm.Message{
		{Role: llm.User, Content: "go north twice"},
		resp.Message,
		{Role: llm.ToolRole, ToolCallID: calls[0].ID, Name: "move", Content: "ok"},
		{Role: llm.ToolRole, ToolCallID: calls[1].ID, Name: "inventory", Content: `["rope"]`},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "call_abc", Name: "look", Arguments: json.RawMessage(`{"at":"x"}`)}}},
		{Role: llm.ToolRole, ToolCallID: "call_abc", Name: "look", Content: "nothing"},
	}
	if _, err := p.Chat(context.Background(), llm.Request{Model: "gemini-3-flash-preview", Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestChatCallbackErrorStops(t *testing.T) {
	f := newFake(t)
	f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
		sse(w, textEvent("one"), textEvent("two"), textEvent("three"))
	}
	stop := errors.New("player left")
	n := 0
	_, err := f.provider(t).Chat(context.Background(), llm.Request{
		Model: "gemini-2.5-flash", Messages: []llm.Message{{Role: llm.User, Content: "hi"}},
	}, func(c llm.Chunk) error {
		n++
		return stop
	})
	if err != stop {
		t.Fatalf("err = %v, want the callback's error", err)
	}
	if n != 1 {
		t.Errorf("callback called %d times after failing", n)
	}
}

func TestChatHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		code      int
		status    string
		kind      llm.ErrorKind
		transient bool
		details   []map[string]any
		retry     time.Duration
	}{
		{429, "RESOURCE_EXHAUSTED", llm.RateLimited, true, []map[string]any{
			{"@type": "type.googleapis.com/google.rpc.QuotaFailure"},
			{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "23s"},
		}, 23 * time.Second},
		{500, "INTERNAL", llm.Overloaded, true, nil, 0},
		{503, "UNAVAILABLE", llm.Overloaded, true, nil, 0},
		{400, "INVALID_ARGUMENT", llm.BadRequest, false, nil, 0},
		{403, "PERMISSION_DENIED", llm.Auth, false, nil, 0},
	} {
		t.Run(tc.status, func(t *testing.T) {
			f := newFake(t)
			f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
				httpError(w, tc.code, tc.status, "nope: "+tc.status, tc.details...)
			}
			_, err := f.provider(t).Chat(context.Background(), llm.Request{
				Model: "gemini-2.5-flash", Messages: []llm.Message{{Role: llm.User, Content: "hi"}},
			}, func(llm.Chunk) error { t.Error("callback called"); return nil })
			e := kindOf(t, err)
			if e.Kind != tc.kind || e.Status != tc.code || e.Transient() != tc.transient || e.RetryAfter != tc.retry {
				t.Errorf("error %+v: kind %s status %d transient %v retry %v", e, e.Kind, e.Status, e.Transient(), e.RetryAfter)
			}
			if !strings.Contains(e.Error(), "nope: "+tc.status) {
				t.Errorf("error %q lacks the server's message", e)
			}
			if tc.transient != llm.IsTransient(err) {
				t.Errorf("IsTransient = %v", llm.IsTransient(err))
			}
			if n := f.requests.Load(); n != 1 {
				t.Errorf("%d requests: the SDK retried", n)
			}
		})
	}
}

func TestChatErrorEventMidStream(t *testing.T) {
	f := newFake(t)
	f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
		sse(w, textEvent("partial "), map[string]any{"error": map[string]any{"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}})
	}
	_, err := f.provider(t).Chat(context.Background(), llm.Request{
		Model: "gemini-2.5-flash", Messages: []llm.Message{{Role: llm.User, Content: "hi"}},
	}, nil)
	if e := kindOf(t, err); e.Kind != llm.Overloaded || e.Status != 503 {
		t.Errorf("error %v: kind %s", err, e.Kind)
	}
	if n := f.requests.Load(); n != 1 {
		t.Errorf("%d requests: the SDK retried", n)
	}
}

func TestChatMalformedStream(t *testing.T) {
	for name, events := range map[string][]any{
		"not JSON":            {textEvent("a"), `{"candidates": [`},
		"wrong shape":         {`{"candidates": "many"}`},
		"wrong element shape": {`{"candidates": [42]}`},
		"not data":            {textEvent("a"), nil},
		"empty stream":        {},
		"no finish reason":    {textEvent("a"), textEvent("b")},
		// A stream cut short after a checkpoint: the SDK would resume it
		// with a second request unless told not to.
		"cut at a checkpoint": {map[string]any{"candidates": []any{map[string]any{
			"content":           map[string]any{"role": "model", "parts": []any{map[string]any{"text": "a"}}},
			"continuationToken": base64.StdEncoding.EncodeToString([]byte("resume-here")),
		}}}},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t)
			f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
				if name == "not data" {
					sse(w, events[0])
					fmt.Fprint(w, "garbage line\r\n\r\n")
					return
				}
				sse(w, events...)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			resp, err := f.provider(t).Chat(ctx, llm.Request{
				Model: "gemini-2.5-flash", Messages: []llm.Message{{Role: llm.User, Content: "hi"}},
			}, nil)
			if err == nil {
				t.Fatalf("no error; response %+v", resp)
			}
			t.Log(err)
			if e := kindOf(t, err); e.Kind != llm.Malformed || e.Transient() {
				t.Errorf("error %v: kind %s", err, e.Kind)
			}
			if n := f.requests.Load(); n != 1 {
				t.Errorf("%d requests: the SDK retried", n)
			}
		})
	}
}

func TestChatConnectionDropped(t *testing.T) {
	f := newFake(t)
	f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
		sse(w, textEvent("The goblin "))
		fmt.Fprint(w, `data: {"candidates": [{"content": {"parts": [{"te`)
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}
	var got strings.Builder
	_, err := f.provider(t).Chat(context.Background(), llm.Request{
		Model: "gemini-2.5-flash", Messages: []llm.Message{{Role: llm.User, Content: "hi"}},
	}, func(c llm.Chunk) error { got.WriteString(c.Content); return nil })
	if e := kindOf(t, err); e.Kind != llm.Unreachable || !e.Transient() {
		t.Errorf("error %v: kind %s", err, e.Kind)
	}
	if got.String() != "The goblin " {
		t.Errorf("streamed %q before the drop", got.String())
	}
	if n := f.requests.Load(); n != 1 {
		t.Errorf("%d requests: the SDK retried", n)
	}
}

func TestChatBlockedPrompt(t *testing.T) {
	f := newFake(t)
	f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
		sse(w, map[string]any{"promptFeedback": map[string]any{"blockReason": "SAFETY"}, "usageMetadata": map[string]any{"promptTokenCount": 3}})
	}
	resp, err := f.provider(t).Chat(context.Background(), llm.Request{
		Model: "gemini-2.5-flash", Messages: []llm.Message{{Role: llm.User, Content: "hi"}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != "blocked_safety" || resp.Message.Content != "" || resp.Usage.PromptTokens != 3 {
		t.Errorf("response %+v", resp)
	}
}

func TestChatCancel(t *testing.T) {
	release := make(chan struct{})
	f := newFake(t)
	f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
		sse(w, textEvent("first"))
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.provider(t).Chat(ctx, llm.Request{
			Model: "gemini-2.5-flash", Messages: []llm.Message{{Role: llm.User, Content: "hi"}},
		}, func(c llm.Chunk) error {
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
		t.Fatal("Chat did not return after cancellation")
	}
}

func TestChatDeadline(t *testing.T) {
	release := make(chan struct{})
	f := newFake(t)
	f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := f.provider(t).Chat(ctx, llm.Request{
		Model: "gemini-2.5-flash", Messages: []llm.Message{{Role: llm.User, Content: "hi"}},
	}, nil)
	if e := kindOf(t, err); e.Kind != llm.Timeout || !e.Transient() {
		t.Errorf("error %v: kind %s", err, e.Kind)
	}
}

func TestUnreachable(t *testing.T) {
	addr := deadport.Addr(t) // held, never listening: connection refused
	p, err := New(context.Background(), "http://"+addr, testKey)
	if err != nil {
		t.Fatal(err)
	}
	req := llm.Request{Model: "gemini-2.5-flash", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}
	_, err = p.Chat(context.Background(), req, nil)
	if e := kindOf(t, err); e.Kind != llm.Unreachable || !e.Transient() {
		t.Errorf("chat error %v: kind %s", err, e.Kind)
	}
	_, err = p.Models(context.Background())
	if e := kindOf(t, err); e.Kind != llm.Unreachable {
		t.Errorf("models error %v: kind %s", err, e.Kind)
	}
	_, err = p.Embed(context.Background(), "", []string{"x"})
	if e := kindOf(t, err); e.Kind != llm.Unreachable {
		t.Errorf("embed error %v: kind %s", err, e.Kind)
	}
}

func TestBadRequests(t *testing.T) {
	f := newFake(t)
	p := f.provider(t)
	for name, req := range map[string]llm.Request{
		"no model":     {Messages: []llm.Message{{Role: llm.User, Content: "hi"}}},
		"bad model":    {Model: "x?y", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}},
		"no messages":  {Model: "m", Messages: []llm.Message{{Role: llm.System, Content: "sys"}}},
		"bad role":     {Model: "m", Messages: []llm.Message{{Role: "narrator", Content: "hi"}}},
		"bad args":     {Model: "m", Messages: []llm.Message{{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "f", Arguments: json.RawMessage(`[1]`)}}}}},
		"nameless":     {Model: "m", Messages: []llm.Message{{Role: llm.ToolRole, ToolCallID: "x", Content: "r"}}},
		"bad schema":   {Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Schema: json.RawMessage(`{`)},
		"bad tool":     {Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Tools: []llm.Tool{{Name: "t", Parameters: json.RawMessage(`{`)}}},
		"unnamed tool": {Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}, Tools: []llm.Tool{{Description: "t"}}},
	} {
		_, err := p.Chat(context.Background(), req, nil)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if e := kindOf(t, err); e.Kind != llm.BadRequest {
			t.Errorf("%s: error %v: kind %s", name, err, e.Kind)
		}
	}
	if n := f.requests.Load(); n != 0 {
		t.Errorf("%d requests sent for bad requests", n)
	}
}

func TestNew(t *testing.T) {
	if _, err := New(context.Background(), "", ""); err == nil {
		t.Error("no error without a key")
	}
	if _, err := New(context.Background(), "ftp://x", testKey); err == nil {
		t.Error("no error for an ftp base URL")
	}
	p, err := New(context.Background(), "", testKey)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "gemini" {
		t.Errorf("Name = %q", p.Name())
	}
}

func TestWithHTTPClient(t *testing.T) {
	f := newFake(t)
	var used atomic.Bool
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		used.Store(true)
		return http.DefaultTransport.RoundTrip(r)
	})}
	f.list = func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"models": []any{}})
	}
	if _, err := f.provider(t, WithHTTPClient(hc)).Models(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !used.Load() {
		t.Error("the given HTTP client was not used")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestModels(t *testing.T) {
	f := newFake(t)
	f.list = func(w http.ResponseWriter, r *http.Request) {
		switch tok := r.URL.Query().Get("pageToken"); tok {
		case "":
			json.NewEncoder(w).Encode(map[string]any{
				"models": []any{
					map[string]any{"name": "models/gemini-2.5-flash", "displayName": "Gemini 2.5 Flash", "inputTokenLimit": 1048576, "outputTokenLimit": 65536},
					map[string]any{"name": "models/gemini-embedding-001", "inputTokenLimit": 2048},
				},
				"nextPageToken": "page2",
			})
		case "page2":
			json.NewEncoder(w).Encode(map[string]any{
				"models": []any{map[string]any{"name": "models/gemini-2.5-pro", "inputTokenLimit": 1048576}},
			})
		default:
			t.Errorf("page token %q", tok)
			httpError(w, 400, "INVALID_ARGUMENT", "bad token")
		}
	}
	models, err := f.provider(t).Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Model{
		{Name: "gemini-2.5-flash", ContextLength: 1048576},
		{Name: "gemini-embedding-001", ContextLength: 2048},
		{Name: "gemini-2.5-pro", ContextLength: 1048576},
	}
	if !reflect.DeepEqual(models, want) {
		t.Errorf("models = %+v, want %+v", models, want)
	}
}

func TestModelsErrors(t *testing.T) {
	f := newFake(t)
	f.list = func(w http.ResponseWriter, r *http.Request) {
		httpError(w, 429, "RESOURCE_EXHAUSTED", "slow down")
	}
	_, err := f.provider(t).Models(context.Background())
	if e := kindOf(t, err); e.Kind != llm.RateLimited {
		t.Errorf("error %v: kind %s", err, e.Kind)
	}

	f.list = func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"models": "all of them"}`)
	}
	_, err = f.provider(t).Models(context.Background())
	if e := kindOf(t, err); e.Kind != llm.Malformed {
		t.Errorf("error %v: kind %s", err, e.Kind)
	}

	f.list = func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"models": []any{}, "nextPageToken": "again"})
	}
	_, err = f.provider(t).Models(context.Background())
	if e := kindOf(t, err); e.Kind != llm.Malformed {
		t.Errorf("endless paging: error %v", err)
	}
}

func TestEmbed(t *testing.T) {
	f := newFake(t)
	f.embed = func(w http.ResponseWriter, model string, body map[string]any) {
		if model != "gemini-embedding-001" {
			t.Errorf("model = %q", model)
		}
		reqs, _ := body["requests"].([]any)
		var embs []any
		for i, r := range reqs {
			if got := get(r, "model"); got != "models/gemini-embedding-001" {
				t.Errorf("request %d model = %v", i, got)
			}
			text, _ := get(r, "content", "parts", 0, "text").(string)
			embs = append(embs, map[string]any{"values": []float64{float64(len(text)), 0.5, -1}})
		}
		json.NewEncoder(w).Encode(map[string]any{"embeddings": embs})
	}
	p := f.provider(t)
	got, err := p.Embed(context.Background(), "", []string{"a", "bb", "ccc"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{1, 0.5, -1}, {2, 0.5, -1}, {3, 0.5, -1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("embeddings = %v, want %v", got, want)
	}

	// More texts than one batch holds take several calls, in order.
	texts := make([]string, 250)
	for i := range texts {
		texts[i] = strings.Repeat("x", i+1)
	}
	before := f.requests.Load()
	got, err = p.Embed(context.Background(), "gemini-embedding-001", texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 250 || got[0][0] != 1 || got[249][0] != 250 {
		t.Errorf("batched embeddings: %d, first %v, last %v", len(got), got[0], got[len(got)-1])
	}
	if n := f.requests.Load() - before; n != 3 {
		t.Errorf("%d requests for 250 texts, want 3", n)
	}

	f.embed = func(w http.ResponseWriter, model string, body map[string]any) {
		json.NewEncoder(w).Encode(map[string]any{"embeddings": []any{map[string]any{"values": []float64{1}}}})
	}
	_, err = p.Embed(context.Background(), "", []string{"a", "b"})
	if e := kindOf(t, err); e.Kind != llm.Malformed {
		t.Errorf("short answer: error %v", err)
	}

	f.embed = func(w http.ResponseWriter, model string, body map[string]any) {
		httpError(w, 400, "INVALID_ARGUMENT", "bad model")
	}
	_, err = p.Embed(context.Background(), "", []string{"a"})
	if e := kindOf(t, err); e.Kind != llm.BadRequest {
		t.Errorf("error %v: kind %s", err, e.Kind)
	}
}

// Images on a user message become inlineData parts ahead of its text.
func TestChatSendsInlineData(t *testing.T) {
	f := newFake(t)
	f.stream = func(w http.ResponseWriter, model string, body map[string]any) {
		want := []any{
			map[string]any{"inlineData": map[string]any{"mimeType": "image/webp", "data": "UklGRgAAAABXRUJQVlA4TA=="}},
			map[string]any{"inlineData": map[string]any{"mimeType": "image/png", "data": "iVBORw=="}},
			map[string]any{"text": "Describe it."},
		}
		if got := get(body, "contents", 0, "parts"); !reflect.DeepEqual(got, want) {
			t.Errorf("parts = %#v\nwant %#v", got, want)
		}
		if got := get(body, "contents", 0, "role"); got != "user" {
			t.Errorf("role = %v", got)
		}
		sse(w, map[string]any{"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": "A map."}}},
			"finishReason": "STOP",
		}}})
	}
	p := f.provider(t)
	resp, err := p.Chat(context.Background(), llm.Request{Model: "gemini-2.5-flash", Messages: []llm.Message{
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
	before := f.requests.Load()
	_, err = p.Chat(context.Background(), llm.Request{Model: "gemini-2.5-flash", Messages: []llm.Message{
		{Role: llm.Assistant, Content: "x", Images: []llm.Image{{MIMEType: "image/png", Data: []byte{1}}}},
	}}, nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.BadRequest || f.requests.Load() != before {
		t.Errorf("an image on a model message: err = %v", err)
	}
}
