package anthropic

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/shared"

	"github.com/hearth-rpg/hearth/llm"
)

// DefaultBaseURL is where the Anthropic API lives.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens is the max_tokens sent when a Request does not set one;
// the Messages API requires it.
const DefaultMaxTokens = 4096

// ClaudeContextLength is the context window assumed for a claude-* model
// when /v1/models does not report max_input_tokens: every current Claude
// model accepts at least 200,000 input tokens.
const ClaudeContextLength = 200000

const providerName = "anthropic"

// Provider talks to the Anthropic Messages API.
type Provider struct {
	// The two services Hearth calls, not an sdk.Client: a field of that
	// type would make every service the SDK has (its beta API among
	// them) part of the binary, through the Provider's type.
	messages   sdk.MessageService
	models     sdk.ModelService
	httpClient *http.Client
}

var _ llm.Provider = (*Provider)(nil)

// Option configures a Provider.
type Option func(*Provider)

// WithHTTPClient sets the HTTP client used for every call. It should not
// have a Timeout that would cut off long streams; use contexts instead.
func WithHTTPClient(c *http.Client) Option {
	return func(p *Provider) {
		if c != nil {
			p.httpClient = c
		}
	}
}

// New returns a Provider for the API at baseURL (DefaultBaseURL when
// empty; a trailing "/v1" is accepted and dropped) authenticated with
// apiKey, sent as the x-api-key header. An empty key sends none, for
// proxies that add their own.
func New(baseURL, apiKey string, opts ...Option) (*Provider, error) {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("anthropic: invalid base URL %q: want http(s)://host[/path]", redactURL(baseURL))
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	u.RawQuery, u.Fragment = "", ""

	p := &Provider{}
	for _, o := range opts {
		o(p)
	}
	if p.httpClient == nil {
		p.httpClient = defaultHTTPClient()
	}
	ro := []option.RequestOption{
		// Only what we are given: no ANTHROPIC_* variables, no profile files.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(u.String()),
		option.WithHTTPClient(p.httpClient),
		// Hearth retries in its own wrapper.
		option.WithMaxRetries(0),
	}
	if apiKey != "" {
		ro = append(ro, option.WithAPIKey(apiKey))
	}
	// What sdk.NewClient does with WithoutEnvironmentDefaults, for the
	// two services.
	ro = append([]option.RequestOption{option.WithEnvironmentProduction()}, ro...)
	p.messages = sdk.NewMessageService(ro...)
	p.models = sdk.NewModelService(ro...)
	return p, nil
}

// defaultHTTPClient is the SDK's own default: no overall timeout (streams
// may be long) but a bound on waiting for response headers.
func defaultHTTPClient() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t = t.Clone()
		t.ResponseHeaderTimeout = 10 * time.Minute
		return &http.Client{Transport: t}
	}
	return &http.Client{}
}

// redactURL drops user info from a URL for error messages.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return s
}

// Name is "anthropic".
func (p *Provider) Name() string { return providerName }

// Embed fails: Anthropic has no embeddings API.
func (p *Provider) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	return nil, &llm.Error{
		Provider: providerName,
		Kind:     llm.BadRequest,
		Message:  "Anthropic has no embeddings API; configure an embedder role with Ollama or an OpenAI-compatible provider",
	}
}

// Models lists the models the key may use (GET /v1/models). The context
// length is the reported max_input_tokens, or ClaudeContextLength for a
// claude-* model when the server does not report it, else 0.
func (p *Provider) Models(ctx context.Context) ([]llm.Model, error) {
	pager := p.models.ListAutoPaging(ctx, sdk.ModelListParams{Limit: sdk.Int(1000)})
	var models []llm.Model
	for pager.Next() {
		m := pager.Current()
		ctxLen := int(m.MaxInputTokens)
		if ctxLen <= 0 && strings.HasPrefix(m.ID, "claude") {
			ctxLen = ClaudeContextLength
		}
		models = append(models, llm.Model{Name: m.ID, ContextLength: ctxLen})
	}
	if err := pager.Err(); err != nil {
		return nil, convertError(ctx, err)
	}
	return models, nil
}

