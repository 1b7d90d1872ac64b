package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// passOllama is an Ollama server that answers each pass of the multi-pass
// pipeline from its own script, told apart by the system prompt; any
// other call (the element extractor) finds nothing.
func passOllama(t *testing.T, scripts map[string][]string) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			io.WriteString(w, `{"models":[{"name":"tiny:1b","model":"tiny:1b","details":{"parameter_size":"1B","quantization_level":"Q4_0"}}]}`)
			return
		case "/api/show":
			io.WriteString(w, `{"details":{"parameter_size":"1B","quantization_level":"Q4_0"},"model_info":{"general.architecture":"llama","llama.context_length":8192}}`)
			return
		case "/api/chat":
		default:
			http.NotFound(w, r)
			return
		}
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":"bad request"}`, 400)
			return
		}
		answer := `{"elements":[]}`
		mu.Lock()
		for prefix, script := range scripts {
			if strings.HasPrefix(req.Messages[0].Content, prefix) && len(script) > 0 {
				answer, scripts[prefix] = script[0], script[1:]
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, say(answer)+"\n")
		io.WriteString(w, `{"model":"tiny:1b","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":50,"eval_count":9}`+"\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The planner's question is printed and awaits the answer; the answer
// plays the action, and the inspector shows the validator's verdict, the
// question and what the narrator introduced.
func TestPlayMultipassAsksAndInspects(t *testing.T) {
	const question = "Which do you offer Nell: the coin purse or the rope?"
	srv := passOllama(t, map[string][]string{
		"You read a player's words": {
			`{"intents":[{"type":"talk","args":{"npc":"nell","topic":"trade"}}]}`,
			`{"intents":[{"type":"talk","args":{"npc":"nell","topic":"rope"}}]}`,
		},
		"You plan": {
			`{"beats":[],"tension":"","question":"` + question + `"}`,
			`{"beats":[],"tension":""}`,
		},
		"You are the narrator": {
			`{"narration":"Nell weighs the rope. A boy named Pip watches from a barrel.","introduced_npcs":[{"name":"Pip","description":"a barefoot boy"}]}`,
		},
	})
	dir := t.TempDir()
	out := run(t, strings.NewReader("I offer Nell the thing\nthe rope\n"), "play", "--new", "--seed", "5", "--data", dir,
		"--provider", "ollama", "--base-url", srv.URL, "--model", "tiny:1b", "--pipeline", "multipass", "--plan")
	if !strings.Contains(out, question) || !strings.Contains(out, "Nell weighs the rope.") {
		t.Fatalf("play output:\n%s", out)
	}
	s, db := onlySession(t, dir)
	if s.Turn() != 2 || s.World().Characters["pip"] == nil {
		t.Fatalf("turn %d, Pip %+v", s.Turn(), s.World().Characters["pip"])
	}
	db.Close()
	first := run(t, nil, "context", "1", "--data", dir)
	for _, want := range []string{"call 2: validator — the rules", "verdict: allowed; allowed talk", "Asked the player instead of playing: " + question} {
		if !strings.Contains(first, want) {
			t.Errorf("context 1 lacks %q:\n%s", want, first)
		}
	}
	second := run(t, nil, "context", "2", "--data", dir)
	if !strings.Contains(second, "introductions — the rules") || !strings.Contains(second, "applied character Pip") {
		t.Errorf("context 2:\n%s", second)
	}
}
