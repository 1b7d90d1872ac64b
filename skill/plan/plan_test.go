package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/skill"
)

// seedPlan is the Plan JSON structure of seed 001 §2.2.1 with values.
const seedPlan = `{
  "requestId": "5f0c6a1e-8a2b-4c1d-9e7f-0a1b2c3d4e5f",
  "narrative": "You steady your hand.",
  "tools": [
    {
      "toolId": "roll",
      "toolPath": "skills/dice-roller/scripts/roll",
      "input": {"notation": "1d20+5"},
      "dependencies": [],
      "required": true,
      "async": false,
      "retryPolicy": {"maxRetries": 3, "backoffMs": 100}
    },
    {"toolId": "narrate", "toolPath": "skills/storyteller/scripts/narrate", "dependencies": ["roll"], "futureField": 1}
  ],
  "parallel": false,
  "disabledSkills": [],
  "metadata": {"generationAttempt": 1, "parentPlanId": null},
  "comment": "unknown fields are ignored"
}`

func TestParseSeedPlan(t *testing.T) {
	p, err := Parse([]byte(seedPlan))
	if err != nil {
		t.Fatal(err)
	}
	want := &Plan{
		RequestID: "5f0c6a1e-8a2b-4c1d-9e7f-0a1b2c3d4e5f",
		Narrative: "You steady your hand.",
		Tools: []Tool{
			{ToolID: "roll", ToolPath: "skills/dice-roller/scripts/roll", Input: map[string]any{"notation": "1d20+5"},
				Dependencies: []string{}, Required: true, RetryPolicy: &skill.RetryPolicy{MaxRetries: 3, BackoffMs: 100}},
			{ToolID: "narrate", ToolPath: "skills/storyteller/scripts/narrate", Dependencies: []string{"roll"}, Required: true},
		},
		DisabledSkills: []string{},
		Metadata:       Metadata{GenerationAttempt: 1},
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", p, want)
	}
	if p.Tools[1].Skill() != "storyteller" {
		t.Errorf("Skill() = %q", p.Tools[1].Skill())
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"parentPlanId":null`) {
		t.Errorf("marshalled metadata without a null parentPlanId: %s", b)
	}
	again, err := Parse(b)
	if err != nil || !reflect.DeepEqual(again, p) {
		t.Errorf("round trip = %+v, %v", again, err)
	}
}

func TestParseDefaults(t *testing.T) {
	p, err := Parse([]byte(`{"requestId":"r","tools":[{"toolId":"a","toolPath":"skills/x/scripts/y","required":false,"input":null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Tools[0].Required || p.Metadata.GenerationAttempt != 1 || p.Parallel {
		t.Errorf("defaults: %+v", p)
	}
	p, err = Parse([]byte(`{"requestId":"r","tools":[],"narrative":null,"metadata":{"generationAttempt":3,"parentPlanId":"p0"}}`))
	if err != nil || p.Metadata != (Metadata{GenerationAttempt: 3, ParentPlanID: "p0"}) {
		t.Errorf("narration-only plan: %+v, %v", p, err)
	}
}

func TestParseErrors(t *testing.T) {
	tool := func(extra string) string {
		return `{"requestId":"r","tools":[{"toolId":"a","toolPath":"skills/x/scripts/y"` + extra + `}]}`
	}
	tests := []struct{ name, src, field, msg string }{
		{"not json", `{"requestId":`, "", "not JSON: line 1"},
		{"array", `[]`, "", "a plan is a JSON object"},
		{"no requestId", `{"tools":[]}`, "", "requestId"},
		{"no tools", `{"requestId":"r"}`, "", "tools"},
		{"tools not array", `{"requestId":"r","tools":{}}`, "tools", "type"},
		{"empty requestId", `{"requestId":"","tools":[]}`, "requestId", "minLength"},
		{"no toolPath", `{"requestId":"r","tools":[{"toolId":"a"}]}`, "tools[]", "toolPath"},
		{"toolId number", `{"requestId":"r","tools":[{"toolId":1,"toolPath":"p"}]}`, "tools[].toolId", "type"},
		{"input array", tool(`,"input":[1]`), "tools[].input", "type"},
		{"maxRetries too high", tool(`,"retryPolicy":{"maxRetries":11}`), "tools[].retryPolicy.maxRetries", "maximum"},
		{"negative backoff", tool(`,"retryPolicy":{"backoffMs":-1}`), "tools[].retryPolicy.backoffMs", "minimum"},
		{"attempt 6", `{"requestId":"r","tools":[],"metadata":{"generationAttempt":6}}`, "metadata.generationAttempt", "maximum"},
		{"fractional attempt", `{"requestId":"r","tools":[],"metadata":{"generationAttempt":1.5}}`, "metadata.generationAttempt", "type"},
		{"duplicate toolId", `{"requestId":"r","tools":[{"toolId":"a","toolPath":"p"},{"toolId":"a","toolPath":"q"}]}`, "tools[1].toolId", "also the id of tools[0]"},
		{"unknown dependency", tool(`,"dependencies":["b"]`), "tools[0].dependencies[0]", `no tool has the id "b" (have: a)`},
		{"dependency twice", `{"requestId":"r","tools":[{"toolId":"a","toolPath":"p"},{"toolId":"b","toolPath":"p","dependencies":["a","a"]}]}`, "tools[1].dependencies[1]", "listed twice"},
		{"too many tools", `{"requestId":"r","tools":[` + strings.Repeat(`{"toolId":"a","toolPath":"p"},`, MaxTools) + `{"toolId":"z","toolPath":"p"}]}`, "tools", "maxItems"},
		{"too large", `{"requestId":"` + strings.Repeat("x", MaxSize) + `"}`, "", "the limit is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Parse error = %v, want *ValidationError", err)
			}
			if ve.Field != tt.field || !strings.Contains(ve.Msg, tt.msg) {
				t.Errorf("error field %q msg %q, want field %q containing %q", ve.Field, ve.Msg, tt.field, tt.msg)
			}
		})
	}
}

func TestValidateBuiltPlans(t *testing.T) {
	ok := &Plan{RequestID: "r", Metadata: Metadata{GenerationAttempt: 1}, Tools: []Tool{{ToolID: "a", ToolPath: "p"}}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*Plan{
		"zero attempt": {RequestID: "r"},
		"no id":        {Metadata: Metadata{GenerationAttempt: 1}},
		"bad retry":    {RequestID: "r", Metadata: Metadata{GenerationAttempt: 1}, Tools: []Tool{{ToolID: "a", ToolPath: "p", RetryPolicy: &skill.RetryPolicy{MaxRetries: 99}}}},
		"bad timeout":  {RequestID: "r", Metadata: Metadata{GenerationAttempt: 1}, Tools: []Tool{{ToolID: "a", ToolPath: "p", TimeoutMs: -1}}},
	} {
		if p.Validate() == nil {
			t.Errorf("%s: Validate accepted %+v", name, p)
		}
	}
}

func TestSchemaJSON(t *testing.T) {
	b, err := SchemaJSON()
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s["required"]) != "[requestId tools]" {
		t.Errorf("required = %v", s["required"])
	}
	tools := s["properties"].(map[string]any)["tools"].(map[string]any)
	items := tools["items"].(map[string]any)
	if fmt.Sprint(items["required"]) != "[toolId toolPath]" || tools["maxItems"] != float64(MaxTools) {
		t.Errorf("tools schema = %v", tools)
	}
	if !strings.Contains(string(b), `"description": "toolIds that must finish before this tool starts"`) {
		t.Error("schema lacks the field descriptions a model needs")
	}
	// Changing the returned schema must not change the one Parse uses.
	sc, _ := Schema()
	sc.Required = nil
	if _, err := Parse([]byte(`{"tools":[]}`)); err == nil {
		t.Error("mutating Schema() changed validation")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(seedPlan))
	f.Add([]byte(`{"requestId":"r","tools":[{"toolId":"a","toolPath":"p","dependencies":["a"]}]}`))
	f.Add([]byte(`{"requestId":"r","tools":[{"toolId":"a","toolPath":"p","dependencies":["b"]},{"toolId":"b","toolPath":"p","dependencies":["a"]}]}`))
	f.Add([]byte(`{"requestId":"r","tools":null,"metadata":null,"narrative":null}`))
	f.Add([]byte(`{"requestId":"r","tools":[{"toolId":"a","toolPath":"p","retryPolicy":{"maxRetries":10,"backoffMs":60000}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v is not a *ValidationError", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Parse accepted a plan Validate rejects: %v", err)
		}
		order, err := Order(p)
		if err != nil {
			var ce *CycleError
			if !errors.As(err, &ce) || len(ce.Cycle) == 0 {
				t.Fatalf("Order error %v", err)
			}
			checkCycle(t, p, ce.Cycle)
			return
		}
		checkOrder(t, p, order)
		b2, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse(b2)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", b2, err)
		}
		if b3, _ := json.Marshal(again); string(b3) != string(b2) {
			t.Fatalf("round trip changed the plan:\n%s\n%s", b2, b3)
		}
	})
}

// checkOrder fails unless order lists every tool once, after its
// dependencies.
func checkOrder(t *testing.T, p *Plan, order []int) {
	t.Helper()
	if len(order) != len(p.Tools) {
		t.Fatalf("order has %d of %d tools", len(order), len(p.Tools))
	}
	pos := map[string]int{}
	for k, i := range order {
		pos[p.Tools[i].ToolID] = k
	}
	for _, i := range order {
		for _, d := range p.Tools[i].Dependencies {
			if pos[d] >= pos[p.Tools[i].ToolID] {
				t.Fatalf("%s is ordered before its dependency %s", p.Tools[i].ToolID, d)
			}
		}
	}
}

// checkCycle fails unless each member depends on the next.
func checkCycle(t *testing.T, p *Plan, cycle []string) {
	t.Helper()
	for k, id := range cycle {
		next := cycle[(k+1)%len(cycle)]
		i := p.ToolIndex(id)
		if i < 0 || !contains(p.Tools[i].Dependencies, next) {
			t.Fatalf("cycle %v: %s does not depend on %s", cycle, id, next)
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
