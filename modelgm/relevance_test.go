package modelgm_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
	"github.com/hearth-rpg/hearth/world"
)

const hush = "The taproom falls silent as you come back in."

// gmServer speaks OpenAI's streaming wire format: the trigger check (told
// by its system prompt) gets checks in turn, every other call narration.
// It keeps the user messages of the trigger checks.
func gmServer(t *testing.T, checks ...string) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		answer := "Fog curls along the quay; somewhere a rope creaks."
		if strings.Contains(body.Messages[0].Content, "Some consequences wait for a situation described in words") {
			mu.Lock()
			for _, m := range body.Messages {
				if m.Role == "user" {
					seen = append(seen, m.Content)
					break
				}
			}
			answer = `{"fired":[]}`
			if len(checks) > 0 {
				answer, checks = checks[0], checks[1:]
			}
			mu.Unlock()
		}
		chunk, _ := json.Marshal(map[string]any{"id": "1", "object": "chat.completion.chunk", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": answer}, "finish_reason": "stop"}}})
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+string(chunk)+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }
}

// The model decides a trigger in words: it fires when the model says the
// situation arose — here from the player's words and the narration alone,
// which the offline check could not see — and the check is kept as a pass.
// With no such trigger pending, no check is made; when the check fails,
// the offline check decides.
func TestModelTriggerCheck(t *testing.T) {
	tests := []struct {
		name      string
		freeText  bool
		checks    []string
		input     string
		fired     bool
		asked     int
		fallback  bool
		wantInput string
	}{
		{"none pending, no call", false, nil, "I head back into the tavern", false, 0, false, ""},
		{"the model says no", true, []string{`{"fired":[]}`}, "I look at the fog", false, 1, false, "Player's words: I look at the fog"},
		{"the model says yes", true, []string{`{"fired":[{"id":"tavern_hush","why":"the player walks back into the tavern"}]}`},
			"I head back into the tavern", true, 1, false, "- id tavern_hush: when the player returns to the tavern"},
		{"an id not listed, twice", true, []string{`{"fired":[{"id":"gandalf"}]}`, `{"fired":[{"id":"gandalf"}]}`},
			"I head back into the tavern", false, 2, true, "Player's words: I head back into the tavern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			srv, seen := gmServer(t, tt.checks...)
			model, err := openai.New(srv.URL+"/v1", "")
			if err != nil {
				t.Fatal(err)
			}
			c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
			if err != nil {
				t.Fatal(err)
			}
			if tt.freeText {
				c.Consequences = append(c.Consequences, world.Consequence{ID: "tavern_hush",
					Trigger: "the player returns to the tavern", Description: hush})
			}
			st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "data"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			p, err := modelgm.New(modelgm.Config{Mode: modelgm.Agentic, Narrator: modelgm.Role{Provider: model, Model: "m"}})
			if err != nil {
				t.Fatal(err)
			}
			s, err := game.New(ctx, st, c, 7, game.Options{Pipeline: p})
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Act(ctx, tt.input)
			if err != nil {
				t.Fatal(err)
			}
			got := tt.freeText && s.World().Consequences["tavern_hush"].Triggered
			if got != tt.fired || strings.Contains(r.Narrative, hush) != tt.fired {
				t.Errorf("fired %v, want %v; narrative:\n%s", got, tt.fired, r.Narrative)
			}
			asked := seen()
			var checks []modelgm.Call
			for _, c := range calls(t, s) {
				if c.Pass == "relevance" {
					checks = append(checks, c)
				}
			}
			if tt.asked == 0 {
				if len(asked) != 0 || len(checks) != 0 {
					t.Fatalf("no trigger pending, yet the model was asked %d times", len(asked))
				}
				return
			}
			if len(asked) != tt.asked || len(checks) != 1 || !strings.Contains(asked[0], tt.wantInput) {
				t.Fatalf("asked %d times (want %d), %d passes recorded; first question:\n%s", len(asked), tt.asked, len(checks), strings.Join(asked, "\n---\n"))
			}
			if (checks[0].Fallback != "") != tt.fallback {
				t.Errorf("the pass fell back %q, want a fallback %v", checks[0].Fallback, tt.fallback)
			}
		})
	}
}
