package pattern

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/plan"
	"github.com/hearth-rpg/hearth/skill/replan"
)

// Planner is the pattern planner. The zero value is ready to use.
type Planner struct{}

// rule maps input matching re to tools of one skill.
type rule struct {
	name      string
	re        *regexp.Regexp
	skill     string
	script    string // preferred; the skill's first script if it has no such one
	narrative string
	tools     func(input string, script string) []plan.Tool
}

var (
	notation = regexp.MustCompile(`(?i)\b\d*d(?:\d+|%|F)(?:\s*[+-]\s*\d+)?\b`)
	echoWord = regexp.MustCompile(`(?i)^.*?\becho\b[:,]?\s*`)
	iVerb    = regexp.MustCompile(`^(?i:i)\s+`)
	rules    = []rule{
		{
			name: "dice", re: regexp.MustCompile(`(?i)\b(?:roll|dice|die)\b|\b\d*d(?:4|6|8|10|12|20|100)\b`),
			skill: "dice-roller", script: "roll", narrative: "The dice tumble across the table.",
			tools: func(in, script string) []plan.Tool {
				n := notation.FindString(in)
				if n == "" {
					n = "1d20"
				}
				return []plan.Tool{tool("roll", "dice-roller", script, map[string]any{"notation": strings.ReplaceAll(n, " ", "")}, true)}
			},
		},
		{
			name: "attack", re: regexp.MustCompile(`(?i)\b(?:attack|strike|stab|slash|shoot|fight|hit)\b`),
			skill: "dice-roller", script: "roll", narrative: "You commit to the attack.",
			tools: func(_, script string) []plan.Tool {
				hit := tool("attack", "dice-roller", script, map[string]any{"notation": "1d20 # attack"}, true)
				dmg := tool("damage", "dice-roller", script, map[string]any{"notation": "1d6 # damage"}, true)
				dmg.Dependencies = []string{"attack"}
				return []plan.Tool{hit, dmg}
			},
		},
		{
			name: "memory", re: regexp.MustCompile(`(?i)\b(?:recall|remember|remind)\b`),
			skill: "memory", script: "recall", narrative: "You search your memory.",
			tools: func(in, script string) []plan.Tool {
				return []plan.Tool{tool("recall", "memory", script, map[string]any{"query": in, "limit": 3}, false)}
			},
		},
		{
			name: "look", re: regexp.MustCompile(`(?i)\b(?:look|examine|describe|inspect|search|observe)\b`),
			skill: "storyteller", script: "narrate", narrative: "You take in your surroundings.",
			tools: func(in, script string) []plan.Tool {
				return []plan.Tool{tool("describe", "storyteller", script, map[string]any{"action": in, "scene": in}, false)}
			},
		},
		{
			name: "talk", re: regexp.MustCompile(`(?i)\b(?:talk|ask|speak|persuade|greet|convince|tell)\b`),
			skill: "player-choices", script: "choose", narrative: "You choose your words.",
			tools: func(in, script string) []plan.Tool {
				return []plan.Tool{tool("choices", "player-choices", script, map[string]any{"situation": in}, false)}
			},
		},
		{
			name: "echo", re: regexp.MustCompile(`(?i)\becho\b`),
			skill: "example-echo", script: "echo", narrative: "Your words come back to you.",
			tools: func(in, script string) []plan.Tool {
				text := strings.TrimSpace(echoWord.ReplaceAllString(in, ""))
				if text == "" {
					text = in
				}
				return []plan.Tool{tool("echo", "example-echo", script, map[string]any{"text": text}, true)}
			},
		},
	}
)

func tool(id, sk, script string, input map[string]any, required bool) plan.Tool {
	return plan.Tool{ToolID: id, ToolPath: skill.ToolPath(sk, script), Input: input, Required: required, Dependencies: []string{}}
}

