package builtin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/builtin"
	"github.com/hearth-rpg/hearth/skill/host"
)

// seedStore is one playthrough's shared persistence behind the real host
// API: what the scripts read and store through it.
type seedStore struct {
	mu   sync.Mutex
	mems []host.NewMemory
}

func (s *seedStore) Recall(_ context.Context, q string, limit int) ([]host.Memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []host.Memory
	for i, m := range s.mems {
		if len(out) < limit {
			out = append(out, host.Memory{Turn: i + 1, Summary: m.Summary, Relevance: 0.92})
		}
	}
	return out, nil
}

func (s *seedStore) Remember(_ context.Context, m host.NewMemory) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mems = append(s.mems, m)
	return nil
}

func (s *seedStore) Reputation(f string) (int, bool) { return 80, f == "smiths_guild" }
func (s *seedStore) Perception(n string) (int, bool) { return 0, false }

// TestSeedScriptNames calls the bundled skills' scripts by the names seed
// 001 gives them, with the seed's example inputs: a skill or client
// written to the seed finds each script and gets the seed's shapes back.
func TestSeedScriptNames(t *testing.T) {
	set, _, err := skill.Discover("../../skills")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := host.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	store := &seedStore{}
	env, revoke := srv.Grant(store, time.Minute)
	defer revoke()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	tests := []struct {
		skill, script string
		input         string
		want          []string // in the NDJSON output
	}{
		{"dice-roller", "roll-dice", `{"formula": "1d20+5", "seed": 4}`, []string{`"lastRoll":{"dice":"1d20+5"`, `"event":"dice_roll"`, `"ok":true`}},
		{"dice-roller", "roll-dice", `{"formula": "1d20 + player.stats.dexterity", "item_context": "weapon.short_sword", "refs": {"player": {"stats": {"dexterity": 3}}}, "seed": 4}`,
			[]string{`"dice":"1d20+player.stats.dexterity"`, `"ok":true`}},
		{"memory", "store-memory", `{"summary": "Player helped blacksmith repair anvil", "characters": ["player", "blacksmith_aldric"], "location": "blacksmith_shop", "significance": "high"}`,
			[]string{`"ok":true`}},
		{"memory", "recall-memory", `{"query": "interactions with blacksmith", "limit": 3, "filters": {"location": "blacksmith_shop"}}`,
			[]string{`"memories":[{`, `"summary":"Player helped blacksmith repair anvil"`, `"relevance":0.92`, `"timestamp":`}},
		{"player-choices", "generate-choices", `{"scene": {"location": {"id": "forge", "name": "the forge"}, "present": [{"id": "gareth", "name": "Gareth", "perception": 45}]}}`,
			[]string{`"event":"narrative_choice"`, `Ask Gareth for help`}},
		{"player-choices", "evaluate-choice", `{"choice": "ask_help_gareth", "scene": {"location": {"id": "forge", "name": "the forge"}, "present": [{"id": "gareth", "name": "Gareth", "perception": 45}]}}`,
			[]string{`"event":"choice_evaluated"`, `"modifier":1`, `"lastChoice":{"id":"ask_help_gareth","modifier":1}`}},
		{"npc-perception", "initialize-perception", `{"npc": "blacksmith_gareth", "faction": "smiths_guild", "impression": 50, "seed": 1}`,
			[]string{`"npcs":{"blacksmith_gareth":{"perception":`, `faction 80, impression 50`}},
		{"npc-perception", "query-perception", `{"npc": "nobody"}`, []string{`"ok":false`}},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			if _, _, err := set.Resolve(skill.ToolPath(tt.skill, tt.script)); err != nil {
				t.Fatalf("the seed's script is not shipped: %v", err)
			}
			run, ok := builtin.Lookup(tt.skill)
			if !ok {
				t.Fatalf("no built-in %s", tt.skill)
			}
			doc, _ := json.Marshal(map[string]any{"requestId": "seed", "tool": tt.script, "input": json.RawMessage(tt.input)})
			var out, errb bytes.Buffer
			if code := run(bytes.NewReader(doc), &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %s:\n%s", w, out.String())
				}
			}
		})
	}
	if len(store.mems) != 1 || store.mems[0].Significance != 8 || len(store.mems[0].Characters) != 2 {
		t.Errorf("store-memory stored %+v", store.mems)
	}
}
