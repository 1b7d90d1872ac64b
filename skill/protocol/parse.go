package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"
)

// Codes of a DecodeError.
const (
	CodeInvalidJSON  = "invalid_json"  // not one JSON object
	CodeLineTooLong  = "line_too_long" // over the decoder's limit
	CodeBadVersion   = "bad_version"   // version missing or not "0"
	CodeUnknownType  = "unknown_type"  // type missing or not one of the six
	CodeInvalidEvent = "invalid_event" // a known type with a bad or missing field
)

// DecodeError is a line that breaks the protocol. Line is 1-based; it is 0
// when the error comes from Parse on a lone line.
type DecodeError struct {
	Line int
	Code string
	Msg  string
}

func (e *DecodeError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// head is the part of every line read first, to pick the event type.
type head struct {
	Version *json.RawMessage `json:"version"`
	Type    *json.RawMessage `json:"type"`
}

// wire is every field of every event type, to decode a line in one pass.
type wire struct {
	Version      string         `json:"version"`
	Type         Type           `json:"type"`
	RequestID    string         `json:"requestId"`
	Timestamp    string         `json:"timestamp"`
	Level        string         `json:"level"`
	Message      string         `json:"message"`
	Fields       map[string]any `json:"fields"`
	Patch        map[string]any `json:"patch"`
	AssetID      string         `json:"assetId"`
	Kind         string         `json:"kind"`
	MediaType    string         `json:"mediaType"`
	Path         string         `json:"path"`
	Metadata     map[string]any `json:"metadata"`
	Event        string         `json:"event"`
	Payload      map[string]any `json:"payload"`
	ErrorCode    string         `json:"errorCode"`
	ErrorMessage string         `json:"errorMessage"`
	Details      map[string]any `json:"details"`
	OK           *bool          `json:"ok"`
	Summary      string         `json:"summary"`
}

// Parse decodes one line into an event.
func Parse(line []byte) (Event, error) {
	// The usual line decodes in one pass. Anything unusual (an error, a
	// field of another event type with an unexpected JSON type) takes the
	// careful path, which gives the same events and precise messages.
	var w wire
	if json.Unmarshal(line, &w) == nil && w.Version == Version {
		if ev := w.event(); ev != nil {
			return ev, nil
		}
	}
	return parseCarefully(line)
}

// event returns the event w holds, or nil if it is not a valid one.
func (w *wire) event() Event {
	env := Envelope{RequestID: w.RequestID, Timestamp: w.Timestamp}
	switch w.Type {
	case TypeLog:
		if w.Level == "" {
			w.Level = LevelInfo
		}
		return &Log{Envelope: env, Level: w.Level, Message: w.Message, Fields: w.Fields}
	case TypeStatePatch:
		if w.Patch != nil {
			return &StatePatch{Envelope: env, Patch: w.Patch}
		}
	case TypeAsset:
		a := &Asset{Envelope: env, AssetID: w.AssetID, Kind: w.Kind, MediaType: w.MediaType, Path: w.Path, Metadata: w.Metadata}
		if a.check() == nil {
			return a
		}
	case TypeUIEvent:
		if w.Event != "" {
			return &UIEvent{Envelope: env, Event: w.Event, Payload: w.Payload}
		}
	case TypeError:
		return &ErrorEvent{Envelope: env, ErrorCode: w.ErrorCode, ErrorMessage: w.ErrorMessage, Details: w.Details}
	case TypeDone:
		if w.OK != nil {
			return &Done{Envelope: env, OK: *w.OK, Summary: w.Summary}
		}
	}
	return nil
}

// parseCarefully decodes the envelope first and then the event type's own
// fields, so every problem is reported precisely.
func parseCarefully(line []byte) (Event, error) {
	var h head
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, &DecodeError{Code: CodeInvalidJSON, Msg: jsonMessage(err, line)}
	}
	if h.Version == nil {
		return nil, &DecodeError{Code: CodeBadVersion, Msg: `missing "version"; every event needs "version":"0"`}
	}
	var version string
	if json.Unmarshal(*h.Version, &version) != nil || version != Version {
		return nil, &DecodeError{Code: CodeBadVersion, Msg: fmt.Sprintf(`"version" is %s; this runtime speaks version "0" (a string)`, raw(*h.Version))}
	}
	var typ string
	if h.Type == nil {
		return nil, &DecodeError{Code: CodeUnknownType, Msg: `missing "type"; want one of ` + typeList()}
	}
	if json.Unmarshal(*h.Type, &typ) != nil || !Type(typ).Known() {
		return nil, &DecodeError{Code: CodeUnknownType, Msg: fmt.Sprintf(`unknown event type %s; want one of %s`, raw(*h.Type), typeList())}
	}
	var (
		ev  Event
		err error
	)
	switch Type(typ) {
	case TypeLog:
		e := &Log{}
		if err = unmarshal(line, e); err == nil {
			if e.Level == "" {
				e.Level = LevelInfo
			}
			ev = e
		}
	case TypeStatePatch:
		e := &StatePatch{}
		if err = unmarshal(line, e); err == nil {
			if e.Patch == nil {
				err = errors.New(`state_patch needs "patch", a JSON object`)
			}
			ev = e
		}
	case TypeAsset:
		e := &Asset{}
		if err = unmarshal(line, e); err == nil {
			err = e.check()
			ev = e
		}
	case TypeUIEvent:
		e := &UIEvent{}
		if err = unmarshal(line, e); err == nil {
			if e.Event == "" {
				err = errors.New(`ui_event needs "event", the name of the UI action`)
			}
			ev = e
		}
	case TypeError:
		e := &ErrorEvent{}
		if err = unmarshal(line, e); err == nil {
			ev = e
		}
	case TypeDone:
		var d struct {
			Envelope
			OK      *bool  `json:"ok"`
			Summary string `json:"summary"`
		}
		if err = unmarshal(line, &d); err == nil {
			if d.OK == nil {
				err = errors.New(`done needs "ok": true or false`)
			}
			ev = &Done{Envelope: d.Envelope, OK: d.OK != nil && *d.OK, Summary: d.Summary}
		}
	}
	if err != nil {
		return nil, &DecodeError{Code: CodeInvalidEvent, Msg: err.Error()}
	}
	return ev, nil
}

