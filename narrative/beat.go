package narrative

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Priority orders plot beats that become triggerable together (§7.5:
// critical > high > medium > low > optional).
type Priority int

// Priorities. The numbers match the seed's numeric form (priority: 5).
const (
	Optional Priority = 1
	Low      Priority = 2
	Medium   Priority = 3
	High     Priority = 4
	Critical Priority = 5
)

var priorityNames = [...]string{Optional: "optional", Low: "low", Medium: "medium", High: "high", Critical: "critical"}

// ParsePriority accepts the names or the numbers 1 to 5; "" is medium.
func ParsePriority(s string) (Priority, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return Medium, nil
	}
	for p, n := range priorityNames {
		if n != "" && n == t {
			return Priority(p), nil
		}
	}
	if len(t) == 1 {
		if n, err := strconv.Atoi(t); err == nil && n >= 1 && n <= 5 {
			return Priority(n), nil
		}
	}
	return 0, fmt.Errorf("priority %q: use critical, high, medium, low, optional or 1 to 5", truncate(s, 40))
}

// String returns the priority's name.
func (p Priority) String() string {
	if p >= Optional && p <= Critical {
		return priorityNames[p]
	}
	return fmt.Sprintf("priority(%d)", int(p))
}

// MarshalText writes the name.
func (p Priority) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText accepts what ParsePriority accepts.
func (p *Priority) UnmarshalText(b []byte) error {
	v, err := ParsePriority(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// UnmarshalJSON accepts a name or a bare number.
func (p *Priority) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) != nil {
		s = string(b)
	}
	return p.UnmarshalText([]byte(s))
}

// Beat is a plot beat (seed 001 §6.2.5, §7.5): a story moment that
// triggers at a scene transition once the scene count is within its
// window, its prerequisite beats have triggered and its conditions hold.
type Beat struct {
	ID            string      `json:"id"`
	Title         string      `json:"title,omitempty"`
	Priority      Priority    `json:"priority,omitempty"`  // 0 is medium
	MinScene      int         `json:"min_scene,omitempty"` // first scene it may trigger in
	MaxScene      int         `json:"max_scene,omitempty"` // last; 0 is open
	Prerequisites []string    `json:"prerequisites,omitempty"`
	Conditions    []Condition `json:"conditions,omitempty"`
	// Consequences are passed through untouched to whoever applies a
	// triggered beat (state patches, mood changes …).
	Consequences []json.RawMessage `json:"consequences,omitempty"`
}

// Limits on a beat set.
const (
	MaxBeats        = 10000
	MaxBeatLinks    = 64 // prerequisites or conditions of one beat
	DefaultPerScene = 1
	neverScene      = int(^uint(0) >> 1)
)

func (b *Beat) priority() Priority {
	if b.Priority == 0 {
		return Medium
	}
	return b.Priority
}

// validate checks one beat's own fields.
func (b *Beat) validate() error {
	switch {
	case b.ID == "" || len(b.ID) > MaxNameBytes:
		return fmt.Errorf("plot beat %q: the id must be 1 to %d bytes", truncate(b.ID, 40), MaxNameBytes)
	case b.Priority != 0 && (b.Priority < Optional || b.Priority > Critical):
		return fmt.Errorf("plot beat %s: priority %d is outside 1..5", b.ID, b.Priority)
	case b.MinScene < 0 || b.MaxScene < 0:
		return fmt.Errorf("plot beat %s: scene window %d..%d must not be negative", b.ID, b.MinScene, b.MaxScene)
	case b.MaxScene > 0 && b.MaxScene < b.MinScene:
		return fmt.Errorf("plot beat %s: scene window %d..%d closes before it opens", b.ID, b.MinScene, b.MaxScene)
	case len(b.Prerequisites) > MaxBeatLinks || len(b.Conditions) > MaxBeatLinks:
		return fmt.Errorf("plot beat %s: at most %d prerequisites and %d conditions", b.ID, MaxBeatLinks, MaxBeatLinks)
	}
	for _, c := range b.Conditions {
		if err := c.Validate(); err != nil {
			return fmt.Errorf("plot beat %s: %w", b.ID, err)
		}
	}
	return nil
}

// BeatStatus is where a beat is in its life.
type BeatStatus string

// Beat statuses. A beat with no state is pending.
const (
	Pending     BeatStatus = "pending"
	Triggered   BeatStatus = "triggered"
	Unreachable BeatStatus = "unreachable"
)

// BeatState is what the story remembers of one beat.
type BeatState struct {
	Status BeatStatus `json:"status"`
	// EligibleSince is the scene from which the beat has been eligible
	// without interruption (0 when it is not): the start of its two-scene
	// allowance, and with Scene the measure of SC-035's timing.
	EligibleSince int `json:"eligible_since,omitempty"`
	// Scene is when it triggered or was found unreachable.
	Scene  int    `json:"scene,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// BeatLog is the state of every beat that has one, by beat ID.
type BeatLog map[string]BeatState

// Action is what a Decision says to do with a beat.
type Action string

// Actions.
const (
	Trigger Action = "trigger" // play the beat in this scene
	Defer   Action = "defer"   // eligible, but the scene's slots went to higher-ranked beats
	Wait    Action = "wait"    // not eligible yet
	Skip    Action = "skip"    // unreachable: its window passed or a prerequisite cannot trigger
)

// Decision is the verdict on one pending beat at a scene transition.
type Decision struct {
	Beat          string   `json:"beat"`
	Action        Action   `json:"action"`
	Scene         int      `json:"scene"`
	Priority      Priority `json:"priority"`
	EligibleSince int      `json:"eligible_since,omitempty"`
	Reason        string   `json:"reason"`
}

// Apply returns a copy of the log with the decisions recorded.
func (l BeatLog) Apply(ds []Decision) BeatLog {
	out := make(BeatLog, len(l)+len(ds))
	for k, v := range l {
		out[k] = v
	}
	for _, d := range ds {
		switch d.Action {
		case Trigger:
			out[d.Beat] = BeatState{Status: Triggered, EligibleSince: d.EligibleSince, Scene: d.Scene, Reason: d.Reason}
		case Defer:
			out[d.Beat] = BeatState{Status: Pending, EligibleSince: d.EligibleSince, Reason: d.Reason}
		case Wait:
			out[d.Beat] = BeatState{Status: Pending, Reason: d.Reason}
		case Skip:
			out[d.Beat] = BeatState{Status: Unreachable, Scene: d.Scene, Reason: d.Reason}
		}
	}
	return out
}
