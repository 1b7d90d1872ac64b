package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// streamChunk is the part of a chat.completion.chunk Hearth reads.
type streamChunk struct {
	Choices []chunkChoice `json:"choices"`
	Usage   *chunkUsage   `json:"usage"`
	// Error is set when the server reports a failure inside the stream.
	Error json.RawMessage `json:"error"`
}

// chunkUsage is a chunk's token counts.
type chunkUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// reset empties c for the next chunk of a stream, keeping the array its
// choices were decoded into (cleared, so that it keeps no earlier text
// alive).
func (c *streamChunk) reset() {
	choices := c.Choices[:cap(c.Choices)]
	clear(choices)
	*c = streamChunk{Choices: choices[:0]}
}

// chunkChoice is one choice of a chunk.
type chunkChoice struct {
	Index int64 `json:"index"`
	Delta struct {
		Content   string          `json:"content"`
		Refusal   string          `json:"refusal"`
		ToolCalls []deltaToolCall `json:"tool_calls"`
	} `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

// deltaToolCall is a piece of a streamed tool call.
type deltaToolCall struct {
	Index    int64  `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// maxEventBytes bounds one server-sent event, as the SDK's decoder did.
const maxEventBytes = bufio.MaxScanTokenSize << 9

// eventReader reads the data of server-sent events: data lines joined by
// newlines, an event ending at an empty line. Comments, other fields and
// events without data are skipped; "[DONE]" ends the stream.
type eventReader struct {
	sc   *bufio.Scanner
	data []byte
	err  error
}

func newEvents(r io.Reader) *eventReader {
	sc := bufio.NewScanner(r)
	// A text chunk's line is about 200 bytes: the buffer starts small
	// (it is held by every live stream) and grows for longer events.
	sc.Buffer(make([]byte, 0, 512), maxEventBytes)
	return &eventReader{sc: sc}
}

// next returns the next event's data, valid until the next call; false
// at the end of the stream or on an error (in err).
func (e *eventReader) next() ([]byte, bool) {
	e.data = e.data[:0]
	have := false
	for e.sc.Scan() {
		line := e.sc.Bytes()
		if len(line) == 0 {
			if !have {
				continue
			}
			if bytes.HasPrefix(e.data, []byte("[DONE]")) {
				return nil, false
			}
			return e.data, true
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		if string(name) != "data" {
			continue // a comment, or event:, id:, retry:
		}
		if have {
			e.data = append(e.data, '\n')
		}
		e.data, have = append(e.data, value...), true
	}
	e.err = e.sc.Err()
	if have && e.err == nil && !bytes.HasPrefix(e.data, []byte("[DONE]")) {
		return e.data, true // the last event, without its empty line
	}
	return nil, false
}
