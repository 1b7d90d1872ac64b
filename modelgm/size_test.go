package modelgm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/tokens"
)

// callSize is the fixed part of one model call: the system prompt and
// the tool schemas, as cl100k tokens (the context packet comes on top,
// bounded by Config.Budget).
type callSize struct {
	pass                 string
	tools                int
	toolTokens, sysToken int
}

// callSizes measures every call the pipelines make per turn with the
// bundled campaign's documents attached.
func callSizes(t *testing.T) []callSize {
	t.Helper()
	c, err := campaign.LoadFS(context.Background(), hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{Narrator: Role{Provider: cassette.Script(), Model: "m"}, Documents: NewCampaignDocs(c)})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]any{"Title": c.Meta.Title, "Genre": "fantasy", "Tone": c.Meta.Tone, "Player": "Kestrel",
		"System": "d20", "Intents": "", "Words": 150}
	render := func(name string, extra map[string]any) int {
		tm, err := p.cfg.Prompts.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		d := map[string]any{}
		for k, v := range data {
			d[k] = v
		}
		for k, v := range extra {
			d[k] = v
		}
		s, err := tm.Render(d)
		if err != nil {
			t.Fatal(err)
		}
		return tok.Count(s)
	}
	var out []callSize
	for _, sub := range append([]subagent{general}, subagents...) {
		var uses []ToolUse
		tools := p.bind(nil, sub.tools, &uses)
		// The schemas as the request carries them; providers wrap each in
		// a few tokens of their own.
		var b strings.Builder
		for _, tl := range tools {
			j, _ := json.Marshal(tl.Tool)
			b.Write(j)
		}
		name := "agent:" + sub.name
		if sub.name == general.name {
			name += " (no subagents)"
		}
		out = append(out, callSize{pass: name, tools: len(tools), toolTokens: tok.Count(b.String()), sysToken: render(sub.prompt, nil)})
	}
	// The router has no tools; its column counts the JSON schema it answers in.
	out = append(out, callSize{pass: "router (agentic, before each turn outside a fight)", toolTokens: tok.Count(string(p.router.Schema())),
		sysToken: render("router", nil)})
	out = append(out, callSize{pass: "interpreter (multipass)", sysToken: render("interpreter", map[string]any{"Intents": intentList()})})
	return out
}

// The fixed part of each model call stays small enough for a small local
// model with an 8k context: at most 3,000 tokens of tools and prompt in a
// routed subagent (the context packet's 4,000 come on top).
func TestCallSizes(t *testing.T) {
	var table strings.Builder
	table.WriteString("| pass | tools | tool schema tokens | system prompt tokens |\n|---|---|---|---|\n")
	for _, s := range callSizes(t) {
		fmt.Fprintf(&table, "| %s | %d | %d | %d |\n", s.pass, s.tools, s.toolTokens, s.sysToken)
		if strings.HasPrefix(s.pass, "agent:") && !strings.Contains(s.pass, "no subagents") && s.toolTokens+s.sysToken > 3000 {
			t.Errorf("%s: %d tool and %d prompt tokens per call; keep a subagent's tools under 3,000 tokens with its prompt",
				s.pass, s.toolTokens, s.sysToken)
		}
	}
	t.Log("\n" + table.String())
}

// Every routed subagent can roll dice and make a check, and names only
// tools that exist.
func TestSubagentTools(t *testing.T) {
	ts, err := intentTools()
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range subagents {
		for _, want := range []string{"roll_dice", "ability_check"} {
			if !slices.Contains(sub.tools, want) {
				t.Errorf("%s has no %s", sub.name, want)
			}
		}
		for _, name := range sub.tools {
			if _, ok := ts[name]; !ok && !slices.Contains([]string{"check_schedule", "document_search", "document_get"}, name) {
				t.Errorf("%s offers %q, which is no tool", sub.name, name)
			}
		}
	}
}
