package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// Role of a chat message.
type Role string

// Message roles.
const (
	System    Role = "system"
	User      Role = "user"
	Assistant Role = "assistant"
	ToolRole  Role = "tool"
)

// Message is one chat message.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`   // assistant messages
	ToolCallID string     `json:"tool_call_id,omitempty"` // tool messages
	Name       string     `json:"name,omitempty"`         // tool messages: the tool's name
	// Cache marks the end of a stable prefix (system prompt, rules,
	// campaign canon): providers that support prompt caching (Anthropic)
	// cache everything up to and including this message.
	Cache bool `json:"cache,omitempty"`
	// Images go with the text to a vision model. Only user messages may
	// carry them; providers refuse them elsewhere.
	Images []Image `json:"images,omitempty"`
}

// Image is a picture sent to a model: its bytes and their MIME type
// (image/png, image/jpeg, image/webp or image/gif, which every provider
// accepts).
type Image struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
}

// DataURL is the image as a data: URL, base64-encoded.
func (im Image) DataURL() string {
	return "data:" + im.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}

// CheckImages reports an error for images on a message that may not carry
// them or without a type or bytes, so that every provider refuses the
// same requests.
func (m Message) CheckImages() error {
	if len(m.Images) == 0 {
		return nil
	}
	if m.Role != User {
		return fmt.Errorf("a %s message carries %d image(s): only user messages may", m.Role, len(m.Images))
	}
	for i, im := range m.Images {
		switch {
		case len(im.Data) == 0:
			return fmt.Errorf("image %d has no bytes", i)
		case !strings.HasPrefix(im.MIMEType, "image/"):
			return fmt.Errorf("image %d has MIME type %q, want image/png, image/jpeg, image/webp or image/gif", i, im.MIMEType)
		}
	}
	return nil
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Tool is a tool offered to the model; Parameters is a JSON Schema.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one chat call.
type Request struct {
	Model    string    `json:"model,omitempty"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools,omitempty"`
	// Schema, when set, asks for JSON output matching it.
	Schema      json.RawMessage `json:"schema,omitempty"`
	Temperature *float64        `json:"temperature,omitempty"`
	MaxTokens   int             `json:"max_tokens,omitempty"`
}

// Usage counts tokens.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CachedTokens is how many prompt tokens were read from the
	// provider's prompt cache, where it says.
	CachedTokens int `json:"cached_tokens,omitempty"`
}

// Add sums two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.PromptTokens + v.PromptTokens, u.CompletionTokens + v.CompletionTokens, u.CachedTokens + v.CachedTokens}
}

// Response is a finished chat call.
type Response struct {
	Message    Message `json:"message"`
	Usage      Usage   `json:"usage"`
	StopReason string  `json:"stop_reason,omitempty"`
}

// Chunk is a piece of a streamed response: text as it arrives, or a tool
// call once its arguments are complete (providers assemble arguments
// streamed in pieces).
type Chunk struct {
	Content  string    `json:"content,omitempty"`
	ToolCall *ToolCall `json:"tool_call,omitempty"`
	// Streamed, when not empty, is all the text this call has streamed
	// so far, Content last. A provider that keeps the text anyway hands
	// it over, so that a caller that must keep it too (for a partial
	// answer if the call fails) need not copy it token by token.
	Streamed string `json:"-"`
}

// Model describes a model a provider serves. ContextLength is 0 when the
// provider does not say.
type Model struct {
	Name          string `json:"name"`
	ContextLength int    `json:"context_length,omitempty"`
	ParameterSize string `json:"parameter_size,omitempty"`
	Quantization  string `json:"quantization,omitempty"`
}

// Provider is a model server. Chat streams through fn (which may be nil)
// and returns the whole response; an error from fn stops the call.
type Provider interface {
	Name() string
	Chat(ctx context.Context, req Request, fn func(Chunk) error) (*Response, error)
	Models(ctx context.Context) ([]Model, error)
	Embed(ctx context.Context, model string, texts []string) ([][]float32, error)
}

// Arguments makes a tool call's arguments storable: valid JSON is kept;
// anything else (a model's broken JSON) becomes a JSON string holding the
// text, so the call can still be recorded and its caller can tell the
// model what was wrong.
func Arguments(raw string) json.RawMessage {
	if raw == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(raw)) {
		return json.RawMessage(raw)
	}
	b, _ := json.Marshal(raw)
	return b
}
