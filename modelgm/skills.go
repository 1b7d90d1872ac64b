package modelgm

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/host"
	"github.com/hearth-rpg/hearth/skill/replan"
)

// Skills is the Narratoria turn (seed 001 §2–§3): the player's words
// become a plan of skill invocations, run as a DAG with retries and
// replanning; the skills' state patches change the world through the
// turn, and their narrative — or, when every plan failed, the template
// narration of §2.3.4 — tells it. The player always gets a response.
type Skills struct {
	Loop *replan.Loop
	// Host, when set, lets the turn's scripts read memories, reputation
	// and perception through its API, with a grant that ends with the turn.
	Host *host.Server
}

// Name implements game.Pipeline.
func (p *Skills) Name() string { return "skills" }

// skillsRecord is what a skills turn keeps in its record.
type skillsRecord struct {
	Pass     string           `json:"pass"`
	Plan     any              `json:"plan,omitempty"`
	Attempts int              `json:"attempts"`
	Fallback bool             `json:"fallback,omitempty"`
	Disabled []string         `json:"disabled_skills,omitempty"`
	Records  []replan.Record  `json:"records,omitempty"`
	Patch    map[string]any   `json:"patch,omitempty"`
	UI       []map[string]any `json:"ui_events,omitempty"`
}

// Play implements game.Pipeline.
func (p *Skills) Play(ctx context.Context, t *game.Turn) error {
	state := game.SceneForChoices(t.World())
	// The storyteller grounds its narration in the place as written.
	if here, loc := t.World().Here(), state["location"]; here != nil && here.Description != "" {
		if m, ok := loc.(map[string]any); ok {
			m["description"] = here.Description
		}
	}
	if vars := t.World().Vars; len(vars) > 0 {
		state["vars"] = vars
	}
	if p.Host != nil {
		env, revoke := p.Host.Grant(newTurnStore(t), 5*time.Minute)
		defer revoke()
		ctx = skill.WithEnv(ctx, env)
	}
	out := p.Loop.Run(ctx, replan.Turn{Input: t.Input, State: state})
	rec := skillsRecord{Pass: "skills", Attempts: out.Attempts, Fallback: out.Fallback, Disabled: out.DisabledSkills, Records: out.Records}
	if out.Plan != nil {
		rec.Plan = out.Plan
	}
	if r := out.Result; r != nil && !out.Fallback {
		rec.Patch = r.MergedPatch
		if err := t.Patch(r.MergedPatch); err != nil {
			return err
		}
		for _, ui := range r.UIEvents() {
			b, _ := json.Marshal(ui)
			var m map[string]any
			if json.Unmarshal(b, &m) == nil {
				rec.UI = append(rec.UI, m)
			}
		}
	}
	_ = t.Record(rec)
	text := out.Narrative
	if text == "" {
		text = "Nothing comes of it."
	}
	t.Emit(text)
	// UI events a terminal cannot draw degrade to their text, or a
	// placeholder naming them (seed 001 §2.6.5).
	for _, ui := range rec.UI {
		payload, _ := ui["payload"].(map[string]any)
		if s, ok := payload["text"].(string); ok && s != "" {
			t.Emit("\n" + s)
		} else if name, _ := ui["event"].(string); name != "" && name != "narrative_choice" && name != "portrait" {
			// A portrait is kept in the state (portraits.<id>), which the
			// browser shows; a terminal has nothing to say of it.
			t.Emit("\n[" + name + "]")
		}
		if ui["event"] == "narrative_choice" {
			offerChoices(t, payload)
		}
	}
	return nil
}

// offerChoices turns a narrative_choice payload ({prompt, options: [{text}]}
// or options as strings) into the turn's choices.
func offerChoices(t *game.Turn, payload map[string]any) {
	var opts []string
	list, _ := payload["options"].([]any)
	if list == nil {
		list, _ = payload["choices"].([]any)
	}
	for _, o := range list {
		switch o := o.(type) {
		case string:
			opts = append(opts, o)
		case map[string]any:
			for _, k := range []string{"text", "label", "title"} {
				if s, ok := o[k].(string); ok && s != "" {
					opts = append(opts, s)
					break
				}
			}
		}
	}
	prompt, _ := payload["prompt"].(string)
	if len(opts) > 0 {
		t.Offer(prompt, opts)
	}
}
