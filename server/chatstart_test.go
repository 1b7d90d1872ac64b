package server_test

import (
	"context"
	"errors"
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
