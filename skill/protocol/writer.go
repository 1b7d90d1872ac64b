package protocol

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// A Writer writes events as NDJSON, one per line. It is safe for
// concurrent use.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
	// RequestID, when set, is put on events that have none.
	RequestID string
}

// NewWriter returns a Writer on w (a script's stdout).
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Emit writes one event.
func (w *Writer) Emit(e Event) error {
	if w.RequestID != "" {
		setRequestID(e, w.RequestID)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encoding %s event: %w", e.Type(), err)
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.w.Write(b)
	return err
}

func setRequestID(e Event, id string) {
	var env *Envelope
	switch e := e.(type) {
	case *Log:
		env = &e.Envelope
	case *StatePatch:
		env = &e.Envelope
	case *Asset:
		env = &e.Envelope
	case *UIEvent:
		env = &e.Envelope
	case *ErrorEvent:
		env = &e.Envelope
	case *Done:
		env = &e.Envelope
	}
	if env != nil && env.RequestID == "" {
		env.RequestID = id
	}
}
