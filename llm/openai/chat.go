package openai

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/hearth-rpg/hearth/llm"
)

// Chat sends req as a streaming Chat Completions call. Text reaches fn as
// it arrives; each tool call reaches fn once whole, when the model
// finishes (or the stream ends). An error from fn stops the call and is
// returned as it is.
func (p *Provider) Chat(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (*llm.Response, error) {
	if fn == nil {
		fn = func(llm.Chunk) error { return nil }
	}
	s := p.send(ctx, req)
	if s.encode != nil {
		return nil, s.encode
	}
	raw, err := s.raw, s.err
	if raw != nil && raw.Body != nil {
		defer raw.Body.Close()
	}
	var (
		content streamText // the answer; tokens are views of it
		calls   toolCalls
		resp    = &llm.Response{Message: llm.Message{Role: llm.Assistant}}
		events  int
	)
	var stream *eventReader
	// One chunk value serves the whole stream, so that a token's chunk
	// does not allocate its choices anew.
	var chunk streamChunk
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
		chunk.reset()
		var inText bool
		if inText, err = decodeChunkText(data, &chunk, &content); err != nil {
			break
		}
		if inText && (len(chunk.Choices) != 1 || chunk.Choices[0].Index != 0) {
			// Only the first choice is the answer: take back what the
			// others appended (nothing was handed out yet).
			mark := len(content.b)
			for i := range chunk.Choices {
				ch := &chunk.Choices[i]
				mark -= len(ch.Delta.Content)
				ch.Delta.Content = strings.Clone(ch.Delta.Content)
			}
			content.b, inText = content.b[:mark], false
		}
		// "error": null is no error (encoding/json keeps the raw null).
		if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
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
			if d.Content != "" {
				if !inText {
					d.Content = content.addString(d.Content)
				}
				if err := fn(llm.Chunk{Content: d.Content, Streamed: content.String()}); err != nil {
					return nil, err
				}
			}
			// A refusal is what the model says instead of an answer.
			if d.Refusal != "" {
				content.addString(d.Refusal)
				if err := fn(llm.Chunk{Content: d.Refusal, Streamed: content.String()}); err != nil {
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

// sent is what send hands back.
type sent struct {
	encode error // req could not be encoded; returned as it is
	raw    *http.Response
	err    error
}

// send encodes req and sends it, returning once the response's headers
// are in. It runs on the caller's goroutine: hearth's server runs a
// streamed chat on its HTTP handler's goroutine, whose stack has grown
// already (the request's JSON), and with the encoding and the SDK's send
// on it a streaming chat held no more stack (server's
// BenchmarkStreamingMemory) than with them on a goroutine of their own,
// which cost a goroutine, its stack's growth and a hand-off a request.
//
// The SDK sends the request (headers, middleware, errors), with the body
// encoded here; the stream is decoded here. The SDK's own decoder
// (reflection over its generated types for every chunk) was half of the
// CPU a streamed token cost the whole server with 1,000 chats streaming
// (server's BenchmarkStreaming1000).
func (p *Provider) send(ctx context.Context, req llm.Request) sent {
	var s sent
	if body, err := p.requestBody(req); err != nil {
		s.encode = err
	} else {
		s.err = p.post(ctx, "chat/completions", body, &s.raw)
	}
	return s
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
