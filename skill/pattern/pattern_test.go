package pattern

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/plan"
	"github.com/hearth-rpg/hearth/skill/replan"
)

var installed = []skill.Summary{
	{Name: "dice-roller", Scripts: []string{"roll"}},
	{Name: "memory", Scripts: []string{"recall", "store"}},
	{Name: "storyteller", Scripts: []string{"narrate"}},
	{Name: "player-choices", Scripts: []string{"offer"}},
	{Name: "example-echo", Scripts: []string{"echo"}},
}

type toolSummary struct {
	id, path string
	input    map[string]any
	deps     []string
}

func summarize(p *plan.Plan) []toolSummary {
	var out []toolSummary
	for _, t := range p.Tools {
		out = append(out, toolSummary{t.ToolID, t.ToolPath, t.Input, t.Dependencies})
	}
	return out
}

func TestPatterns(t *testing.T) {
	tests := []struct {
		input string
		want  []toolSummary
	}{
		{"Roll 2d6 + 3 for damage", []toolSummary{{"roll", "skills/dice-roller/scripts/roll", map[string]any{"notation": "2d6+3"}, []string{}}}},
		{"roll the dice", []toolSummary{{"roll", "skills/dice-roller/scripts/roll", map[string]any{"notation": "1d20"}, []string{}}}},
		{"I attack the goblin", []toolSummary{
			{"attack", "skills/dice-roller/scripts/roll", map[string]any{"notation": "1d20 # attack"}, []string{}},
			{"damage", "skills/dice-roller/scripts/roll", map[string]any{"notation": "1d6 # damage"}, []string{"attack"}},
		}},
		{"Do I remember the innkeeper?", []toolSummary{{"recall", "skills/memory/scripts/recall", map[string]any{"query": "Do I remember the innkeeper?", "limit": 3}, []string{}}}},
		{"look around the cellar", []toolSummary{{"describe", "skills/storyteller/scripts/narrate", map[string]any{"action": "look around the cellar", "scene": "look around the cellar"}, []string{}}}},
		// The skill has no "generate" script: its first script is used.
		{"ask the guard about the gate", []toolSummary{{"choices", "skills/player-choices/scripts/offer", map[string]any{"situation": "ask the guard about the gate"}, []string{}}}},
		{"echo: hello there", []toolSummary{{"echo", "skills/example-echo/scripts/echo", map[string]any{"text": "hello there"}, []string{}}}},
		{"open the door", nil},
	}
	for _, tt := range tests {
		t.Run(tt.input, func(t *testing.T) {
			p, err := Planner{}.Plan(t.Context(), replan.Request{Input: tt.input, Skills: installed, Attempt: 1})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Validate(); err != nil {
				t.Fatalf("invalid plan: %v", err)
			}
			if got := summarize(p); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tools %+v\nwant %+v", got, tt.want)
			}
			if p.Narrative == "" {
				t.Error("no narrative")
			}
		})
	}
}

func TestPatternsCombine(t *testing.T) {
	p, _ := Planner{}.Plan(t.Context(), replan.Request{Input: "I attack and try to remember his name", Skills: installed, Attempt: 1})
	var ids []string
	for _, tl := range p.Tools {
		ids = append(ids, tl.ToolID)
		if !tl.Async {
			t.Errorf("%s is not async in a plan of independent groups", tl.ToolID)
		}
	}
	if !reflect.DeepEqual(ids, []string{"attack", "damage", "memory-recall"}) || !p.Parallel {
		t.Errorf("tools %v parallel %v", ids, p.Parallel)
	}
	if _, err := plan.Order(p); err != nil {
		t.Error(err)
	}
}

func TestPatternsRespectDisabledSkillsAndMetadata(t *testing.T) {
	req := replan.Request{Input: "roll 1d20", Skills: installed, DisabledSkills: []string{"dice-roller"}, ParentPlanID: "p1", Attempt: 2}
	p, _ := Planner{}.Plan(t.Context(), req)
	if len(p.Tools) != 0 || !strings.HasPrefix(p.Narrative, "You try another way") {
		t.Errorf("a disabled skill was used: %+v", p)
	}
	if p.Metadata != (plan.Metadata{GenerationAttempt: 2, ParentPlanID: "p1"}) || !reflect.DeepEqual(p.DisabledSkills, []string{"dice-roller"}) {
		t.Errorf("metadata %+v disabled %v", p.Metadata, p.DisabledSkills)
	}
	// A skill failed for the session is not chosen either, nor one that
	// is not installed.
	sick := append([]skill.Summary(nil), installed...)
	sick[1].Health = skill.PermanentFailure
	p, _ = Planner{}.Plan(t.Context(), replan.Request{Input: "remember the roll of 2d4", Skills: sick, Attempt: 1})
	if got := summarize(p); len(got) != 1 || got[0].id != "roll" {
		t.Errorf("tools %+v", got)
	}
	p, _ = Planner{}.Plan(t.Context(), replan.Request{Input: "roll", Attempt: 1})
	if len(p.Tools) != 0 {
		t.Errorf("planned an uninstalled skill: %+v", p.Tools)
	}
}

