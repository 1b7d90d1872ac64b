package plan

import (
	"encoding/json"

	"github.com/hearth-rpg/hearth/skill"
)

// Plan is a Plan JSON document (seed 001 §2.2.1).
type Plan struct {
	RequestID      string   `json:"requestId" jsonschema:"unique id of this plan, a UUID"`
	Narrative      string   `json:"narrative,omitempty" jsonschema:"narration to show the player before or while the tools run"`
	Tools          []Tool   `json:"tools" jsonschema:"the skill scripts to run; may be empty for a narration-only plan"`
	Parallel       bool     `json:"parallel" jsonschema:"if true, tools marked async whose dependencies are done may run at the same time"`
	DisabledSkills []string `json:"disabledSkills" jsonschema:"skills that failed earlier; do not use them"`
	Metadata       Metadata `json:"metadata"`
}

// Metadata places a plan in the replan loop.
type Metadata struct {
	GenerationAttempt int    `json:"generationAttempt" jsonschema:"attempt number in the replan loop, 1 to 5"`
	ParentPlanID      string `json:"parentPlanId" jsonschema:"requestId of the plan this one replaces, or null"`
}

// Tool is one skill invocation in a plan.
type Tool struct {
	ToolID       string             `json:"toolId" jsonschema:"unique id within the plan, used in dependencies"`
	ToolPath     string             `json:"toolPath" jsonschema:"the script to run: skills/<skill>/scripts/<script>"`
	Input        map[string]any     `json:"input" jsonschema:"JSON object passed to the script on stdin"`
	Dependencies []string           `json:"dependencies" jsonschema:"toolIds that must finish before this tool starts"`
	Required     bool               `json:"required" jsonschema:"if true (the default), failure skips the tools depending on this one and fails the plan"`
	Async        bool               `json:"async" jsonschema:"if true, may run at the same time as other async tools in a parallel plan"`
	RetryPolicy  *skill.RetryPolicy `json:"retryPolicy,omitempty" jsonschema:"retries after a failure; default 3 retries from 100 ms"`
	// TimeoutMs is Hearth's addition (seed 001 §2.5 lets the plan set the
	// per-skill timeout): 0 leaves it to the skill or the runner.
	TimeoutMs int `json:"timeoutMs,omitempty" jsonschema:"per-attempt timeout in milliseconds; 0 for the skill's default"`
}

// Skill returns the name of the skill the tool belongs to, from its
// toolPath; for a path of another shape, the path itself.
func (t *Tool) Skill() string {
	if name, _ := skill.SplitToolPath(t.ToolPath); name != "" {
		return name
	}
	return t.ToolPath
}

// UnmarshalJSON reads a tool with the seed's defaults: required is true
// unless given.
func (t *Tool) UnmarshalJSON(b []byte) error {
	type plain Tool
	p := plain{Required: true}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*t = Tool(p)
	return nil
}

// UnmarshalJSON reads a plan with the seed's defaults: generationAttempt
// is 1 unless given.
func (p *Plan) UnmarshalJSON(b []byte) error {
	type plain Plan
	q := plain{Metadata: Metadata{GenerationAttempt: 1}}
	if err := json.Unmarshal(b, &q); err != nil {
		return err
	}
	*p = Plan(q)
	return nil
}

// MarshalJSON writes parentPlanId as null when there is none, as the seed
// does.
func (m Metadata) MarshalJSON() ([]byte, error) {
	var parent *string
	if m.ParentPlanID != "" {
		parent = &m.ParentPlanID
	}
	return json.Marshal(struct {
		GenerationAttempt int     `json:"generationAttempt"`
		ParentPlanID      *string `json:"parentPlanId"`
	}{m.GenerationAttempt, parent})
}

// ToolIndex returns the index of the tool with the id, or -1.
func (p *Plan) ToolIndex(id string) int {
	for i := range p.Tools {
		if p.Tools[i].ToolID == id {
			return i
		}
	}
	return -1
}
