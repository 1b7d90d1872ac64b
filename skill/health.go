package skill

import (
	"errors"
	"slices"
	"sync"
)

// State is a skill's health in a session (seed 001 §2.3.3).
type State string

// The four health states.
const (
	Healthy          State = "healthy"          // select normally
	Degraded         State = "degraded"         // slow or unreliable: select with caution
	TemporaryFailure State = "temporaryFailure" // transient: retry with backoff
	PermanentFailure State = "permanentFailure" // disabled for the rest of the session
)

// Outcome is what one attempt of a skill's script came to, as health
// counts it.
type Outcome int

// Outcomes.
const (
	Success   Outcome = iota
	Failure           // any failure that is not transient
	Transient         // a timeout or network error: may recover
)

// OutcomeOf classifies an invocation's error: nil is Success; a timeout,
// or a tool failure whose code says network, unavailable or timeout, is
// Transient; anything else is Failure.
func OutcomeOf(err error) Outcome {
	if err == nil {
		return Success
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Category == Timeout {
			return Transient
		}
		switch e.Code {
		case "network_error", "NETWORK_ERROR", "unavailable", "UNAVAILABLE", "timeout", "TIMEOUT", "rate_limited", "RATE_LIMITED":
			return Transient
		}
	}
	return Failure
}

// Thresholds of the state machine.
const (
	// FailuresToDegrade consecutive failures make a healthy skill degraded,
	// and as many more make a degraded one fail permanently.
	FailuresToDegrade = 3
	// TransientRetries failed retries of a skill in temporaryFailure (the
	// default maxRetries) make the failure permanent.
	TransientRetries = 3
)

// Transition is a change of a skill's state.
type Transition struct {
	Skill    string
	From, To State
	Outcome  Outcome
}

// Health tracks every skill's state over one session:
//
//	healthy ──[timeout/network error]──▶ temporaryFailure
//	healthy ──[3 consecutive failures]──▶ degraded
//	degraded ──[success]──▶ healthy
//	degraded ──[3 more failures]──▶ permanentFailure
//	temporaryFailure ──[retry success]──▶ healthy
//	temporaryFailure ──[max retries exceeded]──▶ permanentFailure
//	permanentFailure ──[session restart]──▶ healthy
//
// A session restart is a new Health. The zero value is ready to use and
// safe for concurrent use; a nil *Health reports every skill healthy and
// records nothing.
type Health struct {
	mu     sync.Mutex
	skills map[string]*health
}

type health struct {
	state State
	count int // consecutive failures (healthy, degraded) or failed retries (temporaryFailure)
}

// Record counts one attempt's outcome and returns the transition, whose
// From and To are equal when the state did not change.
func (h *Health) Record(skill string, o Outcome) Transition {
	if h == nil {
		return Transition{Skill: skill, From: Healthy, To: Healthy, Outcome: o}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.skills == nil {
		h.skills = map[string]*health{}
	}
	s := h.skills[skill]
	if s == nil {
		s = &health{state: Healthy}
		h.skills[skill] = s
	}
	t := Transition{Skill: skill, From: s.state, Outcome: o}
	switch s.state {
	case Healthy:
		switch o {
		case Success:
			s.count = 0
		case Transient:
			s.state, s.count = TemporaryFailure, 0
		case Failure:
			if s.count++; s.count >= FailuresToDegrade {
				s.state, s.count = Degraded, 0
			}
		}
	case Degraded:
		if o == Success {
			s.state, s.count = Healthy, 0
		} else if s.count++; s.count >= FailuresToDegrade {
			s.state, s.count = PermanentFailure, 0
		}
	case TemporaryFailure:
		if o == Success {
			s.state, s.count = Healthy, 0
		} else if s.count++; s.count >= TransientRetries {
			s.state, s.count = PermanentFailure, 0
		}
	case PermanentFailure:
		// Only a new session brings it back.
	}
	t.To = s.state
	return t
}

// State returns a skill's state; skills never recorded are healthy.
func (h *Health) State(skill string) State {
	if h == nil {
		return Healthy
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.skills[skill]; s != nil {
		return s.state
	}
	return Healthy
}

// Disabled returns the skills in permanentFailure, sorted: the planner must
// not select them.
func (h *Health) Disabled() []string {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for name, s := range h.skills {
		if s.state == PermanentFailure {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Snapshot returns the state of every skill recorded.
func (h *Health) Snapshot() map[string]State {
	out := map[string]State{}
	if h == nil {
		return out
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for name, s := range h.skills {
		out[name] = s.state
	}
	return out
}
