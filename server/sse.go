package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// sse writes server-sent events. Writes may come from several goroutines
// (the agent loop and the keep-alive ticker).
type sse struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	rc      *http.ResponseController
	failed  bool
	started bool
	early   [][]byte // events sent before start, written by start
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
// went away) it does nothing.
func (s *sse) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"type":"error","message":"an event could not be encoded","recoverable":false}`)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		s.early = append(s.early, b)
		return
	}
	s.write(b)
	if !s.failed {
		if err := s.rc.Flush(); err != nil {
			s.failed = true
		}
	}
}

// write writes one data line; s.mu is held.
func (s *sse) write(b []byte) {
	if s.failed {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		s.failed = true
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
	_ = s.rc.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := fmt.Fprintf(s.w, ": %s\n\n", text); err != nil {
		s.failed = true
		return
	}
	if err := s.rc.Flush(); err != nil {
		s.failed = true
	}
}
