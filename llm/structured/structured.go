package structured

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hearth-rpg/hearth/llm"
)

// ErrInvalid is returned (wrapped) when the model's output could not be
// made valid, even after the repair attempt.
var ErrInvalid = errors.New("model output is not valid")

// Spec is the expected output of one kind of model call.
type Spec[T any] struct {
	name     string
	schema   json.RawMessage
	resolved *jsonschema.Resolved
	// Check, when set, validates what the schema cannot: entity names that
	// must exist, values that must be consistent.
	Check func(T) error
}

// options maps json.RawMessage (free-form arguments) to any JSON object,
// instead of the byte slice it is in Go.
func options() *jsonschema.ForOptions {
	return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Type: "object"},
	}}
}

// New builds the spec for T, named name (it names the output in requests).
func New[T any](name string) (*Spec[T], error) {
	s, err := jsonschema.For[T](options())
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	return fromSchema[T](name, s)
}

// ForType returns the JSON Schema of a Go type, for tool parameters.
func ForType(t reflect.Type) (json.RawMessage, error) {
	s, err := jsonschema.ForType(t, options())
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", t, err)
	}
	return json.Marshal(s)
}

func fromSchema[T any](name string, s *jsonschema.Schema) (*Spec[T], error) {
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	return &Spec[T]{name: name, schema: raw, resolved: res}, nil
}

// Name is the output's name.
func (s *Spec[T]) Name() string { return s.name }

// Schema is the JSON Schema, as sent to providers.
func (s *Spec[T]) Schema() json.RawMessage { return s.schema }

// Parse extracts, validates and decodes the JSON in a model's text.
func (s *Spec[T]) Parse(text string) (T, error) {
	var zero T
	raw, err := Extract(text)
	if err != nil {
		return zero, err
	}
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		return zero, fmt.Errorf("not JSON: %w", err)
	}
	if err := s.resolved.Validate(inst); err != nil {
		return zero, fmt.Errorf("does not match the schema: %w", err)
	}
	var v T
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return zero, fmt.Errorf("does not match the schema: %w", err)
	}
	if s.Check != nil {
		if err := s.Check(v); err != nil {
			return zero, err
		}
	}
	return v, nil
}

// Extract finds the JSON value in a model's text: the whole text, the
// inside of a code fence, or the outermost object or array within prose.
func Extract(text string) (json.RawMessage, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, errors.New("the answer is empty")
	}
	if i := strings.Index(t, "```"); i >= 0 {
		rest := t[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[") {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			rest = rest[:j]
		}
		t = strings.TrimSpace(rest)
	}
	if json.Valid([]byte(t)) {
		return json.RawMessage(t), nil
	}
	start := strings.IndexAny(t, "{[")
	if start < 0 {
		return nil, errors.New("the answer has no JSON in it")
	}
	closer := byte('}')
	if t[start] == '[' {
		closer = ']'
	}
	end := strings.LastIndexByte(t, closer)
	if end <= start || !json.Valid([]byte(t[start:end+1])) {
		return nil, errors.New("the answer's JSON is incomplete or malformed")
	}
	return json.RawMessage(t[start : end+1]), nil
}

// Report says how a structured call went, for the turn's record and the
// replay metrics.
type Report struct {
	Attempts int       `json:"attempts"`
	Repaired bool      `json:"repaired,omitempty"`
	Errors   []string  `json:"errors,omitempty"`
	Raw      []string  `json:"raw,omitempty"` // what the model returned, per attempt
	Usage    llm.Usage `json:"usage"`
}

// Call asks p for output matching s. On invalid output it sends the
// validation error back once and asks again; if that fails too, the error
// wraps ErrInvalid and the caller falls back. Provider errors are returned
// as they are.
func (s *Spec[T]) Call(ctx context.Context, p llm.Provider, req llm.Request) (T, Report, error) {
	var zero T
	var rep Report
	req.Schema = s.schema
	req.Tools = nil
	msgs := append([]llm.Message(nil), req.Messages...)
	for attempt := 1; attempt <= 2; attempt++ {
		req.Messages = msgs
		rep.Attempts = attempt
		resp, err := p.Chat(ctx, req, nil)
		if err != nil {
			return zero, rep, err
		}
		rep.Usage = rep.Usage.Add(resp.Usage)
		text := resp.Message.Content
		rep.Raw = append(rep.Raw, text)
		v, perr := s.Parse(text)
		if perr == nil {
			rep.Repaired = attempt > 1
			return v, rep, nil
		}
		rep.Errors = append(rep.Errors, perr.Error())
		msgs = append(msgs,
			llm.Message{Role: llm.Assistant, Content: text},
			llm.Message{Role: llm.User, Content: fmt.Sprintf(
				"That answer cannot be used: %v. Reply again with only a JSON value matching this schema, nothing else:\n%s",
				perr, s.schema)})
	}
	return zero, rep, fmt.Errorf("%s: %w: %s", s.name, ErrInvalid, rep.Errors[len(rep.Errors)-1])
}
