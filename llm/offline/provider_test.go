package offline

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/llm"
)

var ctx = context.Background()

func TestChat(t *testing.T) {
	tools := []llm.Tool{{Name: "move"}, {Name: "talk"}}
	user := []llm.Message{{Role: llm.System, Content: "You are the GM."}, {Role: llm.User, Content: "go north"}}
	// caller stands in for offlinegm.ToolCalls, which this package must
	// not import: it answers "go north" with a move, anything else in words.
	var offered []string
	caller := func(_ context.Context, text string, tools []string) ([]llm.ToolCall, string, error) {
		offered = tools
		switch text {
		case "go north":
			return []llm.ToolCall{
				{Name: "move", Arguments: json.RawMessage(`{"destination":"north"}`)},
				{ID: "mine", Name: "talk", Arguments: json.RawMessage(`{}`)},
			}, "", nil
		case "fail":
			return nil, "", errors.New("no")
		}
		return nil, "Say it plainly. Really.", nil
	}
	tests := []struct {
		name    string
		opts    []Option
		req     llm.Request
		calls   []string // want tool call IDs, in order
		content string
		chunks  int
		err     bool
	}{
		{"tools without a caller answer in prose", nil, llm.Request{Tools: tools, Messages: user}, nil, "Nothing much happens.", 1, false},
		{"no tools answers in prose", []Option{WithToolCalls(caller)}, llm.Request{Messages: user}, nil, "Nothing much happens.", 1, false},
		{"the caller's calls, numbered", []Option{WithToolCalls(caller)}, llm.Request{Tools: tools, Messages: user}, []string{"call_1", "mine"}, "", 2, false},
		{"the caller's words", []Option{WithToolCalls(caller)}, llm.Request{Tools: tools, Messages: []llm.Message{{Role: llm.User, Content: "dance"}}},
			nil, "Say it plainly. Really.", 2, false},
		{"the caller's error", []Option{WithToolCalls(caller)}, llm.Request{Tools: tools, Messages: []llm.Message{{Role: llm.User, Content: "fail"}}}, nil, "", 0, true},
		{"tool results joined", []Option{WithToolCalls(caller)}, llm.Request{Tools: tools, Messages: []llm.Message{
			{Role: llm.User, Content: "go north"},
			{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "move"}}},
			{Role: llm.ToolRole, ToolCallID: "call_1", Name: "move", Content: "You go north. It is warm."},
		}}, nil, "You go north. It is warm.", 2, false},
		{"no messages", nil, llm.Request{}, nil, "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks := 0
			resp, err := New(tt.opts...).Chat(ctx, tt.req, func(llm.Chunk) error { chunks++; return nil })
			if tt.err {
				if err == nil {
					t.Fatalf("got %+v, want an error", resp)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, c := range resp.Message.ToolCalls {
				ids = append(ids, c.ID)
			}
			if !reflect.DeepEqual(ids, tt.calls) || resp.Message.Content != tt.content || chunks != tt.chunks {
				t.Errorf("calls %v, content %q, %d chunks; want %v, %q, %d", ids, resp.Message.Content, chunks, tt.calls, tt.content, tt.chunks)
			}
			if wantStop := map[bool]string{true: "tool_calls", false: "stop"}[len(tt.calls) > 0]; resp.StopReason != wantStop {
				t.Errorf("stop reason %q, want %q", resp.StopReason, wantStop)
			}
		})
	}
	if !reflect.DeepEqual(offered, []string{"move", "talk"}) {
		t.Errorf("the caller was offered %v", offered)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := New().Chat(cancelled, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "hello. there."}}}, nil); err == nil {
		t.Error("a cancelled context should stop the stream")
	}
}

func TestModelsAndEmbed(t *testing.T) {
	p := New()
	ms, err := p.Models(ctx)
	if err != nil || len(ms) != 1 || ms[0].ContextLength == 0 {
		t.Errorf("models: %+v %v", ms, err)
	}
	vs, err := p.Embed(ctx, "offline", []string{"the lighthouse lens", "a lens for the lighthouse", "stew and ale", ""})
	if err != nil || len(vs) != 4 || len(vs[0]) != EmbedDims {
		t.Fatalf("embed: %v", err)
	}
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	if near, far := dot(vs[0], vs[1]), dot(vs[0], vs[2]); near <= far || near < 0.5 {
		t.Errorf("similar texts %.2f, different texts %.2f", near, far)
	}
	if n := dot(vs[0], vs[0]); n < 0.999 || n > 1.001 {
		t.Errorf("not normalised: %f", n)
	}
	b, _ := json.Marshal(vs[3])
	if strings.Contains(string(b), "NaN") {
		t.Error("empty text gave NaN")
	}
}
