package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go"
	"github.com/openai/openai-go/option"
	"github.com/openai/openai-go/packages/param"
	"github.com/openai/openai-go/shared"

	"github.com/hearth-rpg/hearth/llm"
)

// sdkParams builds the SDK request for req, as the provider did before
// it encoded requests itself: the reference its encoding is held to.
func (p *Provider) sdkParams(req llm.Request) (sdk.ChatCompletionNewParams, error) {
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
		msg, err := sdkMessage(m)
		if err != nil {
			return params, p.badRequest("message %d: %w", i, err)
		}
		params.Messages = append(params.Messages, msg)
	}
	for _, t := range req.Tools {
		schema, err := sdkToolSchema(t.Parameters)
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

// sdkMessage converts one message.
func sdkMessage(m llm.Message) (sdk.ChatCompletionMessageParamUnion, error) {
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

// sdkToolSchema converts a tool's JSON Schema to the SDK's map.
func sdkToolSchema(raw json.RawMessage) (shared.FunctionParameters, error) {
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

// wireRequests are requests covering every part of the encoding.
func wireRequests() map[string]llm.Request {
	temp, zero := 0.7, 0.0
	dice := llm.Tool{Name: "dice_roll", Description: "Roll dice <2d6> & more",
		Parameters: json.RawMessage(`{"type": "object", "properties": {"formula": {"type": "string", "description": "e.g. 2d6+1"}, "advantage": {"type": "boolean"}}, "required": ["formula"], "additionalProperties": false}`)}
	bare := llm.Tool{Name: "ping"}
	null := llm.Tool{Name: "pong", Parameters: json.RawMessage(" null ")}
	return map[string]llm.Request{
		"minimal":          {Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hello"}}},
		"no model":         {Messages: []llm.Message{{Role: llm.User, Content: "hello"}}},
		"options":          {Model: "gpt-4o", Temperature: &temp, MaxTokens: 512, Messages: []llm.Message{{Role: llm.User, Content: "x"}}},
		"zero temperature": {Model: "m", Temperature: &zero, Messages: []llm.Message{{Role: llm.User, Content: "x"}}},
		"conversation": {Model: "m", Tools: []llm.Tool{dice, bare, null}, Messages: []llm.Message{
			{Role: llm.System, Content: "You are the GM.\nBe brief; quote <rules> & \"tables\" \u00e9\U0001F3B2 \u2028."},
			{Role: llm.System, Content: ""},
			{Role: llm.User, Content: "roll for me"},
			{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "dice_roll", Arguments: json.RawMessage(`{"formula": "2d6"}`)}, {ID: "c2", Name: "ping"}}},
			{Role: llm.ToolRole, ToolCallID: "c1", Content: `{"total":7}`},
			{Role: llm.ToolRole, ToolCallID: "c2", Content: ""},
			{Role: llm.Assistant, Content: "You rolled 7.", ToolCalls: []llm.ToolCall{{ID: "c3", Name: "dice_roll", Arguments: json.RawMessage(`{}`)}}},
			{Role: llm.Assistant, Content: ""},
			{Role: llm.User, Content: "bad \xff utf-8"},
		}},
		"images": {Model: "m", Messages: []llm.Message{
			{Role: llm.User, Content: "what is this?", Images: []llm.Image{{MIMEType: "image/png", Data: []byte("\x89PNG")}, {MIMEType: "image/jpeg", Data: []byte{0xff, 0xd8}}}},
			{Role: llm.User, Images: []llm.Image{{MIMEType: "image/webp", Data: []byte("RIFF")}}},
		}},
		"schema": {Model: "m", Schema: json.RawMessage(`{"type": "object", "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer"}}}`), Messages: []llm.Message{{Role: llm.User, Content: "json"}}},
	}
}

// The body the provider sends is byte for byte the one the SDK sent for
// the same request (its ChatCompletionNewParams with "stream" set, the
// way the provider called it before), as both reach a server.
func TestRequestIsWhatTheSDKSent(t *testing.T) {
	bodies := make(chan []byte, 1)
	headers := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		headers <- r.Header.Clone()
		bodies <- fmt.Appendf(nil, "%s %s\n%s", r.Method, r.URL, b)
		s := startSSE(w)
		s.send(chunk(`{"content":"ok"}`, "stop"))
		s.done()
	}))
	defer srv.Close()
	p, err := New(srv.URL+"/v1", testKey)
	if err != nil {
		t.Fatal(err)
	}
	for name, req := range wireRequests() {
		t.Run(name, func(t *testing.T) {
			params, err := p.sdkParams(req)
			if err != nil {
				t.Fatal(err)
			}
			var raw *http.Response
			chat := sdk.NewChatCompletionService(p.opts...)
			if _, err := chat.New(context.Background(), params, option.WithJSONSet("stream", true), option.WithResponseBodyInto(&raw)); err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, raw.Body)
			raw.Body.Close()
			want, wantHeader := <-bodies, <-headers
			if _, err := p.Chat(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			got, gotHeader := <-bodies, <-headers
			if !bytes.Equal(got, want) {
				t.Errorf("the provider sent\n%s\nthe SDK sent\n%s", got, want)
			}
			if !reflect.DeepEqual(gotHeader, wantHeader) {
				t.Errorf("the provider's headers\n%v\nthe SDK's\n%v", gotHeader, wantHeader)
			}
			// And again, with the tools from the cache.
			if _, err := p.Chat(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			<-headers
			if again := <-bodies; !bytes.Equal(again, want) {
				t.Errorf("the second time the provider sent\n%s\nthe SDK sent\n%s", again, want)
			}
		})
	}
}

