package offline

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/hearth-rpg/hearth/llm"
)

// EmbedDims is the size of the offline embeddings.
const EmbedDims = 256

// ToolCaller turns a user's text into calls of the offered tools, or, with
// none, into what to say instead. offlinegm.ToolCalls is the one Hearth
// wires; the provider knows no game of its own.
type ToolCaller func(ctx context.Context, text string, offered []string) ([]llm.ToolCall, string, error)

// Provider is the offline provider. The zero value is ready for use and
// answers every chat in prose.
type Provider struct {
	toolCalls ToolCaller
}

// Option configures a Provider.
type Option func(*Provider)

// WithToolCalls makes Chat answer a user message offered tools with the
// tool calls fn finds.
func WithToolCalls(fn ToolCaller) Option {
	return func(p *Provider) { p.toolCalls = fn }
}

// New returns an offline provider.
func New(opts ...Option) *Provider {
	p := &Provider{}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Name returns "offline".
func (*Provider) Name() string { return "offline" }

// Models lists the one offline model.
func (*Provider) Models(context.Context) ([]llm.Model, error) {
	return []llm.Model{{Name: "offline", ContextLength: 8192}}, nil
}

// Embed returns hashed bag-of-words vectors, L2-normalised: texts sharing
// words are close; nothing more.
func (*Provider) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := make([]float32, EmbedDims)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
		}) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%EmbedDims]++
		}
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if norm > 0 {
			n := float32(math.Sqrt(norm))
			for j := range v {
				v[j] /= n
			}
		}
		out[i] = v
	}
	return out, nil
}

// Chat answers like a model would, deterministically: a user message with
// tools offered becomes the tool calls WithToolCalls finds; tool results
// (or a request without tools, or no WithToolCalls) become narration
// joining them.
func (p *Provider) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	if fn == nil {
		fn = func(llm.Chunk) error { return nil }
	}
	if len(req.Messages) == 0 {
		return nil, fmt.Errorf("offline chat: no messages")
	}
	last := req.Messages[len(req.Messages)-1]
	resp := &llm.Response{Message: llm.Message{Role: llm.Assistant}, StopReason: "stop"}
	prompt := 0
	for _, m := range req.Messages {
		prompt += tokens(m.Content)
	}
	if last.Role == llm.User && len(req.Tools) > 0 && p.toolCalls != nil {
		offered := make([]string, len(req.Tools))
		for i, t := range req.Tools {
			offered[i] = t.Name
		}
		calls, text, err := p.toolCalls(ctx, last.Content, offered)
		if err != nil {
			return nil, err
		}
		for _, call := range calls {
			if call.ID == "" {
				call.ID = fmt.Sprintf("call_%d", len(resp.Message.ToolCalls)+1)
			}
			resp.Message.ToolCalls = append(resp.Message.ToolCalls, call)
			if err := fn(llm.Chunk{ToolCall: &call}); err != nil {
				return nil, err
			}
		}
		if len(resp.Message.ToolCalls) > 0 {
			resp.StopReason = "tool_calls"
			resp.Usage = llm.Usage{PromptTokens: prompt, CompletionTokens: 8 * len(resp.Message.ToolCalls)}
			return resp, nil
		}
		return p.say(ctx, resp, text, prompt, fn)
	}
	// Narrate the tool results since the last user message.
	var parts []string
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != llm.User; i-- {
		if m := req.Messages[i]; m.Role == llm.ToolRole && m.Content != "" {
			parts = append([]string{m.Content}, parts...)
		}
	}
	text := strings.Join(parts, " ")
	if text == "" {
		text = "Nothing much happens."
	}
	return p.say(ctx, resp, text, prompt, fn)
}

func (p *Provider) say(ctx context.Context, resp *llm.Response, text string, prompt int, fn func(llm.Chunk) error) (*llm.Response, error) {
	for _, s := range splitSentences(text) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := fn(llm.Chunk{Content: s}); err != nil {
			return nil, err
		}
	}
	resp.Message.Content = text
	resp.Usage = llm.Usage{PromptTokens: prompt, CompletionTokens: tokens(text)}
	return resp, nil
}

func splitSentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?' || s[i] == '\n') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n') {
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// tokens estimates tokens as words × 4/3.
func tokens(s string) int { return len(strings.Fields(s)) * 4 / 3 }

var _ llm.Provider = (*Provider)(nil)
