package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/hearth-rpg/hearth/llm"
)

// The request body is encoded here, byte for byte what the SDK's
// ChatCompletionNewParams gave with "stream" set (TestRequestIsWhatTheSDKSent
// compares the two): the SDK's reflective encoder was 0.3–0.5 ms of CPU per
// chat, most of it re-encoding the same tool schemas for every chat.

// wireRequest is a streaming chat.completions request, its fields in the
// SDK's order; "tools" and "stream" follow, appended by requestBody.
type wireRequest struct {
	Messages       []wireMessage   `json:"messages"`
	Model          string          `json:"model,omitempty"`
	MaxTokens      int64           `json:"max_tokens,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
	StreamOptions  streamOptions   `json:"stream_options"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type responseFormat struct {
	JSONSchema struct {
		Name   string          `json:"name"`
		Strict bool            `json:"strict"`
		Schema json.RawMessage `json:"schema"`
	} `json:"json_schema"`
	Type string `json:"type"`
}

// wireMessage is one message. Content is a string or, for a user message
// with images, a list of parts; an assistant message that only calls
// tools has none.
type wireMessage struct {
	Content    any            `json:"content,omitempty"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Role       llm.Role       `json:"role"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Arguments string `json:"arguments"`
		Name      string `json:"name"`
	} `json:"function"`
	Type string `json:"type"`
}

type textPart struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

type imagePart struct {
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
	Type string `json:"type"`
}

type wireTool struct {
	Function struct {
		Name        string                     `json:"name"`
		Description string                     `json:"description,omitempty"`
		Parameters  map[string]json.RawMessage `json:"parameters"`
	} `json:"function"`
	Type string `json:"type"`
}

// maxCachedTools bounds the encoded tools a provider keeps: a server
// offers a fixed set, so this is never reached in use, and a caller
// inventing tools per request cannot grow it without end.
const maxCachedTools = 512

// toolCache holds each tool's encoded JSON by its name, with the
// description and schema it was encoded from.
type toolCache struct {
	mu sync.Mutex
	m  map[string]cachedTool
}

type cachedTool struct {
	description, parameters string
	json                    []byte
}

// encode returns each tool's JSON, from the cache; size is their
// length as a JSON array.
func (c *toolCache) encode(tools []llm.Tool) (each [][]byte, size int, err error) {
	each = make([][]byte, len(tools))
	size = 2 + len(tools)
	for i, t := range tools {
		b, err := c.tool(t)
		if err != nil {
			return nil, 0, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		each[i] = b
		size += len(b)
	}
	return each, size, nil
}

func (c *toolCache) tool(t llm.Tool) ([]byte, error) {
	c.mu.Lock()
	e, ok := c.m[t.Name]
	c.mu.Unlock()
	// Compared, not copied: a lookup allocates nothing.
	if ok && e.description == t.Description && e.parameters == string(t.Parameters) {
		return e.json, nil
	}
	var w wireTool
	w.Type = "function"
	w.Function.Name, w.Function.Description = t.Name, t.Description
	params, err := toolParameters(t.Parameters)
	if err != nil {
		return nil, err
	}
	w.Function.Parameters = params
	b, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]cachedTool{}
	}
	// A tool whose schema changed replaces its entry.
	if _, ok := c.m[t.Name]; ok || len(c.m) < maxCachedTools {
		c.m[t.Name] = cachedTool{description: t.Description, parameters: string(t.Parameters), json: b}
	}
	c.mu.Unlock()
	return b, nil
}

// toolParameters is a tool's JSON Schema as an object whose values stay
// raw, so that nested objects keep their order of properties; no schema
// is an object without properties.
func toolParameters(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return map[string]json.RawMessage{"properties": json.RawMessage("{}"), "type": json.RawMessage(`"object"`)}, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("parameters are not a JSON object: %w", err)
	}
	if fields == nil {
		return nil, fmt.Errorf("parameters are not a JSON object")
	}
	return fields, nil
}

