package streambench

import (
	"container/heap"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Model is a model server speaking OpenAI's chat-completions wire format
// (server-sent chunks, then usage, then [DONE]), streaming tokens at a
// fixed rate per stream. Each token's text is "t<unix nanoseconds>" of
// the moment it was written, so a client reading the stream through a
// server can tell how long the token took to reach it.
//
// POST /api/chat streams the same tokens as hearth's chat events, with no
// server in between: what the clients measure there is the harness's own
// floor (its scheduler, the loopback and the clients), the baseline for
// the time a server adds.
//
// One scheduler goroutine writes every stream's tokens after the first,
// each when it is due: no timer, channel or goroutine wake-up per stream
// per token, so the harness's own CPU, which shares the cores with the
// server under test, stays small. Each token is still one write and one
// flush.
type Model struct {
	tokens  atomic.Int64 // tokens per answer
	every   atomic.Int64 // nanoseconds between tokens
	written atomic.Int64 // tokens written, all streams

	mu      sync.Mutex
	due     streams       // the live streams, soonest next token first
	running bool          // the scheduler goroutine is running
	wake    chan struct{} // a stream became the soonest
	buf     []byte        // the token being written
}

// batchSlack is how early the scheduler may write a token due soon after
// the one it woke for, so that one wake-up serves several streams. It is
// 0: at 200 µs the arrivals were burstier and the token lag's p50 rose by
// about 0.05 ms (for hearth and the proxy alike) for no CPU measurably
// saved. Tokens that fell due while the scheduler was writing still go
// out in the same pass.
const batchSlack = 0

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
	stopChunk = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"fake","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	usageHead = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"fake","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":`
	doneChunk = "data: [DONE]\n\n"
)

// The same as hearth's chat events, for POST /api/chat.
const (
	eventHead = `data: {"type":"content","text":"t`
	eventTail = ` "}` + "\n\n"
	eventDone = `data: {"type":"done"}` + "\n\n"
)

// appendToken appends a content chunk stamped now, as hearth's event when
// direct.
func appendToken(b []byte, direct bool) []byte {
	if direct {
		b = append(b, eventHead...)
		b = strconv.AppendInt(b, time.Now().UnixNano(), 10)
		return append(b, eventTail...)
	}
	b = append(b, chunkHead...)
	b = strconv.AppendInt(b, time.Now().UnixNano(), 10)
	return append(b, chunkTail...)
}

// appendEnd appends the chunks that end an answer of n tokens: the
// finish reason, the usage and [DONE].
func appendEnd(b []byte, n int) []byte {
	b = append(b, stopChunk...)
	b = append(b, usageHead...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(n+100), 10)
	b = append(b, "}}\n\n"...)
	return append(b, doneChunk...)
}

// stream is one answer being written by the scheduler.
type stream struct {
	w      io.Writer
	rc     *http.ResponseController
	next   time.Time // when its next token is due
	left   int       // tokens still to write
	done   chan error
	i      int  // index in Model.due, -1 once out of it
	direct bool // hearth's events, not OpenAI's chunks
}

func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	direct := r.URL.Path == "/api/chat"
	if r.URL.Path != "/v1/chat/completions" && !direct {
		http.NotFound(w, r)
		return
	}
	tokens, every := int(m.tokens.Load()), time.Duration(m.every.Load())
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	start := time.Now()
	// The first token at once, from the handler.
	buf := appendToken(make([]byte, 0, 512), direct)
	if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
		return
	}
	m.written.Add(1)
	if tokens > 1 {
		s := &stream{w: w, rc: rc, next: start.Add(every), left: tokens - 1, done: make(chan error, 1), direct: direct}
		m.add(s)
		select {
		case err := <-s.done:
			if err != nil {
				return
			}
		case <-r.Context().Done():
			m.remove(s)
			return
		}
	}
	if direct {
		io.WriteString(w, eventDone)
	} else {
		w.Write(appendEnd(buf[:0], tokens))
	}
	rc.Flush()
}

// add hands s to the scheduler, starting it if it is not running.
func (m *Model) add(s *stream) {
	m.mu.Lock()
	defer m.mu.Unlock()
	heap.Push(&m.due, s)
	if !m.running {
		m.running = true
		if m.wake == nil {
			m.wake = make(chan struct{}, 1)
		}
		go m.schedule()
	} else if s.i == 0 {
		select {
		case m.wake <- struct{}{}:
		default:
		}
	}
}

// remove takes s from the scheduler; once it returns, nothing more is
// written to s (the scheduler writes under m.mu).
func (m *Model) remove(s *stream) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.i >= 0 {
		heap.Remove(&m.due, s.i)
	}
}

// schedule writes each stream's tokens when they are due, until no
// stream is left. A stream whose write fails is dropped and its handler
// told. Writes to loopback sockets of a few KB an answer do not block.
func (m *Model) schedule() {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		m.mu.Lock()
		if len(m.due) == 0 {
			m.running = false
			m.mu.Unlock()
			return
		}
		now := time.Now()
		if wait := m.due[0].next.Sub(now); wait > batchSlack {
			m.mu.Unlock()
			t.Reset(wait)
			select {
			case <-t.C:
			case <-m.wake:
				t.Stop()
			}
			continue
		}
		for len(m.due) > 0 && m.due[0].next.Sub(now) <= batchSlack {
			s := m.due[0]
			m.buf = appendToken(m.buf[:0], s.direct)
			_, err := s.w.Write(m.buf)
			if err == nil {
				err = s.rc.Flush()
			}
			if err == nil {
				m.written.Add(1)
				s.left--
			}
			if err != nil || s.left == 0 {
				heap.Pop(&m.due)
				s.done <- err
				continue
			}
			// Like a ticker, a stream late by more than a token's
			// interval drops the ticks it missed.
			every := time.Duration(m.every.Load())
			s.next = s.next.Add(every)
			if late := now.Sub(s.next); late > every {
				s.next = s.next.Add(late / every * every)
			}
			heap.Fix(&m.due, 0)
		}
		m.mu.Unlock()
	}
}

// streams is a heap of streams by when their next token is due.
type streams []*stream

func (h streams) Len() int           { return len(h) }
func (h streams) Less(i, j int) bool { return h[i].next.Before(h[j].next) }
func (h streams) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}
func (h *streams) Push(x any) {
	s := x.(*stream)
	s.i = len(*h)
	*h = append(*h, s)
}
func (h *streams) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	s.i = -1
	*h = old[:len(old)-1]
	return s
}
