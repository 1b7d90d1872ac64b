package server

import (
	"net/http"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth/agent"
)

// writeWait is how long a write to a stream may wait on its client.
const writeWait = 30 * time.Second

// maxKeptLine is the largest line buffer a stream keeps between events:
// enough for a token's event; a long one's buffer is let go.
const maxKeptLine = 512

// sse writes server-sent events. Writes may come from several goroutines
// (the agent loop and the keep-alive timer).
type sse struct {
	mu       sync.Mutex
	w        http.ResponseWriter
	rc       *http.ResponseController
	failed   bool
	started  bool
	early    [][]byte      // events sent before start, written by start
	line     []byte        // the line being written, kept for the next
	deadline time.Time     // the write deadline last set
	timer    *time.Timer   // the next keep-alive comment's
	every    time.Duration // the keep-alive comments' interval
}

func newSSE(w http.ResponseWriter) *sse {
	return &sse{w: w, rc: http.NewResponseController(w)}
}

// start writes the headers and any events that came before it. Events can
// come first: the run begins before the handler knows it may stream.
func (s *sse) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	s.w.WriteHeader(http.StatusOK)
	s.started = true
	for _, b := range s.early {
		s.write(b)
	}
	s.early = nil
	if !s.failed {
		if err := s.rc.Flush(); err != nil {
			s.failed = true
		}
	}
}

// send writes one event as a data line; after a failed write (the client
// went away) it does nothing. The event is encoded straight into the
// stream's kept line (a token's event allocates nothing): it is compact
// JSON, without the newlines that would end a data line.
func (s *sse) send(e agent.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		b, err := e.MarshalJSON()
		if err != nil {
			b = []byte(encodeFailed)
		}
		s.early = append(s.early, b)
		return
	}
	if s.failed {
		return
	}
	line, err := e.AppendJSON(append(s.line[:0], "data: "...))
	if err != nil {
		line = append(append(line[:0], "data: "...), encodeFailed...)
	}
	s.line = append(line, "\n\n"...)
	s.writeLine()
	if e.Type == agent.Done {
		// A run's last event: the handler returns once the chat is
		// saved, and net/http's finishing write carries it with the
		// response's end (a write a chat less, for server and client).
		return
	}
	if !s.failed {
		if err := s.rc.Flush(); err != nil {
			s.failed = true
		}
	}
}

// encodeFailed stands in for an event that could not be encoded.
const encodeFailed = `{"type":"error","message":"an event could not be encoded","recoverable":false}`

// write writes one data line; s.mu is held.
func (s *sse) write(b []byte) {
	if s.failed {
		return
	}
	s.line = append(append(append(s.line[:0], "data: "...), b...), "\n\n"...)
	s.writeLine()
}

// writeLine writes s.line, then lets go of a long line's buffer; s.mu is
// held and no write has failed.
func (s *sse) writeLine() {
	s.extendDeadline()
	if _, err := s.w.Write(s.line); err != nil {
		s.failed = true
	}
	if cap(s.line) > maxKeptLine {
		s.line = nil
	}
}

// extendDeadline keeps the write deadline about writeWait ahead, moving
// it at most once a second rather than for every token; s.mu is held.
func (s *sse) extendDeadline() {
	now := time.Now()
	if s.deadline.Sub(now) > writeWait-time.Second {
		return
	}
	s.deadline = now.Add(writeWait)
	_ = s.rc.SetWriteDeadline(s.deadline)
}

// keepAlive writes a comment line every d until stop is called.
func (s *sse) keepAlive(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.every = d
	s.timer = time.AfterFunc(d, s.tick)
}

// tick writes a keep-alive comment and sets the timer for the next.
func (s *sse) tick() {
	s.comment("keep-alive")
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.failed {
		s.timer.Reset(s.every)
	}
}

// stop ends the stream for every writer (the handler is returning): the
// keep-alive timer stops, and a comment already due writes nothing.
func (s *sse) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed = true
	if s.timer != nil {
		s.timer.Stop()
	}
}

// comment writes a comment line, which clients ignore: it keeps proxies
// from closing a stream that waits on a slow model or a client's tool.
func (s *sse) comment(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed || !s.started {
		return
	}
	s.extendDeadline()
	if _, err := s.w.Write([]byte(": " + text + "\n\n")); err != nil {
		s.failed = true
		return
	}
	if err := s.rc.Flush(); err != nil {
		s.failed = true
	}
}