// requestBody encodes req as a streaming chat.completions request.
func (p *Provider) requestBody(req llm.Request) ([]byte, error) {
	w := wireRequest{
		Model:         req.Model,
		Temperature:   req.Temperature,
		StreamOptions: streamOptions{IncludeUsage: true},
		Messages:      make([]wireMessage, 0, len(req.Messages)),
	}
	if req.MaxTokens > 0 {
		w.MaxTokens = int64(req.MaxTokens)
	}
	for i, m := range req.Messages {
		msg, err := wireMessageOf(m)
		if err != nil {
			return nil, p.badRequest("message %d: %w", i, err)
		}
		w.Messages = append(w.Messages, msg)
	}
	var (
		tools     [][]byte
		toolsSize int
	)
	if len(req.Tools) > 0 {
		var err error
		if tools, toolsSize, err = p.tools.encode(req.Tools); err != nil {
			return nil, p.badRequest("%w", err)
		}
	}
	if len(req.Schema) > 0 {
		if !json.Valid(req.Schema) {
			return nil, p.badRequest("output schema is not valid JSON")
		}
		// Raw, so that the order of properties (which the model writes
		// in) is kept.
		f := &responseFormat{Type: "json_schema"}
		f.JSONSchema.Name, f.JSONSchema.Schema = "output", req.Schema
		w.ResponseFormat = f
	}
	// One buffer of about the body's size: encoding the messages, then
	// growing that to add the tools, threw away twice the body a chat.
	size := 128 + len(req.Schema) + toolsSize
	for _, m := range req.Messages {
		size += 64 + len(m.Content) + len(m.Content)/16
		for _, c := range m.ToolCalls {
			size += 64 + len(c.Name) + len(c.Arguments)
		}
	}
	var buf bytes.Buffer
	buf.Grow(size)
	// An Encoder escapes as Marshal does, and adds a newline.
	if err := json.NewEncoder(&buf).Encode(w); err != nil {
		return nil, err
	}
	// The tools are spliced in as they are: as a json.RawMessage,
	// encoding/json would check and compact their cached JSON every time.
	b := bytes.TrimSuffix(buf.Bytes(), []byte("}\n"))
	if tools != nil {
		b = append(b, `,"tools":[`...)
		for i, t := range tools {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, t...)
		}
		b = append(b, ']')
	}
	return append(b, `,"stream":true}`...), nil
}

// wireMessageOf converts one message.
func wireMessageOf(m llm.Message) (wireMessage, error) {
	if err := m.CheckImages(); err != nil {
		return wireMessage{}, err
	}
	w := wireMessage{Role: m.Role}
	switch m.Role {
	case llm.System:
		w.Content = m.Content
	case llm.User:
		if len(m.Images) == 0 {
			w.Content = m.Content
			break
		}
		// Images go as content parts beside the text, each a data: URL.
		parts := make([]any, 0, len(m.Images)+1)
		if m.Content != "" {
			parts = append(parts, textPart{Text: m.Content, Type: "text"})
		}
		for _, im := range m.Images {
			var part imagePart
			part.ImageURL.URL, part.Type = im.DataURL(), "image_url"
			parts = append(parts, part)
		}
		w.Content = parts
	case llm.ToolRole:
		if m.ToolCallID == "" {
			return wireMessage{}, fmt.Errorf("tool message without tool_call_id")
		}
		w.Content, w.ToolCallID = m.Content, m.ToolCallID
	case llm.Assistant:
		if m.Content != "" || len(m.ToolCalls) == 0 {
			w.Content = m.Content
		}
		for _, tc := range m.ToolCalls {
			var c wireToolCall
			c.ID, c.Type = tc.ID, "function"
			c.Function.Name, c.Function.Arguments = tc.Name, string(tc.Arguments)
			if c.Function.Arguments == "" {
				c.Function.Arguments = "{}"
			}
			w.ToolCalls = append(w.ToolCalls, c)
		}
	default:
		return wireMessage{}, fmt.Errorf("unknown role %q", m.Role)
	}
	return w, nil
}