func TestNarrationOnly(t *testing.T) {
	for in, want := range map[string]string{
		"I open the door.": "You open the door. Nothing stands in your way.",
		"Open the door":    "You set out to open the door. Nothing stands in your way.",
		"":                 "The world waits for you to act.",
	} {
		p, _ := Planner{}.Plan(t.Context(), replan.Request{Input: in, Attempt: 1})
		if p.Narrative != want {
			t.Errorf("narrative for %q = %q, want %q", in, p.Narrative, want)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (Planner{}).Plan(ctx, replan.Request{}); err == nil {
		t.Error("planned for a canceled context")
	}
}

// FuzzPlan checks that whatever the player types, the planner returns a
// plan that validates and has an order.
func FuzzPlan(f *testing.F) {
	for _, s := range []string{"roll 3d6-2", "attack, remember, look, ask, echo x", "echo", "d%", "I", "\x00\xff"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, in string, attempt int) {
		attempt = 1 + (attempt%plan.MaxAttempts+plan.MaxAttempts)%plan.MaxAttempts
		p, err := Planner{}.Plan(context.Background(), replan.Request{Input: in, Skills: installed, Attempt: attempt})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("invalid plan for %q: %v", in, err)
		}
		if _, err := plan.Order(p); err != nil {
			t.Fatal(err)
		}
	})
}

// The characters the scene shows the player get their portraits looked
// up once each: present and not yet in vars.portraits (found, or "" for
// none fits); no one else, whatever the input.
func TestPortraitsOfThoseMet(t *testing.T) {
	withPortrait := append(installed[:len(installed):len(installed)], skill.Summary{Name: "portrait", Scripts: []string{"lookup-portrait", "portrait"}})
	state := func(portraits map[string]any, present ...string) map[string]any {
		var ps []any
		for _, id := range present {
			ps = append(ps, map[string]any{"id": id, "name": strings.ToUpper(id[:1]) + id[1:]})
		}
		return map[string]any{"present": ps, "vars": map[string]any{"portraits": portraits}}
	}
	tests := []struct {
		name   string
		input  string
		skills []skill.Summary
		state  map[string]any
		want   []string // the portrait tools' characters
	}{
		{"met, not yet looked up", "open the door", withPortrait, state(nil, "nell"), []string{"nell"}},
		{"beside another skill", "look around", withPortrait, state(nil, "nell", "tobiah"), []string{"nell", "tobiah"}},
		{"looked up before", "open the door", withPortrait, state(map[string]any{"nell": "/api/campaigns/x/assets/art/nell.png", "tobiah": ""}, "nell", "tobiah"), nil},
		{"only who is here", "ask about maren", withPortrait, state(map[string]any{"nell": ""}, "nell"), nil},
		{"no one here", "open the door", withPortrait, state(nil), nil},
		{"no portrait skill", "open the door", installed, state(nil, "nell"), nil},
		{"at most three a turn", "wait", withPortrait, state(nil, "a1", "b2", "c3", "d4"), []string{"a1", "b2", "c3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Planner{}.Plan(t.Context(), replan.Request{Input: tt.input, Skills: tt.skills, State: tt.state, Attempt: 1})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tl := range p.Tools {
				if tl.Skill() != "portrait" {
					continue
				}
				if tl.ToolPath != "skills/portrait/scripts/lookup-portrait" || tl.Required {
					t.Errorf("tool %+v: want an optional lookup-portrait", tl)
				}
				got = append(got, tl.Input["character"].(string))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("portraits looked up for %v, want %v", got, tt.want)
			}
			if p.Narrative == "" {
				t.Error("no narrative")
			}
		})
	}
}
