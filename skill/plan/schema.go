package plan

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hearth-rpg/hearth/skill"
)

// Limits of a plan, so that nothing a model writes can make a turn
// unbounded.
const (
	MaxSize         = 256 << 10 // bytes of Plan JSON
	MaxTools        = 64
	MaxIDLength     = 128 // requestId, toolId, skill names
	MaxPathLength   = 1024
	MaxDependencies = MaxTools
	MaxNarrative    = 16 << 10 // characters
	MaxTimeoutMs    = 600_000
	MaxAttempts     = 5 // plans per turn in the replan loop; not configurable
)

// schema is built once: it is derived from the types, which never change.
var schema = sync.OnceValues(func() (*jsonschema.Resolved, error) {
	s, err := build()
	if err != nil {
		return nil, err
	}
	return s.Resolve(nil)
})

// Schema returns the JSON Schema of Plan JSON, for validation and for
// asking a model to produce a plan.
func Schema() (*jsonschema.Schema, error) {
	r, err := schema()
	if err != nil {
		return nil, err
	}
	return r.Schema().CloneSchemas(), nil
}

// SchemaJSON returns Schema as indented JSON.
func SchemaJSON() ([]byte, error) {
	s, err := Schema()
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(s, "", "  ")
}

// build infers the schema from the types and adds what the types cannot
// say: which fields are required, ranges and lengths, nulls the seed
// allows, and that unknown fields are ignored rather than refused.
func build() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[Plan](nil)
	if err != nil {
		return nil, fmt.Errorf("plan schema: %w", err)
	}
	s.Title = "Plan JSON"
	s.Description = "Which skill scripts to run for one player action (Hearth, after Narratoria seed 001 §2.2)."
	s.Required = []string{"requestId", "tools"}
	s.AdditionalProperties = nil
	p := s.Properties
	str(p["requestId"], 1, MaxIDLength)
	nullable(p["narrative"], "string")
	p["narrative"].MaxLength = jsonschema.Ptr(MaxNarrative)
	nullable(p["tools"], "array")
	p["tools"].MaxItems = jsonschema.Ptr(MaxTools)
	nullable(p["disabledSkills"], "array")
	p["disabledSkills"].MaxItems = jsonschema.Ptr(256)
	str(p["disabledSkills"].Items, 1, MaxIDLength)
	meta := p["metadata"]
	meta.Required = nil
	meta.AdditionalProperties = nil
	nullable(meta, "object")
	meta.Properties["generationAttempt"].Minimum = jsonschema.Ptr(1.0)
	meta.Properties["generationAttempt"].Maximum = jsonschema.Ptr(float64(MaxAttempts))
	nullable(meta.Properties["parentPlanId"], "string")
	meta.Properties["parentPlanId"].MaxLength = jsonschema.Ptr(MaxIDLength)

	t := p["tools"].Items
	t.Required = []string{"toolId", "toolPath"}
	t.AdditionalProperties = nil
	tp := t.Properties
	str(tp["toolId"], 1, MaxIDLength)
	str(tp["toolPath"], 1, MaxPathLength)
	nullable(tp["input"], "object")
	nullable(tp["dependencies"], "array")
	tp["dependencies"].MaxItems = jsonschema.Ptr(MaxDependencies)
	str(tp["dependencies"].Items, 1, MaxIDLength)
	tp["required"].Default = json.RawMessage("true")
	tp["async"].Default = json.RawMessage("false")
	tp["timeoutMs"].Minimum = jsonschema.Ptr(0.0)
	tp["timeoutMs"].Maximum = jsonschema.Ptr(float64(MaxTimeoutMs))
	rp := tp["retryPolicy"]
	rp.Required = nil
	rp.AdditionalProperties = nil
	rp.Properties["maxRetries"].Minimum = jsonschema.Ptr(0.0)
	rp.Properties["maxRetries"].Maximum = jsonschema.Ptr(float64(skill.MaxRetries))
	rp.Properties["maxRetries"].Default = json.RawMessage("3")
	rp.Properties["backoffMs"].Minimum = jsonschema.Ptr(0.0)
	rp.Properties["backoffMs"].Maximum = jsonschema.Ptr(float64(skill.MaxBackoffMs))
	rp.Properties["backoffMs"].Default = json.RawMessage("100")
	p["parallel"].Default = json.RawMessage("false")
	return s, nil
}

func str(s *jsonschema.Schema, min, max int) {
	s.MinLength = jsonschema.Ptr(min)
	s.MaxLength = jsonschema.Ptr(max)
}

// nullable lets a property be null as well as its type (the seed writes
// null for absent values).
func nullable(s *jsonschema.Schema, typ string) {
	s.Type = ""
	s.Types = []string{"null", typ}
}
