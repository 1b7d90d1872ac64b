package openai

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/llm"
)

// Chats running at once each get their own stream. The SDK's services
// append a call's options to the provider's shared option slice: when
// that slice had room to spare (it had, with an API key), concurrent
// calls wrote their options into the same array, so one chat's response
// landed in another's variable (a nil-pointer panic in the first, and
// the second reading a stranger's answer).
func TestConcurrentChatsGetTheirOwnStreams(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		msgs, _ := body["messages"].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		s := startSSE(w)
		s.send(chunk(fmt.Sprintf(`{"content":%q}`, "re: "+fmt.Sprint(last["content"])), "stop"))
		s.done()
	})
	p := newProvider(t, srv)
	const chats = 32
	var wg sync.WaitGroup
	for i := range chats {
		wg.Go(func() {
			q := fmt.Sprintf("question %d", i)
			resp, err := p.Chat(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: q}}}, nil)
			if err != nil {
				t.Errorf("%s: %v", q, err)
				return
			}
			if want := "re: " + q; resp.Message.Content != want {
				t.Errorf("%s: answered %q, want %q", q, resp.Message.Content, want)
			}
		})
	}
	wg.Wait()
}

// A stream's connection goes back to the pool when the chat ends. The
// reader stops at [DONE]; a server that flushes [DONE] and only then ends
// the body (its chunked terminator in a later packet) had its connection
// closed unread and dropped, so every chat dialled the server again.
func TestStreamConnectionIsReused(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.send(chunk(`{"content":"hi"}`, "stop"))
		s.done()
		// The body's end in a later packet, as from a server that
		// flushes each event and then finishes its handler. (Without the
		// pause the end often arrives with [DONE] and is read with it.)
		time.Sleep(20 * time.Millisecond)
	})
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	defer tr.CloseIdleConnections()
	p := newProvider(t, srv, WithHTTPClient(&http.Client{Transport: tr}))
	var reused atomic.Bool
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) {
			if i.Reused {
				reused.Store(true)
			}
		},
	})
	// The connection is put back just after a chat returns, so a chat
	// soon after reuses it; with the connection dropped, none ever does.
	for i := 0; i < 100 && !reused.Load(); i++ {
		if _, err := p.Chat(ctx, llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !reused.Load() {
		t.Fatal("100 chats in a row never reused a connection")
	}
}

// A server that sends "error": null in its chunks reports no error.
func TestNullErrorInChunkIsNoError(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		s := startSSE(w)
		s.send(`{"error":null,"choices":[{"index":0,"delta":{"content":"fine"},"finish_reason":"stop"}]}`)
		s.done()
	})
	resp, err := newProvider(t, srv).Chat(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}, nil)
	if err != nil || resp.Message.Content != "fine" {
		t.Fatalf("a chunk with a null error: %v, %+v", err, resp)
	}
}
