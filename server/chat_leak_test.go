package server_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/server/internal/streambench"
)

// A chat that ends any way leaves no goroutine behind: not the provider's
// send (on a goroutine of its own), not the agent loop's (which saves the
// conversation), not the handler's. Each case runs a streaming chat
// through the real OpenAI provider against a local model server, then,
// with every idle connection closed, waits (generously) for the process's
// goroutines to come back to what they were before it.
func TestEndedChatLeavesNoGoroutine(t *testing.T) {
	stream := streambench.NewModel(1000, 10*time.Millisecond)
	var mode atomic.Value // how the model answers the next chat
	mode.Store("stream")
	asked := make(chan struct{}, 1) // the model has a request it holds
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read to the body's end, so that the server watches the
		// connection and ends r's context when the caller hangs up.
		io.Copy(io.Discard, r.Body)
		switch mode.Load() {
		case "stream":
			stream.ServeHTTP(w, r)
		case "hold": // no headers until the caller gives up
			asked <- struct{}{}
			<-r.Context().Done()
		case "fail":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"message":"no such model","type":"invalid_request_error"}}`))
		case "hang up": // the connection closes before an answer
			c, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				c.Close()
			}
		}
	}))
	defer model.Close()
	tr := llm.ServerTransport()
	p, err := openai.New(model.URL+"/v1", "", openai.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOpts{provider: p})
	client := &http.Client{}
	idle := func() {
		client.CloseIdleConnections()
		http.DefaultClient.CloseIdleConnections()
		tr.CloseIdleConnections()
	}

	// chat POSTs a streaming chat; ctx ends the client's side.
	chat := func(ctx context.Context) (*http.Response, *bufio.Reader) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, "POST", f.url+"/api/chat", strings.NewReader(`{"messages":[{"role":"user","content":"describe the jump drive"}]}`))
		req.Header.Set("Authorization", "Bearer "+f.gmKey)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("chat: %s", resp.Status)
		}
		return resp, bufio.NewReader(resp.Body)
	}
	// until reads the stream to the first line containing s.
	until := func(br *bufio.Reader, s string) {
		t.Helper()
		for {
			line, err := br.ReadString('\n')
			if strings.Contains(line, s) {
				return
			}
			if err != nil {
				t.Fatalf("stream ended (%v) before %q", err, s)
			}
		}
	}

	cases := []struct {
		name, mode string
		run        func(t *testing.T)
	}{
		{"client leaves mid-stream", "stream", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			resp, br := chat(ctx)
			until(br, `"type":"content"`)
			cancel()
			resp.Body.Close()
		}},
		{"cancelled through the API", "stream", func(t *testing.T) {
			resp, br := chat(context.Background())
			defer resp.Body.Close()
			until(br, `"type":"content"`)
			c := f.do("POST", "/api/chat/continue", f.gmKey, map[string]string{"conversation_id": resp.Header.Get("X-Conversation-ID"), "action": "cancel"})
			c.Body.Close()
			if c.StatusCode != http.StatusOK {
				t.Fatalf("cancel: %s", c.Status)
			}
			until(br, `"type":"done"`)
		}},
		{"client leaves during the send", "hold", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			resp, _ := chat(ctx)
			select {
			case <-asked:
			case <-time.After(time.Minute):
				t.Error("the model never got the request")
			}
			cancel()
			resp.Body.Close()
		}},
		{"model refuses the send", "fail", func(t *testing.T) {
			resp, br := chat(context.Background())
			defer resp.Body.Close()
			until(br, `"type":"error"`)
			until(br, `"type":"done"`)
		}},
		{"model hangs up on the send", "hang up", func(t *testing.T) {
			resp, br := chat(context.Background())
			defer resp.Body.Close()
			until(br, `"type":"error"`)
			until(br, `"type":"done"`)
		}},
	}

	// A whole chat first: it too must leave nothing.
	base := runtime.NumGoroutine()
	t.Logf("before: %d goroutines", base)
	stream.Set(3, time.Millisecond)
	resp, br := chat(context.Background())
	until(br, `"type":"done"`)
	resp.Body.Close()
	stream.Set(1000, 10*time.Millisecond)
	settled(t, f, idle, base)

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := runtime.NumGoroutine() // this subtest's own included
			mode.Store(c.mode)
			c.run(t)
			settled(t, f, idle, base)
			t.Logf("after: %d goroutines", runtime.NumGoroutine())
		})
	}
}

// settled waits (a minute at most: the machine may be loaded) until no
// chat is active and the process has at most want goroutines, and fails
// with their stacks if it does not come.
func settled(t *testing.T, f *fixture, idle func(), want int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		idle()
		n := runtime.NumGoroutine()
		if f.chat.ActiveCount() == 0 && n <= want {
			return
		}
		if time.Now().After(deadline) {
			var buf bytes.Buffer
			pprof.Lookup("goroutine").WriteTo(&buf, 1)
			t.Fatalf("%d chats active, %d goroutines, want at most %d:\n%s", f.chat.ActiveCount(), n, want, buf.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
