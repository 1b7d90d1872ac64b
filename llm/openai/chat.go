package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go"
	"github.com/openai/openai-go/option"
	"github.com/openai/openai-go/packages/param"
	"github.com/openai/openai-go/shared"

	"github.com/hearth-rpg/hearth/llm"
)

// Chat sends req as a streaming Chat Completions call. Text reaches fn as
// it arrives; each tool call reaches fn once whole, when the model
// finishes (or the stream ends). An error from fn stops the call and is
// returned as it is.
func (p *Provider) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	if fn == nil {
		fn = func(llm.Chunk) error { return nil }
	}

	// The SDK sends the request; the stream is decoded here. The SDK's
	// own decoder (reflection over its generated types for every chunk)
	// was half of the CPU a streamed token cost the whole server with
	// 1,000 chats streaming (server's BenchmarkStreaming1000).
	var raw *http.Response
	_, err = p.chat.New(ctx, params, option.WithJSONSet("stream", true), option.WithResponseBodyInto(&raw))
	if raw != nil && raw.Body != nil {
		defer raw.Body.Close()
	}
	var (
		content strings.Builder
		calls   toolCalls
		resp    = &llm.Response{Message: llm.Message{Role: llm.Assistant}}
		events  int
	)
	var stream *eventReader
	if err == nil {
		stream = newEvents(raw.Body)
	}
	for err == nil {
		data, ok := stream.next()
		if !ok {
			err = stream.err
			break
		}
		events++
		if raw := bytes.TrimSpace(data); len(raw) == 0 || raw[0] != '{' {
			return nil, p.malformed("stream event is not a JSON object: %.100s", raw)
		}
		var chunk streamChunk
		if err = json.Unmarshal(data, &chunk); err != nil {
			break
		}
		if len(chunk.Error) > 0 {
			err = fmt.Errorf("received error while streaming: %s", chunk.Error)
			break
		}
		if chunk.Usage != nil {
			// The last usage wins: vLLM can send running totals on every
			// chunk, OpenAI sends one at the end.
			resp.Usage = llm.Usage{
				PromptTokens:     int(chunk.Usage.PromptTokens),
				CompletionTokens: int(chunk.Usage.CompletionTokens),
				CachedTokens:     int(chunk.Usage.PromptTokensDetails.CachedTokens),
			}
		}
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue // only one choice is asked for
			}
			d := choice.Delta
			// A refusal is what the model says instead of an answer.
			for _, text := range []string{d.Content, d.Refusal} {
				if text == "" {
					continue
				}
				content.WriteString(text)
				if err := fn(llm.Chunk{Content: text}); err != nil {
					return nil, err
				}
			}
			for _, tc := range d.ToolCalls {
				calls.add(tc)
			}
			if choice.FinishReason != "" {
				resp.StopReason = choice.FinishReason
				// The arguments are whole: hand the calls over now
				// rather than after the usage chunk.
				if err := calls.emit(fn); err != nil {
					return nil, err
				}
			}
		}
	}
	// Cancellation comes back as it is, a passed deadline as Timeout.
	if err := ctx.Err(); err != nil {
		return nil, p.fail(err)
	}
	if err != nil {
		return nil, p.fail(err)
	}
	if events == 0 {
		return nil, p.malformed("the server sent no stream events")
	}
	if err := calls.emit(fn); err != nil {
		return nil, err
	}
	resp.Message.Content = content.String()
	resp.Message.ToolCalls = calls.list()
	return resp, nil
}

// params builds the SDK request for req.
func (p *Provider) params(req llm.Request) (sdk.ChatCompletionNewParams, error) {
	params := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	if req.Temperature != nil {
		params.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		params.MaxTokens = param.NewOpt(int64(req.MaxTokens))
	}
	for i, m := range req.Messages {
		msg, err := message(m)
		if err != nil {
			return params, p.badRequest("message %d: %w", i, err)
		}
		params.Messages = append(params.Messages, msg)
	}
	for _, t := range req.Tools {
		schema, err := toolSchema(t.Parameters)
		if err != nil {
			return params, p.badRequest("tool %q: %w", t.Name, err)
		}
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			fd.Description = param.NewOpt(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ChatCompletionToolParam{Function: fd})
	}
	if len(req.Schema) > 0 {
		if !json.Valid(req.Schema) {
			return params, p.badRequest("output schema is not valid JSON")
		}
		params.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name: "output",
					// Raw, so that the order of properties (which the
					// model writes in) is kept.
					Schema: req.Schema,
					Strict: param.NewOpt(false),
				},
			},
		}
	}
	return params, nil
}

