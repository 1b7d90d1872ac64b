package modelgm_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/prompt"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

// The prompts that end a turn on the player's situation (narrator@3 in
// the multi-pass pipeline, dm@3 in the agentic one) state the player
// character's stats, {player_stats}, so the openings a model offers can
// draw on them: the system prompt an OpenAI-compatible server receives
// holds them. Both are candidates: unpinned, the defaults go without.
func TestPromptsStatePlayerStats(t *testing.T) {
	tests := []struct {
		name   string
		mode   string
		pins   map[string]int
		script []string
		system func(reqs []chatRequest) string // the system prompt that should hold the stats
		stats  bool
	}{
		{"narrator@3", modelgm.MultiPass, map[string]int{"narrator": 3}, []string{`{"intents":[{"type":"look"}]}`, "You look around the quay."},
			func(reqs []chatRequest) string { return reqs[1].Messages[0].Content }, true},
		{"narrator@1, the default", modelgm.MultiPass, nil, []string{`{"intents":[{"type":"look"}]}`, "You look around the quay."},
			func(reqs []chatRequest) string { return reqs[1].Messages[0].Content }, false},
		{"dm@3", modelgm.Agentic, map[string]int{"dm": 3}, []string{"You look around the quay."},
			func(reqs []chatRequest) string { return reqs[0].Messages[0].Content }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
			if err != nil {
				t.Fatal(err)
			}
			st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "data"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			srv := &scriptedOpenAI{t: t}
			srv.script(tt.script...)
			hs := httptest.NewServer(srv)
			t.Cleanup(hs.Close)
			prov, err := openai.New(hs.URL+"/v1", "")
			if err != nil {
				t.Fatal(err)
			}
			reg, err := prompt.New("", tt.pins)
			if err != nil {
				t.Fatal(err)
			}
			p, err := modelgm.New(modelgm.Config{Mode: tt.mode, Prompts: reg, NoSubagents: true,
				Narrator: modelgm.Role{Provider: prov, Model: "m"}, SummariseEvery: -1})
			if err != nil {
				t.Fatal(err)
			}
			s, err := game.New(ctx, st, c, 7, game.Options{Pipeline: p})
			if err != nil {
				t.Fatal(err)
			}
			stats := game.PlayerStats(s.World())
			if !strings.Contains(stats, "hit points: ") || !strings.Contains(stats, "charisma: ") {
				t.Fatalf("the player's stats: %q", stats)
			}
			if _, err := s.Act(ctx, "I look around"); err != nil {
				t.Fatal(err)
			}
			reqs := srv.requests()
			if len(reqs) != len(tt.script) {
				t.Fatalf("%d requests, want %d", len(reqs), len(tt.script))
			}
			sys := tt.system(reqs)
			if got := strings.Contains(sys, stats); got != tt.stats {
				t.Errorf("the system prompt holds the stats: %v, want %v\nstats:\n%s\nprompt:\n%s", got, tt.stats, stats, sys)
			}
			if tt.stats && strings.Contains(sys, "{player_stats}") {
				t.Errorf("the placeholder went out unrendered:\n%s", sys)
			}
		})
	}
}
