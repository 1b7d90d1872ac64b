package protocol

import "encoding/json"

// Version is the protocol version every event carries.
const Version = "0"

// Type names an event type.
type Type string

// The six event types of seed 001 §2.1.3.
const (
	TypeLog        Type = "log"
	TypeStatePatch Type = "state_patch"
	TypeAsset      Type = "asset"
	TypeUIEvent    Type = "ui_event"
	TypeError      Type = "error"
	TypeDone       Type = "done"
)

// Types lists the known event types in the order the seed gives them.
var Types = []Type{TypeLog, TypeStatePatch, TypeAsset, TypeUIEvent, TypeError, TypeDone}

// Known reports whether t is one of the six event types.
func (t Type) Known() bool {
	switch t {
	case TypeLog, TypeStatePatch, TypeAsset, TypeUIEvent, TypeError, TypeDone:
		return true
	}
	return false
}

// Event is one of *Log, *StatePatch, *Asset, *UIEvent, *ErrorEvent and
// *Done. Each marshals to JSON with "version" and "type" first.
type Event interface {
	// Type is the event's type.
	Type() Type
	// Head returns the optional envelope fields.
	Head() Envelope
}

// Envelope holds the optional fields every event may carry; version and
// type are implied by the event's Go type.
type Envelope struct {
	RequestID string `json:"requestId,omitempty"` // opaque, as given on stdin
	Timestamp string `json:"timestamp,omitempty"` // ISO-8601, not checked
}

// Head returns the envelope; it makes every event type satisfy Event.
func (e Envelope) Head() Envelope { return e }

// Log levels.
const (
	LevelDebug = "debug"
	LevelInfo  = "info"
	LevelWarn  = "warn"
	LevelError = "error"
)

// Log reports progress or diagnostics. It is never an error.
type Log struct {
	Envelope
	Level   string         `json:"level"`
	Message string         `json:"message"`
	Fields  map[string]any `json:"fields,omitempty"`
}

// StatePatch is deep-merged into the session state.
type StatePatch struct {
	Envelope
	Patch map[string]any `json:"patch"`
}

// Asset announces a file the script has written.
type Asset struct {
	Envelope
	AssetID   string         `json:"assetId"`
	Kind      string         `json:"kind"`
	MediaType string         `json:"mediaType"`
	Path      string         `json:"path"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// UIEvent asks the UI to do something; narrative_choice must be supported.
type UIEvent struct {
	Envelope
	Event   string         `json:"event"`
	Payload map[string]any `json:"payload,omitempty"`
}

// NarrativeChoice is the ui_event every UI must support; its payload is
// {"choices": ["…", …]}.
const NarrativeChoice = "narrative_choice"

// ErrorEvent is a structured error. It does not end the invocation; a done
// event with ok false should follow.
type ErrorEvent struct {
	Envelope
	ErrorCode    string         `json:"errorCode"`
	ErrorMessage string         `json:"errorMessage"`
	Details      map[string]any `json:"details,omitempty"`
}

// Done ends the invocation: OK is logical success.
type Done struct {
	Envelope
	OK      bool   `json:"ok"`
	Summary string `json:"summary,omitempty"`
}

func (*Log) Type() Type        { return TypeLog }
func (*StatePatch) Type() Type { return TypeStatePatch }
func (*Asset) Type() Type      { return TypeAsset }
func (*UIEvent) Type() Type    { return TypeUIEvent }
func (*ErrorEvent) Type() Type { return TypeError }
func (*Done) Type() Type       { return TypeDone }

// MarshalJSON writes the event with its envelope.
func (e *Log) MarshalJSON() ([]byte, error) {
	type plain Log
	return withEnvelope(TypeLog, (*plain)(e))
}

// MarshalJSON writes the event with its envelope.
func (e *StatePatch) MarshalJSON() ([]byte, error) {
	type plain StatePatch
	return withEnvelope(TypeStatePatch, (*plain)(e))
}

// MarshalJSON writes the event with its envelope.
func (e *Asset) MarshalJSON() ([]byte, error) {
	type plain Asset
	return withEnvelope(TypeAsset, (*plain)(e))
}

// MarshalJSON writes the event with its envelope.
func (e *UIEvent) MarshalJSON() ([]byte, error) {
	type plain UIEvent
	return withEnvelope(TypeUIEvent, (*plain)(e))
}

// MarshalJSON writes the event with its envelope.
func (e *ErrorEvent) MarshalJSON() ([]byte, error) {
	type plain ErrorEvent
	return withEnvelope(TypeError, (*plain)(e))
}

// MarshalJSON writes the event with its envelope.
func (e *Done) MarshalJSON() ([]byte, error) {
	type plain Done
	return withEnvelope(TypeDone, (*plain)(e))
}

// withEnvelope marshals v, an event without methods, and puts version and
// type in front of its fields so lines read naturally.
func withEnvelope(t Type, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+32)
	out = append(out, `{"version":"0","type":"`...)
	out = append(out, t...)
	out = append(out, '"')
	if len(b) > 2 { // more than {}
		out = append(out, ',')
		out = append(out, b[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}
