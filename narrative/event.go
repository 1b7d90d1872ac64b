package narrative

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth/world"
)

// Kind says what sort of memory an event is. Triumphs and failures are the
// episodic memories of seed 001 §7.6: major story events that are always
// retrieved when relevant and grant +1 in related situations.
type Kind string

// Event kinds.
const (
	KindEvent   Kind = "event"   // an ordinary scene summary
	KindTriumph Kind = "triumph" // a major success the story remembers
	KindFailure Kind = "failure" // a major setback the story remembers
)

// Episodic reports whether k is a triumph or a failure.
func (k Kind) Episodic() bool { return k == KindTriumph || k == KindFailure }

// ParseKind accepts event, triumph and failure; the empty string is event.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(strings.ToLower(strings.TrimSpace(s))); k {
	case "":
		return KindEvent, nil
	case KindEvent, KindTriumph, KindFailure:
		return k, nil
	}
	return "", fmt.Errorf("unknown memory kind %q: use event, triumph or failure", s)
}

// Significance runs from 1 (trivial) to 10 (story-defining). The seed's
// store input names levels ("high"); ParseSignificance maps them here.
const (
	SignificanceLow      = 3
	SignificanceMedium   = 5
	SignificanceHigh     = 8
	SignificanceCritical = 10
)

// ParseSignificance accepts a number from 1 to 10 or one of trivial, low,
// medium, high and critical. The empty string is medium.
func ParseSignificance(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "":
		return SignificanceMedium, nil
	case "trivial", "minor":
		return 1, nil
	case "low":
		return SignificanceLow, nil
	case "medium", "moderate", "normal":
		return SignificanceMedium, nil
	case "high", "major":
		return SignificanceHigh, nil
	case "critical":
		return SignificanceCritical, nil
	}
	if len(t) <= 3 {
		if n, err := strconv.Atoi(t); err == nil && n >= 1 && n <= 10 {
			return n, nil
		}
	}
	return 0, fmt.Errorf("significance %q: use a number from 1 to 10 or trivial, low, medium, high or critical", truncate(s, 40))
}

// Event is one remembered moment of a playthrough (seed 001 §6.1.1 Memory
// Event). Events do not decay; they stay recallable for the life of the
// playthrough.
type Event struct {
	ID           int64          `json:"id,omitempty"` // assigned by the store; unique within it
	Playthrough  string         `json:"playthrough"`  // the scope: recall never crosses it
	Session      string         `json:"session,omitempty"`
	Turn         int            `json:"turn,omitempty"`
	Scene        int            `json:"scene,omitempty"`
	At           world.GameTime `json:"at"`            // game time, minutes
	Wall         time.Time      `json:"wall,omitzero"` // when it was recorded
	Summary      string         `json:"summary"`       // what happened, in a sentence or two
	Characters   []string       `json:"characters,omitempty"`
	Location     string         `json:"location,omitempty"`
	Action       string         `json:"action_type,omitempty"` // the seed's actionType: talk, fight, trade …
	Significance int            `json:"significance"`          // 1..10
	Tags         []string       `json:"tags,omitempty"`
	Kind         Kind           `json:"kind,omitempty"`
	Embedding    []float32      `json:"embedding,omitempty"`
}

// Limits on an event, so one bad record cannot bloat memory or a prompt.
const (
	MaxSummaryBytes = 8 << 10
	MaxNameBytes    = 256 // a character, location, tag, session or scope name
	MaxNames        = 64  // characters or tags on one event
	MaxDimensions   = 4096
)

// Normalize fills defaults (kind event, medium significance) and checks
// the limits, returning an error that names the event and the field.
func (e *Event) Normalize() error {
	k, err := ParseKind(string(e.Kind))
	if err != nil {
		return e.fail(err)
	}
	e.Kind = k
	if e.Significance == 0 {
		e.Significance = SignificanceMedium
	}
	switch {
	case e.Significance < 1 || e.Significance > 10:
		return e.fail(fmt.Errorf("significance %d is outside 1..10", e.Significance))
	case e.Turn < 0 || e.Turn > math.MaxInt32 || e.Scene < 0 || e.Scene > math.MaxInt32:
		return e.fail(fmt.Errorf("turn %d or scene %d is outside 0..%d", e.Turn, e.Scene, math.MaxInt32))
	case e.At < 0:
		return e.fail(fmt.Errorf("game time %d is before the campaign began", e.At))
	case strings.TrimSpace(e.Summary) == "":
		return e.fail(fmt.Errorf("summary is empty: say what happened"))
	case len(e.Summary) > MaxSummaryBytes:
		return e.fail(fmt.Errorf("summary is %d bytes; the limit is %d: summarise it", len(e.Summary), MaxSummaryBytes))
	case !utf8.ValidString(e.Summary):
		return e.fail(fmt.Errorf("summary is not valid UTF-8"))
	case len(e.Characters) > MaxNames:
		return e.fail(fmt.Errorf("%d characters; the limit is %d", len(e.Characters), MaxNames))
	case len(e.Tags) > MaxNames:
		return e.fail(fmt.Errorf("%d tags; the limit is %d", len(e.Tags), MaxNames))
	case len(e.Embedding) > MaxDimensions:
		return e.fail(fmt.Errorf("embedding has %d dimensions; the limit is %d", len(e.Embedding), MaxDimensions))
	}
	for _, n := range [...]struct{ field, v string }{{"playthrough", e.Playthrough}, {"session", e.Session}, {"location", e.Location}, {"action_type", e.Action}} {
		if err := checkName(n.field, n.v); err != nil {
			return e.fail(err)
		}
	}
	for _, c := range e.Characters {
		if err := checkName("character", c); err != nil {
			return e.fail(err)
		}
	}
	for _, t := range e.Tags {
		if err := checkName("tag", t); err != nil {
			return e.fail(err)
		}
	}
	for i, f := range e.Embedding {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return e.fail(fmt.Errorf("embedding[%d] is %v", i, f))
		}
	}
	return nil
}

func (e *Event) fail(err error) error {
	return fmt.Errorf("memory event %d (%q): %w", e.ID, truncate(e.Summary, 40), err)
}

func checkName(field, v string) error {
	if len(v) > MaxNameBytes {
		return fmt.Errorf("%s %q… is %d bytes; the limit is %d", field, truncate(v, 20), len(v), MaxNameBytes)
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("%s is not valid UTF-8", field)
	}
	return nil
}

// truncate cuts s to at most n bytes on a rune boundary, for messages.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
