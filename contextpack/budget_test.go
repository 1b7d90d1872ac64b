package contextpack_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/tokens"
)

// filler is text of about n tokens, distinct per name.
func filler(name string, n int) string {
	return strings.TrimSpace(strings.Repeat(name+" ", n))
}

func keepOnly(names ...string) func(string) bool {
	return func(n string) bool { return slices.Contains(names, n) }
}

// The budget goes to sections by precedence, not by the order they come
// in: a tier-2 section is never dropped to make room for a tier-4 or
// tier-6 one, whichever comes first.
func TestBudgetHonoursPrecedence(t *testing.T) {
	w := saltmere(t)
	b := builder(t)
	tok, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	state := contextpack.Section{Name: "stats", Tier: contextpack.TierState, Text: filler("gauge", 300)}
	lore := contextpack.Section{Name: "lore", Tier: contextpack.TierContext, Text: filler("myth", 300)}
	memory := contextpack.Section{Name: "memories", Tier: contextpack.TierHistory, Text: filler("echo", 300)}
	size := tok.Count(state.Text) // the three cost the same
	keep := keepOnly("campaign", "state", "action", "stats", "lore", "memories")
	base := b.Build(contextpack.Input{World: w, Viewer: contextpack.GM(), Action: "look", Keep: keep, Budget: 100000})
	required := base.Tokens

	tests := []struct {
		name    string
		extra   []contextpack.Section
		room    int // tokens beyond the required sections
		kept    []string
		dropped []string
	}{
		{"all fit", []contextpack.Section{memory, lore, state}, 3*size + 10, []string{"memories", "lore", "stats"}, nil},
		{"history goes first", []contextpack.Section{memory, lore, state}, 2*size + 10, []string{"lore", "stats"}, []string{"memories"}},
		{"then context", []contextpack.Section{memory, lore, state}, size + 10, []string{"stats"}, []string{"lore", "memories"}},
		{"state goes last", []contextpack.Section{memory, lore, state}, size - 10, nil, []string{"stats", "lore", "memories"}},
		{"order does not matter", []contextpack.Section{state, lore, memory}, size + 10, []string{"stats"}, []string{"lore", "memories"}},
		{"a smaller later tier fills what is left", []contextpack.Section{memory, state,
			{Name: "lore", Tier: contextpack.TierContext, Text: filler("myth", 20)}}, size + 40, []string{"stats", "lore"}, []string{"memories"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			budget := required + tt.room
			p := b.Build(contextpack.Input{World: w, Viewer: contextpack.GM(), Action: "look", Keep: keep, Extra: tt.extra, Budget: budget})
			var kept, dropped []string
			for _, s := range p.Sections {
				if s.Name != "campaign" && s.Name != "state" && s.Name != "action" {
					kept = append(kept, s.Name)
				}
			}
			for _, d := range p.Dropped {
				dropped = append(dropped, strings.TrimPrefix(d.What, "section:"))
				if d.Over <= 0 || d.Tokens <= 0 || d.Tier == 0 {
					t.Errorf("drop %+v does not say why", d)
				}
			}
			slices.Sort(kept)
			slices.Sort(dropped)
			want, wantDropped := slices.Sorted(slices.Values(tt.kept)), slices.Sorted(slices.Values(tt.dropped))
			if !slices.Equal(kept, want) || !slices.Equal(dropped, wantDropped) {
				t.Errorf("kept %v dropped %v; want kept %v dropped %v", kept, dropped, want, wantDropped)
			}
			if p.Tokens > budget {
				t.Errorf("%d tokens over a budget of %d", p.Tokens, budget)
			}
		})
	}
}

// The invariant on the whole bundled campaign with many facts and turns:
// whatever is dropped did not fit beside what was kept of its own or
// higher precedence.
func TestNothingDroppedForLowerPrecedence(t *testing.T) {
	w := saltmere(t)
	addFacts(t, w, 300)
	b := builder(t)
	extra := []contextpack.Section{
		{Name: "lore: scene", Tier: contextpack.TierAuthored, Text: filler("fog", 400)},
		{Name: "callbacks", Tier: contextpack.TierContext, Text: filler("promise", 200)},
		{Name: "stats", Tier: contextpack.TierState, Text: filler("resolve", 150)},
	}
	for budget := 600; budget <= 5000; budget += 250 {
		p := b.Build(contextpack.Input{World: w, Viewer: contextpack.GM(), Action: "go north", Extra: extra, Recent: history(60),
			Summary: &contextpack.Summary{From: 1, To: 20, Text: filler("story", 100)}, System: filler("rule", 300), Budget: budget})
		for _, d := range p.Dropped {
			above := p.System + p.Tools
			for _, s := range p.Sections {
				if s.Tier <= d.Tier || s.Name == "campaign" || s.Name == "state" || s.Name == "action" {
					above += s.Tokens
				}
			}
			if strings.HasPrefix(d.What, "section:") && above+d.Tokens <= budget {
				t.Errorf("budget %d: %s (tier %d, %d tokens) dropped though it fits beside the %d tokens of higher precedence", budget, d.What, d.Tier, d.Tokens, above)
			}
		}
	}
}

