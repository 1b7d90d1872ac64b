package modelgm_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/evaluate"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/modelgm"
)

// passServer speaks OpenAI's streaming chat format and answers as the
// multi-pass pipeline's passes would, telling them apart by their system
// prompts, with the usage OpenAI sends last. Each answer takes a few
// milliseconds, as a model's would.
func passServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		var system, last string
		size := 0
		for i, m := range body.Messages {
			size += len(m.Content)
			if i == 0 {
				system = m.Content
			}
			last = m.Content
		}
		var answer string
		switch {
		case strings.HasPrefix(system, "You read a player's words"):
			answer = `{"intents":[{"type":"look","args":{}}]}`
			if strings.Contains(last, "hm?") {
				answer = `{"intents":[],"reply":"What would you like to do?"}`
			}
		case strings.HasPrefix(system, "You plan"):
			answer = `{"beats":["the fog thickens"],"tension":""}`
		case strings.HasPrefix(system, "You keep the game's memory"):
			answer = "The hero looked around the quay."
		default:
			answer = "Fog rolls over the quay. Nell mends her nets and does not look up."
		}
		time.Sleep(3 * time.Millisecond)
		chunk, _ := json.Marshal(map[string]any{"id": "1", "object": "chat.completion.chunk", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": answer}, "finish_reason": "stop"}}})
		usage, _ := json.Marshal(map[string]any{"id": "1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": []any{},
			"usage": map[string]any{"prompt_tokens": size/4 + 1, "completion_tokens": len(answer)/4 + 1, "total_tokens": size/4 + len(answer)/4 + 2}})
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+string(chunk)+"\n\ndata: "+string(usage)+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A game played by the multi-pass pipeline over a model records each
// pass's tokens and time, and evaluation reports them per pass, with the
// interpreter's question counted as a clarification and the player's flag.
func TestEvaluateModelPasses(t *testing.T) {
	p, err := openai.New(passServer(t).URL+"/v1", "")
	if err != nil {
		t.Fatal(err)
	}
	s := newGame(t, p, modelgm.Config{Mode: modelgm.MultiPass, Plan: true})
	ctx := context.Background()
	for _, in := range []string{"look around", "hm?", "look around"} {
		if _, err := s.Act(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Flag(ctx, 3, "pat", "Nell ignored me twice"); err != nil {
		t.Fatal(err)
	}
	turns, err := s.Turns(ctx, 1, s.Turn())
	if err != nil {
		t.Fatal(err)
	}
	flags, err := s.Flags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := evaluate.Evaluate(evaluate.Input{Session: s.ID(), Turns: turns, Flags: flags})
	byName := map[string]evaluate.Pass{}
	for _, ps := range r.Passes {
		byName[ps.Name] = ps
	}
	for name, calls := range map[string]int{"interpreter": 3, "planner": 2, "narrator": 2} {
		ps := byName[name]
		if ps.Calls != calls || ps.PromptTokens.P50 == 0 || ps.PromptTokens.P99 < ps.PromptTokens.P50 ||
			ps.CompletionTokens.P50 == 0 || ps.Millis.P50 < 3 || ps.Errors != 0 {
			t.Errorf("%s: %+v, want %d calls with tokens and at least 3 ms each", name, ps, calls)
		}
	}
	if c := r.Clarification; c.N != 1 || c.Of != 3 || c.Why["not_understood"] != 1 {
		t.Errorf("clarification: %+v", c)
	}
	if len(r.Flags) != 1 || r.Flags[0].Turn != 3 || r.Flags[0].By != "pat" {
		t.Errorf("flags: %+v", r.Flags)
	}
	var out strings.Builder
	if err := r.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"interpreter", "planner", "narrator", "prompt tokens p50/p99", "latency ms p50/p99", "flagged by pat: Nell ignored me twice"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
}