func (e *Asset) check() error {
	var missing []string
	for _, f := range []struct{ name, v string }{
		{"assetId", e.AssetID}, {"kind", e.Kind}, {"mediaType", e.MediaType}, {"path", e.Path},
	} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("asset needs %s", strings.Join(missing, ", "))
	}
	if t, _, err := mime.ParseMediaType(e.MediaType); err != nil || !strings.Contains(t, "/") {
		return fmt.Errorf("asset mediaType %q is not a MIME type like image/png", e.MediaType)
	}
	return nil
}

// unmarshal decodes a known event, turning type errors into messages that
// name the field.
func unmarshal(line []byte, v any) error {
	err := json.Unmarshal(line, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %q is a JSON %s; want %s", te.Field, te.Value, goToJSON(te.Type.String()))
	}
	return err
}

func goToJSON(t string) string {
	switch {
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "struct"):
		return "an object"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	}
	return t
}

func jsonMessage(err error, line []byte) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("not valid JSON at byte %d: %v (line starts %s)", se.Offset, se, clip(line))
	case errors.As(err, &te):
		return fmt.Sprintf("want one JSON object per line, got a JSON %s", te.Value)
	}
	return fmt.Sprintf("not valid JSON: %v (line starts %s)", err, clip(line))
}

// clip quotes the start of b for a message.
func clip(b []byte) string {
	const max = 40
	b = bytes.TrimSpace(b)
	if len(b) > max {
		return fmt.Sprintf("%q…", b[:max])
	}
	return fmt.Sprintf("%q", b)
}

// raw shows a JSON value as written, shortened.
func raw(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

func typeList() string {
	s := make([]string, len(Types))
	for i, t := range Types {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}