// The system prompt and the tool schemas are spent before any section:
// with them, what fitted before is dropped, and the packet says what they
// cost.
func TestSystemPromptAndToolsCount(t *testing.T) {
	w := saltmere(t)
	b := builder(t)
	tok, err := tokens.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	system := "You are the game master. " + filler("rule", 900)
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"npc": map[string]any{"type": "string"}}})
	var tools []llm.Tool
	for i := range 20 {
		tools = append(tools, llm.Tool{Name: fmt.Sprintf("tool_%d", i), Description: "Does a thing in the world.", Parameters: schema})
	}
	memories := contextpack.Section{Name: "memories", Tier: contextpack.TierHistory, Text: filler("echo", 500)}
	in := contextpack.Input{World: w, Viewer: contextpack.GM(), Action: "look", Extra: []contextpack.Section{memories}, Budget: 100000}
	full := in
	full.System, full.Tools = system, tools
	in.Budget = b.Build(full).Tokens - 1 // all but one token fits with them; all fits without
	without := b.Build(in)
	if without.System != 0 || without.Tools != 0 || !slices.ContainsFunc(without.Sections, func(s contextpack.Section) bool { return s.Name == "memories" }) {
		t.Fatalf("without a system prompt: system %d, tools %d, sections %v", without.System, without.Tools, without.Sections)
	}
	in.System, in.Tools = system, tools
	with := b.Build(in)
	if with.System != tok.Count(system) || with.System < 900 {
		t.Errorf("the system prompt counts %d tokens, want %d", with.System, tok.Count(system))
	}
	if with.Tools < 20*10 {
		t.Errorf("20 tool schemas count %d tokens", with.Tools)
	}
	sum := with.System + with.Tools
	for _, s := range with.Sections {
		sum += s.Tokens
	}
	if with.Tokens != sum || with.Tokens > in.Budget {
		t.Errorf("packet %d tokens, parts sum to %d, budget %d", with.Tokens, sum, in.Budget)
	}
	if slices.ContainsFunc(with.Sections, func(s contextpack.Section) bool { return s.Name == "memories" }) ||
		!slices.ContainsFunc(with.Dropped, func(d contextpack.Drop) bool {
			return d.What == "section:memories" && d.Tier == contextpack.TierHistory
		}) {
		t.Errorf("with the system prompt and tools counted, memories still fit: %+v", with.Dropped)
	}
}

// Turn records written before drops had reasons still read.
func TestOldDroppedListsRead(t *testing.T) {
	var p contextpack.Packet
	if err := json.Unmarshal([]byte(`{"budget":10,"dropped":["fact:f1","section:lore"]}`), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Dropped) != 2 || p.Dropped[1].What != "section:lore" {
		t.Errorf("dropped %+v", p.Dropped)
	}
}

// Pending consequences, scheduled events and clocks reach the GM's
// packet with when they happen; never a player's.
func TestWorldMovesVisibleToTheGM(t *testing.T) {
	w := saltmere(t)
	b := builder(t)
	gm := b.Build(contextpack.Input{World: w, Viewer: contextpack.GM(), Action: "look"}).Text()
	for _, want := range []string{"Scheduled for Day 2, 06:00 (in 9h): Dawn comes", "Clock Next wreck: 0/4, ticks every 1h", "When the player speaks with Tobiah"} {
		if !strings.Contains(gm, want) {
			t.Errorf("the GM's packet lacks %q:\n%s", want, gm)
		}
	}
	player := b.Build(contextpack.Input{World: w, Viewer: contextpack.PlayerOf(w.Player), Action: "look"}).Text()
	for _, leak := range []string{"Scheduled for", "Clock Next wreck", "When the player speaks"} {
		if strings.Contains(player, leak) {
			t.Errorf("the player's packet has %q", leak)
		}
	}
}