// Plan returns a plan for the request: the tools of every rule whose
// pattern matches the input and whose skill is installed, has a script and
// is not disabled; independent rules run in parallel. Without any, a
// narration-only plan.
func (Planner) Plan(ctx context.Context, req replan.Request) (*plan.Plan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := &plan.Plan{
		RequestID:      replan.NewID(),
		Tools:          []plan.Tool{},
		DisabledSkills: slices.Clone(req.DisabledSkills),
		Metadata:       plan.Metadata{GenerationAttempt: max(req.Attempt, 1), ParentPlanID: req.ParentPlanID},
	}
	in := strings.TrimSpace(req.Input)
	used := map[string]bool{}
	for _, r := range rules {
		if used[r.skill] || !r.re.MatchString(in) { // one rule per skill: the first that matches
			continue
		}
		script, ok := available(req, r.skill, r.script)
		if !ok {
			continue
		}
		ts := r.tools(in, script)
		if (r.skill == "player-choices" || r.skill == "storyteller") && req.State != nil {
			ts[0].Input["scene"] = req.State // the choices are built from the scene the game describes
		}
		if len(p.Tools) > 0 {
			for i := range ts {
				ts[i].ToolID = r.name + "-" + ts[i].ToolID
				for j, d := range ts[i].Dependencies {
					ts[i].Dependencies[j] = r.name + "-" + d
				}
			}
		}
		if p.Narrative == "" {
			p.Narrative = r.narrative
		}
		p.Tools = append(p.Tools, ts...)
		used[r.skill] = true
	}
	if len(p.Tools) == 0 {
		p.Narrative = narrate(in, req.Attempt)
	}
	if ts := portraitTools(req); len(ts) > 0 {
		p.Tools = append(p.Tools, ts...)
		used["portrait"] = true
	}
	if len(used) > 1 {
		p.Parallel = true
		for i := range p.Tools {
			p.Tools[i].Async = true
		}
	}
	return p, nil
}

// maxPortraits bounds the portraits looked up in one turn; the rest come
// in the turns after.
const maxPortraits = 3

// portraitTools look up the art of the characters the scene shows the
// player (the state's "present": those met where the player stands) that
// have no entry in the state's vars.portraits yet, so each is looked up
// once per game; no one the player has not met is ever looked up.
func portraitTools(req replan.Request) []plan.Tool {
	script, ok := available(req, "portrait", "lookup-portrait")
	if !ok || req.State == nil {
		return nil
	}
	present, _ := req.State["present"].([]any)
	if present == nil {
		if ps, ok := req.State["present"].([]map[string]any); ok {
			for _, p := range ps {
				present = append(present, p)
			}
		}
	}
	vars, _ := req.State["vars"].(map[string]any)
	have, _ := vars["portraits"].(map[string]any)
	var out []plan.Tool
	for _, p := range present {
		c, _ := p.(map[string]any)
		id, _ := c["id"].(string)
		if id == "" || !toolIDSafe.MatchString(id) {
			continue
		}
		if _, ok := have[id]; ok {
			continue
		}
		in := map[string]any{"character": id}
		if name, _ := c["name"].(string); name != "" {
			in["name"] = name
		}
		out = append(out, tool("portrait-"+id, "portrait", script, in, false))
		if len(out) == maxPortraits {
			break
		}
	}
	return out
}

var toolIDSafe = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// available returns the script to use of the named skill, if the skill is
// installed with scripts, not disabled and not failed for the session.
func available(req replan.Request, name, preferred string) (string, bool) {
	if slices.Contains(req.DisabledSkills, name) {
		return "", false
	}
	for _, s := range req.Skills {
		if s.Name != name || len(s.Scripts) == 0 || s.Health == skill.PermanentFailure {
			continue
		}
		if slices.Contains(s.Scripts, preferred) {
			return preferred, true
		}
		return s.Scripts[0], true
	}
	return "", false
}

// narrate is the narration of a plan without tools.
func narrate(in string, attempt int) string {
	if r := []rune(in); len(r) > 200 {
		in = string(r[:200]) + "…"
	}
	in = strings.TrimRight(in, ".!? ")
	switch {
	case in == "":
		return "The world waits for you to act."
	case attempt > 1:
		return fmt.Sprintf("You try another way: %s.", in)
	case iVerb.MatchString(in):
		return fmt.Sprintf("You %s. Nothing stands in your way.", iVerb.ReplaceAllString(in, ""))
	}
	return fmt.Sprintf("You set out to %s. Nothing stands in your way.", lowerFirst(in))
}

func lowerFirst(s string) string {
	if len(s) > 1 && s[0] >= 'A' && s[0] <= 'Z' && !(s[1] >= 'A' && s[1] <= 'Z') {
		return strings.ToLower(s[:1]) + s[1:]
	}
	return s
}
