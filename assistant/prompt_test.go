package assistant

import (
	"encoding/json"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/prompt"
)

func promptAssistant(t *testing.T) *Assistant {
	t.Helper()
	r, err := prompt.New("", nil)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := r.Get("assistant")
	if err != nil {
		t.Fatal(err)
	}
	return &Assistant{o: Options{System: "Traveller"}, prompt: tmpl}
}

// A cached system prompt is the one rendering gives for the same
// request: whatever changes the prompt (name, role, tools, external
// tools, a client's system) gets a prompt of its own.
func TestSystemPromptCache(t *testing.T) {
	type call struct {
		user   auth.User
		req    Request
		role   access.Level
		tools  []agent.Tool
		schema json.RawMessage
	}
	ann := auth.User{ID: "u1", Name: "Ann", Role: access.GM}
	bob := auth.User{ID: "u2", Name: "Bob", Role: access.Player}
	dice := []agent.Tool{{Tool: llm.Tool{Name: "dice_roll"}}}
	both := []agent.Tool{{Tool: llm.Tool{Name: "dice_roll"}}, {Tool: llm.Tool{Name: "show_map"}, External: true}}
	calls := []call{
		{user: ann, role: access.GM, tools: dice},
		{user: bob, role: access.Player, tools: dice},
		{user: ann, role: access.Player, tools: dice},
		{user: ann, role: access.GM, tools: both},
		{user: ann, role: access.GM, tools: []agent.Tool{{Tool: llm.Tool{Name: "dice_roll"}, External: true}}},
		{user: ann, req: Request{UserContext: &UserContext{UserName: "Captain"}}, role: access.GM, tools: dice},
		{user: ann, role: access.GM, tools: dice, schema: json.RawMessage(`{"system":"Mongoose"}`)},
		{user: ann, role: access.Assistant, tools: nil},
	}
	as := promptAssistant(t)
	seen := map[string]int{}
	for round := range 3 { // the later rounds come from the cache
		for i, c := range calls {
			got, err := as.systemPrompt(c.user, c.req, c.role, c.tools, c.schema)
			if err != nil {
				t.Fatal(err)
			}
			want, err := promptAssistant(t).systemPrompt(c.user, c.req, c.role, c.tools, c.schema)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("round %d, call %d: got\n%s\nwant\n%s", round, i, got, want)
			}
			if j, ok := seen[got]; ok && j != i {
				t.Fatalf("calls %d and %d got the same prompt", j, i)
			}
			seen[got] = i
		}
	}
	if n := len(as.prompts.m); n != len(calls)-1 {
		t.Errorf("%d prompts cached, want %d (all but the client's system)", n, len(calls)-1)
	}
}
