package main

import (
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/modelgm"
)

// The inspector shows each section with its tier and tokens, what the
// system prompt and tools cost, and what the budget dropped and why,
// lowest precedence first.
func TestContextShowsTiersAndDrops(t *testing.T) {
	pk := &contextpack.Packet{Viewer: contextpack.GM(), Budget: 4000, Tokens: 3990, System: 940, Tools: 1200,
		Sections: []contextpack.Section{
			{Name: "campaign", Tier: 1, Stable: true, Tokens: 120},
			{Name: "consequences", Tier: 2, Tokens: 235},
		},
		Dropped: []contextpack.Drop{
			{What: "section:characters", Tier: 3, Tokens: 144, Over: 60},
			{What: "fact:f1", Tier: 5, Tokens: 20, Over: 15},
			{What: "fact:f2", Tier: 5, Tokens: 25, Over: 15},
			{What: "section:summary", Tier: 6, Tokens: 300, Over: 290},
		}}
	var b strings.Builder
	err := printContext(&b, 3, "go north", turnPasses{Pipeline: "agentic", Calls: []modelgm.Call{{Pass: "agent:dm", System: "You are the GM.", Context: pk}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"context for gm_only: 3990 of 4000 tokens",
		"system prompt           940 tokens, counted first",
		"tool schemas           1200 tokens, counted first",
		"consequences  tier 2    235 tokens (state)",
		"summary (tier 6, 300 tokens) because budget 4000 exceeded by 290",
		"2 facts (tier 5, 20 tokens) because budget 4000 exceeded by 15",
		"characters (tier 3, 144 tokens) because budget 4000 exceeded by 60",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the inspector lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "summary (tier 6") > strings.Index(out, "characters (tier 3") {
		t.Errorf("drops not listed lowest precedence first:\n%s", out)
	}
}

// Offline, hearth context still shows what the world did on its own: the
// bundled campaign's clock ticked through a night's sleep and fired, and
// the dawn came during the rest after it.
func TestContextShowsTheWorldMoving(t *testing.T) {
	dir := t.TempDir()
	run(t, strings.NewReader("sleep\nrest\n"), "play", "--new", "--seed", "1", "--data", dir, "--campaign", saltmere)
	for turn, wants := range map[string][]string{
		"1": {`World: Clock "Next wreck": 4/4.`, "World: clock next_wreck is full: Out in the fog a bell clangs", "No model was called"},
		"2": {"World: scheduled event dawn: Dawn comes grey"},
	} {
		out := run(t, nil, "context", turn, "--data", dir)
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("hearth context %s lacks %q:\n%s", turn, want, out)
			}
		}
	}
}