// Chat sends req as one streamed Messages call.
func (p *Provider) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	params, err := buildParams(req)
	if err != nil {
		return nil, err
	}
	stream := p.messages.NewStreaming(ctx, params)
	defer stream.Close()

	var (
		text     strings.Builder
		calls    []llm.ToolCall
		usage    sdk.Usage
		stop     string
		blocks   []*block // by content block index
		started  bool
		finished bool
	)
	emit := func(c llm.Chunk) error {
		if fn == nil {
			return nil
		}
		return fn(c)
	}
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			started = true
			usage = ev.Message.Usage
			if ev.Message.StopReason != "" {
				stop = string(ev.Message.StopReason)
			}
		case "content_block_start":
			if ev.Index != int64(len(blocks)) {
				return nil, malformed("content_block_start for block %d, expected %d", ev.Index, len(blocks))
			}
			b := &block{kind: ev.ContentBlock.Type, id: ev.ContentBlock.ID, name: ev.ContentBlock.Name}
			blocks = append(blocks, b)
			if b.kind == "text" && ev.ContentBlock.Text != "" {
				text.WriteString(ev.ContentBlock.Text)
				if err := emit(llm.Chunk{Content: ev.ContentBlock.Text}); err != nil {
					return nil, err
				}
			}
			if b.kind == "tool_use" {
				// The start event carries the input so far, normally {}.
				if raw := ev.ContentBlock.JSON.Input.Raw(); raw != "" && raw != "{}" && raw != "null" {
					b.input.WriteString(raw)
				}
			}
		case "content_block_delta":
			if ev.Index < 0 || ev.Index >= int64(len(blocks)) || blocks[ev.Index].stopped {
				return nil, malformed("content_block_delta for block %d, which is not open", ev.Index)
			}
			b := blocks[ev.Index]
			switch ev.Delta.Type {
			case "text_delta":
				if ev.Delta.Text == "" {
					continue
				}
				text.WriteString(ev.Delta.Text)
				if err := emit(llm.Chunk{Content: ev.Delta.Text}); err != nil {
					return nil, err
				}
			case "input_json_delta":
				if b.kind != "tool_use" {
					return nil, malformed("input_json_delta for a %q block", b.kind)
				}
				b.input.WriteString(ev.Delta.PartialJSON)
			}
		case "content_block_stop":
			if ev.Index < 0 || ev.Index >= int64(len(blocks)) || blocks[ev.Index].stopped {
				return nil, malformed("content_block_stop for block %d, which is not open", ev.Index)
			}
			b := blocks[ev.Index]
			b.stopped = true
			if b.kind != "tool_use" {
				continue
			}
			args := strings.TrimSpace(b.input.String())
			if args == "" {
				args = "{}"
			}
			if !json.Valid([]byte(args)) {
				return nil, malformed("tool call %s (%s) has invalid JSON arguments", b.name, b.id)
			}
			call := llm.ToolCall{ID: b.id, Name: b.name, Arguments: json.RawMessage(args)}
			calls = append(calls, call)
			c := call
			if err := emit(llm.Chunk{ToolCall: &c}); err != nil {
				return nil, err
			}
		case "message_delta":
			if ev.Delta.StopReason != "" {
				stop = string(ev.Delta.StopReason)
			}
			// message_delta usage counts are cumulative totals.
			u := ev.Usage
			usage.OutputTokens = u.OutputTokens
			if u.JSON.InputTokens.Valid() {
				usage.InputTokens = u.InputTokens
			}
			if u.JSON.CacheReadInputTokens.Valid() {
				usage.CacheReadInputTokens = u.CacheReadInputTokens
			}
			if u.JSON.CacheCreationInputTokens.Valid() {
				usage.CacheCreationInputTokens = u.CacheCreationInputTokens
			}
		case "message_stop":
			finished = true
		}
		if finished {
			break
		}
	}
	if err := stream.Err(); err != nil {
		return nil, convertError(ctx, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, llm.Classify(providerName, err)
	}
	if !started || !finished {
		return nil, malformed("stream ended before message_stop")
	}

	return &llm.Response{
		Message: llm.Message{Role: llm.Assistant, Content: text.String(), ToolCalls: calls},
		Usage: llm.Usage{
			// Anthropic's input_tokens leaves out the tokens read from and
			// written to the cache; Hearth's prompt count includes them.
			PromptTokens:     int(usage.InputTokens + usage.CacheReadInputTokens + usage.CacheCreationInputTokens),
			CompletionTokens: int(usage.OutputTokens),
			CachedTokens:     int(usage.CacheReadInputTokens),
		},
		StopReason: stop,
	}, nil
}

