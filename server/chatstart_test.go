package server_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/llm"
)

// gatedModel answers only once its gate is closed.
type gatedModel struct{ gate chan struct{} }

func (m gatedModel) Name() string                                { return "gated" }
func (m gatedModel) Models(context.Context) ([]llm.Model, error) { return nil, nil }
func (m gatedModel) Embed(context.Context, string, []string) ([][]float32, error) {
	return nil, errors.New("no embeddings")
}
func (m gatedModel) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	select {
	case <-m.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := fn(llm.Chunk{Content: "Ready."}); err != nil {
		return nil, err
	}
	return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: "Ready."}}, nil
}

// A streamed chat's headers (with its conversation's id) reach the client
// while the model has not answered yet: a client can show the chat as
// started, and cancel it, before the first token.
func TestChatHeadersBeforeTheModelAnswers(t *testing.T) {
	gate := make(chan struct{})
	f := newFixture(t, fixtureOpts{provider: gatedModel{gate: gate}})
	opened := make(chan *stream, 1)
	go func() {
		opened <- f.openChat(f.gmKey, map[string]any{"messages": []map[string]string{{"role": "user", "content": "ready?"}}})
	}()
	var s *stream
	select {
	case s = <-opened:
	case <-time.After(10 * time.Second):
		close(gate)
		t.Fatal("no response headers within 10 s while the model had not answered")
	}
	defer s.resp.Body.Close()
	if s.conv == "" {
		t.Error("no X-Conversation-ID")
	}
	close(gate)
	if e := s.next(); e.Type != agent.Content || e.Text != "Ready." {
		t.Errorf("first event %+v, want the model's text", e)
	}
}

// A stream waiting on its model gets a keep-alive comment every
// KeepAlive, again and again, while the chat runs on the handler's
// goroutine; once the model answers, its events, then done, then the
// stream's end reach the client, and no comment follows the end.
func TestChatKeepAliveWhileTheModelWaits(t *testing.T) {
	gate := make(chan struct{})
	f := newFixture(t, fixtureOpts{provider: gatedModel{gate: gate}, keepAlive: 20 * time.Millisecond})
	resp := f.do("POST", "/api/chat", f.gmKey, map[string]any{"messages": []map[string]string{{"role": "user", "content": "ready?"}}})
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		close(gate)
		t.Fatalf("chat: %d", resp.StatusCode)
	}
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if sc.Text() != "" {
				lines <- sc.Text()
			}
		}
	}()
	next := func() (string, bool) {
		select {
		case l, ok := <-lines:
			return l, ok
		case <-time.After(10 * time.Second):
			t.Fatal("no line within 10 s")
			return "", false
		}
	}
	for range 3 {
		if l, _ := next(); l != ": keep-alive" {
			close(gate)
			t.Fatalf("line %q while the model waits, want a keep-alive comment", l)
		}
	}
	close(gate)
	var data []string
	for {
		l, ok := next()
		if !ok {
			break
		}
		if d, isData := strings.CutPrefix(l, "data: "); isData {
			data = append(data, d)
		} else if l != ": keep-alive" {
			t.Errorf("unexpected line %q", l)
		}
	}
	if len(data) < 2 || !strings.Contains(data[0], `"Ready."`) || !strings.Contains(data[len(data)-1], `"type":"done"`) {
		t.Errorf("events %q: want the content, then done last", data)
	}
}

// panicModel panics in its first chat and answers the others.
type panicModel struct{ calls *atomic.Int32 }

func (m panicModel) Name() string                                { return "panics" }
func (m panicModel) Models(context.Context) ([]llm.Model, error) { return nil, nil }
func (m panicModel) Embed(context.Context, string, []string) ([][]float32, error) {
	return nil, errors.New("no embeddings")
}
func (m panicModel) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	if m.calls.Add(1) == 1 {
		panic("the model's client broke")
	}
	if err := fn(llm.Chunk{Content: "Ready."}); err != nil {
		return nil, err
	}
	return &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: "Ready."}}, nil
}

// A chat runs on its handler's goroutine, where a panic is recovered and
// the server goes on: the chat's conversation is let go, so the next
// message to it is not refused as busy.
func TestChatThatPanickedLeavesItsConversation(t *testing.T) {
	f := newFixture(t, fixtureOpts{provider: panicModel{calls: &atomic.Int32{}}})
	resp := f.do("POST", "/api/chat", f.gmKey, map[string]any{"conversation_id": "c-panic", "messages": []map[string]string{{"role": "user", "content": "ready?"}}})
	_, _ = io.Copy(io.Discard, resp.Body) // cut short by the panic
	resp.Body.Close()
	s := f.openChat(f.gmKey, map[string]any{"conversation_id": "c-panic", "messages": []map[string]string{{"role": "user", "content": "ready now?"}}})
	defer s.resp.Body.Close()
	if got := types(s.until(agent.Done)); !strings.Contains(got, agent.Content) {
		t.Errorf("events %s, want the model's answer", got)
	}
}