// message converts one message.
func message(m llm.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	if err := m.CheckImages(); err != nil {
		return sdk.ChatCompletionMessageParamUnion{}, err
	}
	switch m.Role {
	case llm.System:
		return sdk.SystemMessage(m.Content), nil
	case llm.User:
		if len(m.Images) == 0 {
			return sdk.UserMessage(m.Content), nil
		}
		// Images go as content parts beside the text, each a data: URL.
		var parts []sdk.ChatCompletionContentPartUnionParam
		if m.Content != "" {
			parts = append(parts, sdk.TextContentPart(m.Content))
		}
		for _, im := range m.Images {
			parts = append(parts, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: im.DataURL()}))
		}
		return sdk.UserMessage(parts), nil
	case llm.ToolRole:
		if m.ToolCallID == "" {
			return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("tool message without tool_call_id")
		}
		return sdk.ToolMessage(m.Content, m.ToolCallID), nil
	case llm.Assistant:
		var a sdk.ChatCompletionAssistantMessageParam
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = param.NewOpt(m.Content)
		}
		for _, tc := range m.ToolCalls {
			args := string(tc.Arguments)
			if args == "" {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallParam{
				ID:       tc.ID,
				Function: sdk.ChatCompletionMessageToolCallFunctionParam{Name: tc.Name, Arguments: args},
			})
		}
		return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	}
	return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
}

// toolSchema converts a tool's JSON Schema to the SDK's map. Values stay
// raw JSON so that nested objects keep their order of properties.
func toolSchema(raw json.RawMessage) (shared.FunctionParameters, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return shared.FunctionParameters{"type": "object", "properties": map[string]any{}}, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("parameters are not a JSON object: %w", err)
	}
	schema := make(shared.FunctionParameters, len(fields))
	for k, v := range fields {
		schema[k] = v
	}
	return schema, nil
}

// badRequest is the error for a request this provider cannot send.
func (p *Provider) badRequest(format string, args ...any) error {
	return &llm.Error{Provider: p.name, Kind: llm.BadRequest, Err: fmt.Errorf(format, args...)}
}

// toolCalls assembles tool calls streamed in pieces. Pieces name their
// call by index; a piece with a new id at a used index starts another call
// (some servers number every call 0).
type toolCalls struct {
	calls []*toolCall
	byIdx map[int64]int // index → position in calls
}

type toolCall struct {
	id, name string
	args     strings.Builder
	emitted  bool
}

func (t *toolCalls) add(d deltaToolCall) {
	if t.byIdx == nil {
		t.byIdx = map[int64]int{}
	}
	pos, ok := t.byIdx[d.Index]
	if ok && d.ID != "" && t.calls[pos].id != "" && t.calls[pos].id != d.ID {
		ok = false
	}
	if !ok {
		pos = len(t.calls)
		t.calls = append(t.calls, &toolCall{})
		t.byIdx[d.Index] = pos
	}
	c := t.calls[pos]
	if d.ID != "" {
		c.id = d.ID
	}
	c.name += d.Function.Name
	c.args.WriteString(d.Function.Arguments)
}

// emit hands fn each call not yet handed over.
func (t *toolCalls) emit(fn func(llm.Chunk) error) error {
	for i, c := range t.calls {
		if c.emitted {
			continue
		}
		c.emitted = true
		tc := c.toolCall(i)
		if err := fn(llm.Chunk{ToolCall: &tc}); err != nil {
			return err
		}
	}
	return nil
}

func (t *toolCalls) list() []llm.ToolCall {
	if len(t.calls) == 0 {
		return nil
	}
	out := make([]llm.ToolCall, len(t.calls))
	for i, c := range t.calls {
		out[i] = c.toolCall(i)
	}
	return out
}

// toolCall is the finished call, the pos-th of the reply. Arguments that
// are not valid JSON are kept as a JSON string (llm.Arguments), so that
// the caller can say what was wrong; no arguments at all become {}. A call
// the server gave no id (older llama.cpp) gets one, since the tool's
// answer must name it.
func (c *toolCall) toolCall(pos int) llm.ToolCall {
	args := strings.TrimSpace(c.args.String())
	if args == "" {
		args = "{}"
	}
	id := c.id
	if id == "" {
		id = fmt.Sprintf("call_%d", pos)
	}
	return llm.ToolCall{ID: id, Name: c.name, Arguments: llm.Arguments(args)}
}