// Requests the SDK refused, or the provider did, are refused the same way.
func TestRequestRefusedAsBefore(t *testing.T) {
	p := &Provider{name: "openai"}
	for name, req := range map[string]llm.Request{
		"unknown role":      {Messages: []llm.Message{{Role: "narrator", Content: "x"}}},
		"tool without id":   {Messages: []llm.Message{{Role: llm.ToolRole, Content: "x"}}},
		"image on system":   {Messages: []llm.Message{{Role: llm.System, Images: []llm.Image{{MIMEType: "image/png", Data: []byte("x")}}}}},
		"schema not JSON":   {Messages: []llm.Message{{Role: llm.User, Content: "x"}}, Schema: json.RawMessage(`{`)},
		"parameters array":  {Messages: []llm.Message{{Role: llm.User, Content: "x"}}, Tools: []llm.Tool{{Name: "t", Parameters: json.RawMessage(`[1]`)}}},
		"parameters broken": {Messages: []llm.Message{{Role: llm.User, Content: "x"}}, Tools: []llm.Tool{{Name: "t", Parameters: json.RawMessage(`{"a":`)}}},
	} {
		_, sdkErr := p.sdkParams(req)
		_, err := p.requestBody(req)
		if sdkErr == nil || err == nil {
			t.Errorf("%s: the SDK's encoding said %v, the provider's %v; want both refused", name, sdkErr, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), strings.SplitN(sdkErr.Error(), ":", 3)[0]) {
			t.Errorf("%s: %q, the SDK's encoding said %q", name, err, sdkErr)
		}
		var le *llm.Error
		if !errors.As(err, &le) || le.Kind != llm.BadRequest {
			t.Errorf("%s: %v is not a bad request", name, err)
		}
	}
}

// FuzzRequestIsWhatTheSDKSent holds the encoding to the SDK's on any
// text, arguments and schema.
func FuzzRequestIsWhatTheSDKSent(f *testing.F) {
	f.Add("hello <b> & \u2028", "roll", []byte(`{"type":"object","properties":{"b":{},"a":{}}}`), []byte(`{"formula": "2d6"}`), []byte(`{"type":"object"}`))
	f.Add("\xff\xfe", "", []byte(" null "), []byte(""), []byte(""))
	f.Fuzz(func(t *testing.T, text, desc string, params, args, schema []byte) {
		p := &Provider{name: "openai"}
		req := llm.Request{Model: text, Tools: []llm.Tool{{Name: desc, Description: desc, Parameters: params}}, Schema: schema,
			Messages: []llm.Message{{Role: llm.System, Content: text}, {Role: llm.User, Content: text},
				{Role: llm.Assistant, Content: text, ToolCalls: []llm.ToolCall{{ID: text, Name: desc, Arguments: args}}},
				{Role: llm.ToolRole, ToolCallID: "c", Content: text}}}
		params2, sdkErr := p.sdkParams(req)
		got, err := p.requestBody(req)
		if (sdkErr == nil) != (err == nil) {
			t.Fatalf("the SDK's encoding said %v, the provider's %v", sdkErr, err)
		}
		if err != nil {
			return
		}
		want, err := json.Marshal(params2)
		if err != nil {
			return // the SDK could not send it either (raw JSON it rejects)
		}
		want = append(want[:len(want)-1], `,"stream":true}`...)
		if !bytes.Equal(got, want) {
			t.Fatalf("the provider encodes\n%s\nthe SDK\n%s", got, want)
		}
	})
}

// BenchmarkRequestEncoding encodes one chat's request (a 4 KB system
// prompt, a short conversation, three tools) the SDK's way and the
// provider's.
func BenchmarkRequestEncoding(b *testing.B) {
	req := wireRequests()["conversation"]
	req.Messages = append([]llm.Message{{Role: llm.System, Content: strings.Repeat("You are the game master; answer in the table's language. ", 70)}}, req.Messages...)
	p := &Provider{name: "openai"}
	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			params, err := p.sdkParams(req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(params); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("provider", func(b *testing.B) {
		for b.Loop() {
			if _, err := p.requestBody(req); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A tool keeps its name while its description or schema changes (a
// skill updated, a tool list rebuilt): the request carries the new one.
func TestToolCacheFollowsChanges(t *testing.T) {
	p := &Provider{name: "openai"}
	for _, tool := range []llm.Tool{
		{Name: "roll", Description: "Roll dice", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{}}}`)},
		{Name: "roll", Description: "Roll dice", Parameters: json.RawMessage(`{"type":"object","properties":{"b":{}}}`)},
		{Name: "roll", Description: "Roll the dice", Parameters: json.RawMessage(`{"type":"object","properties":{"b":{}}}`)},
		{Name: "roll", Description: "Roll dice", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{}}}`)},
	} {
		req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "x"}}, Tools: []llm.Tool{tool}}
		params, err := p.sdkParams(req)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(params)
		want = append(want[:len(want)-1], `,"stream":true}`...)
		got, err := p.requestBody(req)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("after a change the provider sent\n%s\nthe SDK\n%s", got, want)
		}
	}
}
