package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/hearth-rpg/hearth/llm"
)

// EmbedDims is the size of the offline embeddings.
const EmbedDims = 256

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
// tools offered becomes tool calls for the intents the interpreter finds;
// tool results (or a request without tools) become narration joining them.
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
	if last.Role == llm.User && len(req.Tools) > 0 {
		in, err := p.Interpret(ctx, nil, last.Content)
		if err != nil {
			return nil, err
		}
		offered := map[string]bool{}
		for _, t := range req.Tools {
			offered[t.Name] = true
		}
		for _, intent := range in.Intents {
			if !offered[intent.Type()] {
				continue
			}
			args, err := json.Marshal(intent)
			if err != nil {
				return nil, err
			}
			call := llm.ToolCall{ID: fmt.Sprintf("call_%d", len(resp.Message.ToolCalls)+1), Name: intent.Type(), Arguments: args}
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
		text := in.Reply
		if text == "" {
			text = Help()
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

var (
	_ llm.Provider    = (*Provider)(nil)
	_ llm.Interpreter = (*Provider)(nil)
	_ llm.Narrator    = (*Provider)(nil)
)
