package llm_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/ollama"
)

// ollamaServer answers /api/chat with the given handlers in turn (the last
// one repeats) and counts requests.
func ollamaServer(t *testing.T, handlers ...http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		i := int(n.Add(1)) - 1
		handlers[min(i, len(handlers)-1)](w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func status(code int, retryAfter string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		http.Error(w, `{"error":"busy"}`, code)
	}
}

func answer(text string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"`+text+`"},"done":false}`+"\n")
		io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":1}`+"\n")
	}
}

func hang(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":"The"},"done":false}`+"\n")
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

func provider(t *testing.T, url string) llm.Provider {
	p, err := ollama.New(url, ollama.WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRetry(t *testing.T) {
	req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}
	for _, tc := range []struct {
		name     string
		handlers []http.HandlerFunc
		stream   bool
		wantErr  llm.ErrorKind
		wantText string
		requests int32
		sleeps   []time.Duration
	}{
		{"429 then ok, honouring Retry-After", []http.HandlerFunc{status(429, "2"), answer("ok")}, false, "", "ok", 2, []time.Duration{2 * time.Second}},
		{"503 twice then ok", []http.HandlerFunc{status(503, ""), status(503, ""), answer("ok")}, true, "", "ok", 3, nil},
		{"500 every time gives up after 3", []http.HandlerFunc{status(500, "")}, false, llm.Overloaded, "", 3, nil},
		{"400 is not retried", []http.HandlerFunc{status(400, "")}, false, llm.BadRequest, "", 1, nil},
		{"401 is not retried", []http.HandlerFunc{status(401, "")}, false, llm.Auth, "", 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := ollamaServer(t, tc.handlers...)
			var slept []time.Duration
			p := llm.WithRetry(provider(t, srv.URL), llm.Retry{Base: 100 * time.Millisecond,
				Sleep: func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil }})
			var fn func(llm.Chunk) error
			var streamed strings.Builder
			if tc.stream {
				fn = func(c llm.Chunk) error { streamed.WriteString(c.Content); return nil }
			}
			resp, err := p.Chat(context.Background(), req, fn)
			if got := n.Load(); got != tc.requests {
				t.Errorf("%d requests, want %d", got, tc.requests)
			}
			if tc.wantErr != "" {
				var e *llm.Error
				if !errors.As(err, &e) || e.Kind != tc.wantErr {
					t.Fatalf("err = %v, want kind %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || resp.Message.Content != tc.wantText {
				t.Fatalf("resp %+v, err %v", resp, err)
			}
			if tc.stream && streamed.String() != tc.wantText {
				t.Errorf("streamed %q", streamed.String())
			}
			if tc.sleeps != nil && (len(slept) != 1 || slept[0] != tc.sleeps[0]) {
				t.Errorf("slept %v, want %v", slept, tc.sleeps)
			}
			for i, d := range slept {
				if base := 100 * time.Millisecond << i; tc.sleeps == nil && (d < base || d > base*5/4) {
					t.Errorf("backoff %d = %v, want %v plus up to 25%% jitter", i, d, base)
				}
			}
		})
	}
}

// callTimeout ends the hanging calls below. The server outlives it by
// design, and it is long enough for a loaded machine to deliver the first
// chunk and the second, answered call within it.
const callTimeout = 2 * time.Second

// A call that has streamed text is not retried: the text would repeat.
func TestNoRetryAfterStreaming(t *testing.T) {
	srv, n := ollamaServer(t, hang, answer("ok"))
	p := llm.WithRetry(llm.WithTimeout(provider(t, srv.URL), callTimeout), llm.Retry{
		Sleep: func(context.Context, time.Duration) error { return nil }})
	var got strings.Builder
	_, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}},
		func(c llm.Chunk) error { got.WriteString(c.Content); return nil })
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Timeout {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if n.Load() != 1 || got.String() != "The" {
		t.Fatalf("%d requests, streamed %q", n.Load(), got.String())
	}
}

// Without streaming, a timed-out call is retried and can succeed.
func TestTimeoutRetried(t *testing.T) {
	srv, n := ollamaServer(t, hang, answer("ok"))
	p := llm.WithRetry(llm.WithTimeout(provider(t, srv.URL), callTimeout), llm.Retry{
		Sleep: func(context.Context, time.Duration) error { return nil }})
	resp, err := p.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
	if err != nil || resp.Message.Content != "ok" || n.Load() != 2 {
		t.Fatalf("resp %+v, err %v, %d requests", resp, err, n.Load())
	}
}

// WithObserver sees every call with its outcome, usage and duration.
func TestObserver(t *testing.T) {
	srv, _ := ollamaServer(t, answer("ok"), status(400, ""))
	var calls []llm.Call
	p := llm.WithObserver(provider(t, srv.URL), func(c llm.Call) { calls = append(calls, c) })
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}
	if _, err := p.Chat(context.Background(), req, func(llm.Chunk) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Chat(context.Background(), req, nil); err == nil {
		t.Fatal("want an error")
	}
	if len(calls) != 2 {
		t.Fatalf("%d calls observed, want 2", len(calls))
	}
	ok, failed := calls[0], calls[1]
	var e *llm.Error
	if ok.Provider != "ollama" || ok.Op != "chat" || ok.Model != "m" || ok.Err != nil || ok.Usage.PromptTokens != 3 || ok.Usage.CompletionTokens != 1 || ok.Duration <= 0 {
		t.Errorf("the answered call: %+v", ok)
	}
	if !errors.As(failed.Err, &e) || e.Kind != llm.BadRequest {
		t.Errorf("the refused call: %+v", failed)
	}
}
