package modelgm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/structured"
	skillplan "github.com/hearth-rpg/hearth/skill/plan"
	"github.com/hearth-rpg/hearth/skill/replan"
)

// ModelPlanner generates Plan JSON with a model (seed 001 §2.2): the
// player's words, the session state, the skills with their health, the
// disabled skills and why the last plan failed go in; the answer is
// structured output checked against the Plan JSON schema and the plan
// rules (no cycles, known dependencies, no disabled skill), repaired once,
// else an error for the replan loop to count.
type ModelPlanner struct {
	Role Role
	// Guidance is the behavioural guidance of the active skills, from
	// their SKILL.md, for the planner's context.
	Guidance string

	once sync.Once
	spec *structured.Spec[skillplan.Plan]
	err  error
}

// Plan implements replan.Planner.
func (m *ModelPlanner) Plan(ctx context.Context, req replan.Request) (*skillplan.Plan, error) {
	m.once.Do(func() { m.spec, m.err = structured.New[skillplan.Plan]("plan") })
	if m.err != nil {
		return nil, m.err
	}
	spec := *m.spec
	spec.Check = func(p skillplan.Plan) error {
		if err := p.Validate(); err != nil {
			return err
		}
		if _, err := skillplan.Order(&p); err != nil {
			return err
		}
		for _, t := range p.Tools {
			if slices.Contains(req.DisabledSkills, t.Skill()) {
				return fmt.Errorf("tool %s uses %s, which is disabled", t.ToolID, t.Skill())
			}
		}
		return nil
	}
	skills, _ := json.MarshalIndent(req.Skills, "", " ")
	state, _ := json.Marshal(req.State)
	var sys strings.Builder
	sys.WriteString("You are the plan generator of a game master. Answer with one Plan JSON object and nothing else: " +
		"the skill scripts to run for the player's action (toolPath skills/<skill>/scripts/<script>), their inputs, " +
		"dependencies and a short narrative. Use only the skills listed; never a disabled one.\n\nSkills:\n")
	sys.Write(skills)
	if len(req.DisabledSkills) > 0 {
		fmt.Fprintf(&sys, "\n\nDisabled skills: %s.", strings.Join(req.DisabledSkills, ", "))
	}
	if m.Guidance != "" {
		fmt.Fprintf(&sys, "\n\nGuidance from the skills:\n%s", m.Guidance)
	}
	user := fmt.Sprintf("Player: %s\nState: %s\nAttempt %d of %d; parentPlanId %q.", req.Input, state, req.Attempt, replan.MaxAttempts, req.ParentPlanID)
	if req.LastError != "" {
		user += "\nThe last plan failed: " + req.LastError
	}
	p, _, err := spec.Call(ctx, m.Role.Provider, llm.Request{Model: m.Role.Model, Messages: []llm.Message{
		{Role: llm.System, Content: sys.String()}, {Role: llm.User, Content: user}}})
	if err != nil {
		return nil, fmt.Errorf("plan generation: %w", err)
	}
	p.Metadata.GenerationAttempt, p.Metadata.ParentPlanID = req.Attempt, req.ParentPlanID
	p.DisabledSkills = req.DisabledSkills
	return &p, nil
}
