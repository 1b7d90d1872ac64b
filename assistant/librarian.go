package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/hearth-rpg/hearth/llm"
)

// Librarian is the assistant's model when none is configured: it cannot
// reason, but it can look things up. Asked a question with document_search
// offered, it searches for the question's words; given the results, it
// answers with them, cited. It goes through the same agent loop, events and
// tools as a real model, so offline use is the real path.
type Librarian struct{}

// Name implements llm.Provider.
func (Librarian) Name() string { return "librarian" }

// Models implements llm.Provider.
func (Librarian) Models(context.Context) ([]llm.Model, error) {
	return []llm.Model{{Name: "librarian"}}, nil
}

// Embed implements llm.Provider; the librarian has no embeddings.
func (Librarian) Embed(context.Context, string, []string) ([][]float32, error) {
	return nil, errors.New("the offline librarian has no embeddings; configure an embedder")
}

// Chat implements llm.Provider.
func (Librarian) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	if fn == nil {
		fn = func(llm.Chunk) error { return nil }
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("librarian: no messages")
	}
	resp := &llm.Response{Message: llm.Message{Role: llm.Assistant}, StopReason: "stop"}
	last := req.Messages[len(req.Messages)-1]
	offered := func(name string) bool {
		for _, t := range req.Tools {
			if t.Name == name {
				return true
			}
		}
		return false
	}
	if last.Role == llm.User {
		if !offered(DocumentSearch) {
			return say(resp, "No language model is configured, so I can only look things up in your books, and searching is not available for this request.", fn)
		}
		args, err := json.Marshal(map[string]any{"query": last.Content, "limit": 3})
		if err != nil {
			return nil, err
		}
		call := llm.ToolCall{ID: "search_1", Name: DocumentSearch, Arguments: args}
		resp.Message.ToolCalls = []llm.ToolCall{call}
		resp.StopReason = "tool_calls"
		return resp, fn(llm.Chunk{ToolCall: &call})
	}
	var found []string
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != llm.User; i-- {
		if m := req.Messages[i]; m.Role == llm.ToolRole {
			found = append([]string{m.Content}, found...)
		}
	}
	text := "No language model is configured, so here is what your books say, unabridged:\n\n" + strings.Join(found, "\n\n")
	return say(resp, text, fn)
}

func say(resp *llm.Response, text string, fn func(llm.Chunk) error) (*llm.Response, error) {
	// Streamed a paragraph at a time, as a model would.
	for _, p := range strings.SplitAfter(text, "\n\n") {
		if p == "" {
			continue
		}
		if err := fn(llm.Chunk{Content: p}); err != nil {
			return nil, err
		}
	}
	resp.Message.Content = text
	resp.Usage = llm.Usage{CompletionTokens: len(strings.Fields(text))}
	return resp, nil
}
