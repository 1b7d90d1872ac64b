package agent

import (
	"context"
	"sync"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/llm"
)

// Errors from a Run's client-side methods.
var (
	ErrUnknownCall = &hearth.Error{Code: hearth.Invalid, Message: "no tool call with that id is waiting for a result"}
	ErrNotPaused   = &hearth.Error{Code: hearth.Conflict, Message: "the run is not paused"}
	ErrFinished    = &hearth.Error{Code: hearth.Conflict, Message: "the run has finished"}
)

// Run is a loop running in the background, for servers: the client's
// tool results and pause decisions arrive through Deliver and Decide
// (from other HTTP requests) while events go to the sink.
type Run struct {
	done chan struct{}
	out  *Outcome
	err  error

	mu      sync.Mutex
	calls   map[string]*pending
	paused  chan Decision
	stopped bool
}

// Start runs the loop in a goroutine. Cancel ctx to abandon the run (a
// client that disconnected).
func (l *Loop) Start(ctx context.Context, req llm.Request, sink func(Event)) *Run {
	return l.StartThen(ctx, req, sink, nil)
}

// StartThen is Start with then, when not nil, called with the outcome on
// the run's goroutine once the run takes no more answers and before Done
// is closed. A server saves the conversation there rather than keeping a
// second goroutine a chat only to wait for the run.
func (l *Loop) StartThen(ctx context.Context, req llm.Request, sink func(Event), then func(*Outcome, error)) *Run {
	r, run := l.Prepare(ctx, req, sink, then)
	go run()
	return r
}

// Prepare is StartThen without the goroutine: the run begins when the
// caller calls run, and goes on on the caller's goroutine until it has
// ended and then has returned. The Run takes answers (Deliver, Decide)
// from the moment Prepare returns. run must be called once. A caller
// whose goroutine would only wait for the run (a handler streaming it)
// saves a goroutine a run, and the stack growth of a new one.
func (l *Loop) Prepare(ctx context.Context, req llm.Request, sink func(Event), then func(*Outcome, error)) (r *Run, run func()) {
	r = &Run{done: make(chan struct{}), calls: map[string]*pending{}}
	// A client may answer as soon as it sees a tool_call or pause event, so
	// the run is ready to take the answer before the event leaves.
	expect := func(e Event) {
		switch e.Type {
		case ToolCall:
			r.mu.Lock()
			r.calls[e.ID] = &pending{ch: make(chan string, 1)}
			r.mu.Unlock()
		case Pause:
			r.mu.Lock()
			r.paused = make(chan Decision, 1)
			r.mu.Unlock()
		}
		sink(e)
	}
	return r, func() {
		defer close(r.done)
		r.out, r.err = l.Run(ctx, req, r, expect)
		r.mu.Lock()
		r.stopped = true
		r.mu.Unlock()
		if then != nil {
			then(r.out, r.err)
		}
	}
}

// pending is an external call awaiting the client's result.
type pending struct {
	ch       chan string
	answered bool
}

// Done is closed when the run has finished.
func (r *Run) Done() <-chan struct{} { return r.done }

// Wait waits for the run to finish and returns its outcome.
func (r *Run) Wait() (*Outcome, error) {
	<-r.done
	return r.out, r.err
}

// Deliver hands the client's result for an external tool call to the run.
func (r *Run) Deliver(id, result string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return ErrFinished
	}
	p, ok := r.calls[id]
	if !ok || p.answered {
		return ErrUnknownCall
	}
	p.answered = true
	p.ch <- result // buffered
	return nil
}

// Decide answers the current pause.
func (r *Run) Decide(d Decision) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return ErrFinished
	}
	if r.paused == nil {
		return ErrNotPaused
	}
	select {
	case r.paused <- d: // the loop clears the pause when it takes it
		return nil
	default: // decided already
		return ErrNotPaused
	}
}

// Waiting lists the ids of external calls awaiting results.
func (r *Run) Waiting() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, 0, len(r.calls))
	for id, p := range r.calls {
		if !p.answered {
			ids = append(ids, id)
		}
	}
	return ids
}

// ToolResult implements Controller.
func (r *Run) ToolResult(ctx context.Context, call llm.ToolCall) (string, error) {
	r.mu.Lock()
	p, ok := r.calls[call.ID]
	if !ok {
		p = &pending{ch: make(chan string, 1)}
		r.calls[call.ID] = p
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.calls, call.ID)
		r.mu.Unlock()
	}()
	select {
	case res := <-p.ch:
		return res, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Pause implements Controller: it waits for Decide; the pause event
// itself has gone to the sink.
func (r *Run) Pause(ctx context.Context, _ Event) (Decision, error) {
	r.mu.Lock()
	ch := r.paused
	if ch == nil {
		ch = make(chan Decision, 1)
		r.paused = ch
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.paused = nil
		r.mu.Unlock()
	}()
	select {
	case d := <-ch:
		return d, nil
	case <-ctx.Done():
		return Cancel, ctx.Err()
	}
}
