package streambench

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// Model is a model server speaking OpenAI's chat-completions wire format
// (server-sent chunks, then usage, then [DONE]), streaming tokens at a
// fixed rate per stream. Each token's text is "t<unix nanoseconds>" of
// the moment it was written, so a client reading the stream through a
// server can tell how long the token took to reach it.
type Model struct {
	tokens  atomic.Int64 // tokens per answer
	every   atomic.Int64 // nanoseconds between tokens
	written atomic.Int64 // tokens written, all streams
}

// NewModel is a Model answering with tokens tokens, every apart.
func NewModel(tokens int, every time.Duration) *Model {
	m := &Model{}
	m.Set(tokens, every)
	return m
}

// Set changes the answers to come.
func (m *Model) Set(tokens int, every time.Duration) {
	m.tokens.Store(int64(tokens))
	m.every.Store(int64(every))
}

// Written is how many tokens the model has written, all streams.
func (m *Model) Written() int64 { return m.written.Load() }

const (
	chunkHead = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"fake","choices":[{"index":0,"delta":{"content":"t`
	chunkTail = ` "},"finish_reason":null}]}` + "\n\n"
)

func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	tokens, every := int(m.tokens.Load()), time.Duration(m.every.Load())
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	tick := time.NewTicker(every)
	defer tick.Stop()
	buf := make([]byte, 0, 256)
	for i := range tokens {
		if i > 0 {
			select {
			case <-tick.C:
			case <-r.Context().Done():
				return
			}
		}
		buf = append(strconv.AppendInt(append(buf[:0], chunkHead...), time.Now().UnixNano(), 10), chunkTail...)
		if _, err := w.Write(buf); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
		m.written.Add(1)
	}
	fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"fake","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
	fmt.Fprintf(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"fake","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", tokens, tokens+100)
	fmt.Fprint(w, "data: [DONE]\n\n")
	rc.Flush()
}