// block is a content block of the streamed message.
type block struct {
	kind     string
	id, name string
	input    strings.Builder
	stopped  bool
}

func malformed(format string, args ...any) *llm.Error {
	return &llm.Error{Provider: providerName, Kind: llm.Malformed, Message: fmt.Sprintf(format, args...)}
}

// schemaInstruction is appended to the system prompt when a Request has a
// Schema.
const schemaInstruction = "Respond with a single JSON value that matches this JSON Schema, and nothing else: no prose, no code fences.\n\nJSON Schema:\n"

// buildParams translates a Request into the Messages API's parameters.
func buildParams(req llm.Request) (sdk.MessageNewParams, error) {
	var params sdk.MessageNewParams
	if req.Model == "" {
		return params, &llm.Error{Provider: providerName, Kind: llm.BadRequest, Message: "no model given"}
	}
	params.Model = sdk.Model(req.Model)
	params.MaxTokens = int64(req.MaxTokens)
	if params.MaxTokens <= 0 {
		params.MaxTokens = DefaultMaxTokens
	}
	if req.Temperature != nil {
		params.Temperature = sdk.Float(*req.Temperature)
	}

	for i, m := range req.Messages {
		if err := m.CheckImages(); err != nil {
			return params, &llm.Error{Provider: providerName, Kind: llm.BadRequest, Message: fmt.Sprintf("message %d: %v", i, err)}
		}
		var blocks []sdk.ContentBlockParamUnion
		role := sdk.MessageParamRoleUser
		switch m.Role {
		case llm.System:
			if m.Content != "" {
				params.System = append(params.System, sdk.TextBlockParam{Text: m.Content})
			}
			if m.Cache && len(params.System) > 0 {
				params.System[len(params.System)-1].CacheControl = sdk.NewCacheControlEphemeralParam()
			}
			continue
		case llm.User, "":
			// Images first, then the text about them, as the API's
			// documentation advises.
			for _, im := range m.Images {
				blocks = append(blocks, sdk.NewImageBlockBase64(im.MIMEType, base64.StdEncoding.EncodeToString(im.Data)))
			}
			if m.Content != "" {
				blocks = append(blocks, sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: m.Content}})
			}
		case llm.Assistant:
			role = sdk.MessageParamRoleAssistant
			if m.Content != "" {
				blocks = append(blocks, sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: m.Content}})
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{
					ID:    tc.ID,
					Name:  tc.Name,
					Input: toolInput(tc.Arguments),
				}})
			}
		case llm.ToolRole:
			if m.ToolCallID == "" {
				return params, &llm.Error{Provider: providerName, Kind: llm.BadRequest, Message: "tool message without tool_call_id"}
			}
			tr := &sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID}
			if m.Content != "" {
				tr.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: m.Content}}}
			}
			blocks = append(blocks, sdk.ContentBlockParamUnion{OfToolResult: tr})
		default:
			return params, &llm.Error{Provider: providerName, Kind: llm.BadRequest, Message: fmt.Sprintf("unknown message role %q", m.Role)}
		}

		// Consecutive messages of one role (tool results, a user's words
		// after them) become one turn: the API wants turns to alternate.
		if len(blocks) > 0 {
			if n := len(params.Messages); n > 0 && params.Messages[n-1].Role == role {
				params.Messages[n-1].Content = append(params.Messages[n-1].Content, blocks...)
			} else {
				params.Messages = append(params.Messages, sdk.MessageParam{Role: role, Content: blocks})
			}
		}
		if m.Cache && len(params.Messages) > 0 {
			last := params.Messages[len(params.Messages)-1].Content
			setCache(&last[len(last)-1])
		}
	}

	if len(req.Schema) > 0 {
		params.System = append(params.System, sdk.TextBlockParam{Text: schemaInstruction + string(req.Schema)})
	}

	for _, t := range req.Tools {
		schema, err := inputSchema(t.Parameters)
		if err != nil {
			return params, &llm.Error{Provider: providerName, Kind: llm.BadRequest, Message: fmt.Sprintf("tool %s: %v", t.Name, err)}
		}
		tp := &sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: tp})
	}
	return params, nil
}

