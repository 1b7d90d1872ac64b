package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValidationError is a plan that breaks the schema or the plan rules;
// Field is where (like "tools[2].dependencies"), empty for the whole plan.
type ValidationError struct {
	Field string
	Msg   string
}

func (e *ValidationError) Error() string {
	if e.Field == "" {
		return "invalid plan: " + e.Msg
	}
	return fmt.Sprintf("invalid plan: %s: %s", e.Field, e.Msg)
}

// Parse reads Plan JSON, checks it against Schema and then Validate. It
// does not look for cycles: the executor reports those as
// circular_dependency, so the plan generator is asked for another plan.
func Parse(data []byte) (*Plan, error) {
	if len(data) > MaxSize {
		return nil, &ValidationError{Msg: fmt.Sprintf("plan is %d bytes; the limit is %d", len(data), MaxSize)}
	}
	data = bytes.TrimSpace(data)
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, &ValidationError{Msg: "not JSON: " + jsonError(err, data)}
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, &ValidationError{Msg: "a plan is a JSON object with requestId and tools"}
	}
	rs, err := schema()
	if err != nil {
		return nil, err
	}
	if err := rs.Validate(doc); err != nil {
		field, msg := schemaError(err)
		return nil, &ValidationError{Field: field, Msg: msg}
	}
	p := new(Plan)
	if err := json.Unmarshal(data, p); err != nil {
		return nil, &ValidationError{Msg: err.Error()}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// Validate checks the rules a schema cannot express, and the limits, for
// plans built in code as well as parsed ones: a request id, unique tool
// ids, dependencies on tools that exist, sane retry policies.
func (p *Plan) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &ValidationError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case p.RequestID == "":
		return bad("requestId", "missing; give the plan a unique id")
	case len(p.RequestID) > MaxIDLength:
		return bad("requestId", "longer than %d bytes", MaxIDLength)
	case len(p.Tools) > MaxTools:
		return bad("tools", "%d tools; the limit is %d", len(p.Tools), MaxTools)
	case utf8.RuneCountInString(p.Narrative) > MaxNarrative:
		return bad("narrative", "longer than %d characters", MaxNarrative)
	case p.Metadata.GenerationAttempt < 1 || p.Metadata.GenerationAttempt > MaxAttempts:
		return bad("metadata.generationAttempt", "%d is outside 1–%d", p.Metadata.GenerationAttempt, MaxAttempts)
	}
	ids := make(map[string]int, len(p.Tools))
	for i := range p.Tools {
		t := &p.Tools[i]
		f := fmt.Sprintf("tools[%d]", i)
		switch {
		case t.ToolID == "":
			return bad(f+".toolId", "missing")
		case len(t.ToolID) > MaxIDLength:
			return bad(f+".toolId", "longer than %d bytes", MaxIDLength)
		case t.ToolPath == "":
			return bad(f+".toolPath", "missing; name a script as skills/<skill>/scripts/<script>")
		case len(t.ToolPath) > MaxPathLength:
			return bad(f+".toolPath", "longer than %d bytes", MaxPathLength)
		case len(t.Dependencies) > MaxDependencies:
			return bad(f+".dependencies", "%d dependencies; the limit is %d", len(t.Dependencies), MaxDependencies)
		case t.TimeoutMs < 0 || t.TimeoutMs > MaxTimeoutMs:
			return bad(f+".timeoutMs", "%d is outside 0–%d", t.TimeoutMs, MaxTimeoutMs)
		}
		if j, dup := ids[t.ToolID]; dup {
			return bad(f+".toolId", "%q is also the id of tools[%d]; tool ids must be unique", t.ToolID, j)
		}
		ids[t.ToolID] = i
		if t.RetryPolicy != nil {
			if err := t.RetryPolicy.Validate(); err != nil {
				return bad(f+".retryPolicy", "%v", err)
			}
		}
	}
	for i := range p.Tools {
		seen := map[string]bool{}
		for j, d := range p.Tools[i].Dependencies {
			f := fmt.Sprintf("tools[%d].dependencies[%d]", i, j)
			if _, ok := ids[d]; !ok {
				return bad(f, "no tool has the id %q (have: %s)", d, strings.Join(toolIDs(p), ", "))
			}
			if seen[d] {
				return bad(f, "%q is listed twice", d)
			}
			seen[d] = true
		}
	}
	return nil
}

func toolIDs(p *Plan) []string {
	ids := make([]string, len(p.Tools))
	for i := range p.Tools {
		ids[i] = p.Tools[i].ToolID
	}
	return ids
}

// schemaError turns a jsonschema error into a field path and the most
// specific message.
func schemaError(err error) (field, msg string) {
	msg = err.Error()
	if i := strings.LastIndex(msg, "validating "); i >= 0 {
		msg = msg[i+len("validating "):]
	}
	path, rest, ok := strings.Cut(msg, ": ")
	if !ok {
		return "", msg
	}
	path = strings.ReplaceAll(path, "/properties/", ".")
	path = strings.ReplaceAll(path, "/items", "[]")
	path = strings.TrimPrefix(strings.TrimPrefix(path, "root"), ".")
	return path, rest
}

func jsonError(err error, data []byte) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("line %d (byte %d): %v", line, se.Offset, err)
	}
	return err.Error()
}