// setCache marks a block as the end of the cached prefix.
func setCache(b *sdk.ContentBlockParamUnion) {
	cc := sdk.NewCacheControlEphemeralParam()
	switch {
	case b.OfText != nil:
		b.OfText.CacheControl = cc
	case b.OfToolUse != nil:
		b.OfToolUse.CacheControl = cc
	case b.OfToolResult != nil:
		b.OfToolResult.CacheControl = cc
	case b.OfImage != nil:
		b.OfImage.CacheControl = cc
	}
}

// toolInput is a tool call's arguments as a tool_use input. The API wants
// an object; arguments that are not one (a model's broken JSON from an
// earlier turn, perhaps from another provider) are sent as {} rather than
// failing every later call of the conversation.
func toolInput(args json.RawMessage) any {
	var obj map[string]json.RawMessage
	if len(args) == 0 || json.Unmarshal(args, &obj) != nil || obj == nil {
		return map[string]any{}
	}
	return json.RawMessage(args)
}

// inputSchema turns a tool's JSON Schema into the SDK's input_schema,
// which has properties and required as fields and the rest as extras.
func inputSchema(raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	var s sdk.ToolInputSchemaParam
	if len(raw) == 0 || string(raw) == "null" {
		s.Properties = map[string]any{}
		return s, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return s, fmt.Errorf("parameters are not a JSON Schema object: %w", err)
	}
	if t, ok := m["type"]; ok {
		var typ string
		if json.Unmarshal(t, &typ) != nil || typ != "object" {
			return s, errors.New(`parameters must be a schema of "type": "object"`)
		}
	}
	delete(m, "type")
	if p, ok := m["properties"]; ok {
		s.Properties = p
		delete(m, "properties")
	} else {
		s.Properties = map[string]any{}
	}
	if r, ok := m["required"]; ok {
		if err := json.Unmarshal(r, &s.Required); err != nil {
			return s, fmt.Errorf("required: %w", err)
		}
		delete(m, "required")
	}
	if len(m) > 0 {
		s.ExtraFields = make(map[string]any, len(m))
		for k, v := range m {
			s.ExtraFields[k] = v
		}
	}
	return s, nil
}

// convertError turns an SDK or transport error into an *llm.Error.
func convertError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		// A cancelled or timed-out call, whatever the read failure says.
		return llm.Classify(providerName, ctx.Err())
	}
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		if strings.HasPrefix(err.Error(), "received error while streaming") {
			return &llm.Error{Provider: providerName, Kind: llm.Overloaded, Message: err.Error(), Err: err}
		}
		return llm.Classify(providerName, err)
	}
	typ, msg := errorBody(apiErr)
	status := apiErr.StatusCode
	if status < 400 {
		// An error event inside a 200 stream: the status says nothing,
		// the error's type says what went wrong.
		e := &llm.Error{Provider: providerName, Kind: kindOfType(typ), Message: msg, Err: apiErr}
		if e.Message == "" {
			e.Message = "error event in stream: " + apiErr.RawJSON()
		}
		return e
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	if typ != "" {
		msg = typ + ": " + msg
	}
	e := llm.StatusError(providerName, status, msg, apiErr)
	if apiErr.Response != nil {
		e.RetryAfter = retryAfter(apiErr.Response.Header)
	}
	return e
}

// errorBody reads the type and message of {"type":"error","error":{...}}.
func errorBody(e *sdk.Error) (typ, msg string) {
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(e.RawJSON()), &body) == nil {
		typ, msg = body.Error.Type, body.Error.Message
	}
	if typ == "" {
		typ = string(e.Type())
	}
	return typ, msg
}

// kindOfType maps an Anthropic error type to an error kind.
func kindOfType(typ string) llm.ErrorKind {
	switch shared.ErrorType(typ) {
	case shared.ErrorTypeRateLimitError:
		return llm.RateLimited
	case shared.ErrorTypeAuthenticationError, shared.ErrorTypePermissionError, shared.ErrorTypeBillingError:
		return llm.Auth
	case shared.ErrorTypeInvalidRequestError, shared.ErrorTypeNotFoundError:
		return llm.BadRequest
	case shared.ErrorTypeTimeoutError:
		return llm.Timeout
	}
	// overloaded_error, api_error and anything new: the server's trouble.
	return llm.Overloaded
}

// retryAfter reads retry-after-ms or retry-after (seconds or an HTTP date).
func retryAfter(h http.Header) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}
