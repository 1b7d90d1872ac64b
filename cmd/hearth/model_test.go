package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeOllama is a local server speaking Ollama's native API: it lists one
// model, and answers chats from a script, one NDJSON stream per call.
func fakeOllama(t *testing.T, script []string) *httptest.Server {
	var mu sync.Mutex
	next := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/api/tags":
			io.WriteString(w, `{"models":[{"name":"tiny:1b","model":"tiny:1b","details":{"parameter_size":"1B","quantization_level":"Q4_0"}}]}`)
		case "/api/show":
			io.WriteString(w, `{"details":{"parameter_size":"1B","quantization_level":"Q4_0"},"model_info":{"general.architecture":"llama","llama.context_length":8192}}`)
		case "/api/chat":
			var req struct {
				Model  string `json:"model"`
				Stream *bool  `json:"stream"`
			}
			if err := json.Unmarshal(body, &req); err != nil || req.Model != "tiny:1b" {
				http.Error(w, `{"error":"bad request"}`, 400)
				return
			}
			mu.Lock()
			line := script[min(next, len(script)-1)]
			next++
			mu.Unlock()
			w.Header().Set("Content-Type", "application/x-ndjson")
			io.WriteString(w, line+"\n")
			io.WriteString(w, `{"model":"tiny:1b","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":50,"eval_count":9}`+"\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func toolCall(name, args string) string {
	return fmt.Sprintf(`{"model":"tiny:1b","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":%q,"arguments":%s}}]},"done":false}`, name, args)
}

func say(text string) string {
	b, _ := json.Marshal(text)
	return fmt.Sprintf(`{"model":"tiny:1b","message":{"role":"assistant","content":%s},"done":false}`, b)
}

// A game played by a model over HTTP, recorded, inspected and replayed
// from the cassette without the model.
func TestPlayWithModelRecordInspectReplay(t *testing.T) {
	srv := fakeOllama(t, []string{
		say(`{"agent":"exploration"}`), // the router's pick
		toolCall("move", `{"destination":"north"}`),
		say("You shoulder into the Drowned Lantern; the talk stops."),
	})
	dir := t.TempDir()
	tape := filepath.Join(dir, "tape.jsonl")
	out := run(t, strings.NewReader("go north\n"), "play", "--new", "--seed", "5", "--data", dir,
		"--provider", "ollama", "--base-url", srv.URL, "--model", "tiny:1b", "--pipeline", "agentic", "--record", tape)
	if !strings.Contains(out, "You shoulder into the Drowned Lantern") {
		t.Fatalf("play output:\n%s", out)
	}
	s, db := onlySession(t, dir)
	if s.World().PC().Location != "tavern" {
		t.Fatalf("the model's move was not resolved: at %s", s.World().PC().Location)
	}
	id := s.ID()
	db.Close()

	models := run(t, nil, "models", "--provider", "ollama", "--base-url", srv.URL)
	if !strings.Contains(models, "tiny:1b") || !strings.Contains(models, "8192") {
		t.Fatalf("models:\n%s", models)
	}

	ctxOut := run(t, nil, "context", "1", "--data", dir)
	for _, want := range []string{"router (router@1)", "agent:exploration (exploration@2)", "ollama tiny:1b", "campaign", "tier 1", "state", "action", "tool move"} {
		if !strings.Contains(ctxOut, want) {
			t.Errorf("context output lacks %q:\n%s", want, ctxOut)
		}
	}

	srv.Close() // the model is gone; the cassette answers
	if b, err := os.ReadFile(tape); err != nil || strings.Count(string(b), "\n") < 2 {
		t.Fatalf("cassette: %v\n%s", err, b)
	}
	rep := run(t, nil, "replay", id, "--data", dir, "--cassette", tape, "--pipeline", "agentic")
	if !strings.Contains(rep, "same narration; same effects") || !strings.Contains(rep, "1 with the same narration") ||
		!strings.Contains(rep, "callback rate: n/a originally, n/a replayed.") {
		t.Fatalf("replay:\n%s", rep)
	}
}

func TestUnreachableModelFallsBackOffline(t *testing.T) {
	dir := t.TempDir()
	cmdOut := runBoth(t, strings.NewReader("look\n"), "play", "--new", "--data", dir, "--provider", "ollama", "--base-url", "http://127.0.0.1:1")
	if !strings.Contains(cmdOut, "Could not reach ollama at http://127.0.0.1:1") || !strings.Contains(cmdOut, "offline game master") {
		t.Fatalf("output:\n%s", cmdOut)
	}
}

// runBoth runs the binary and returns stdout and stderr together.
func runBoth(t *testing.T, stdin io.Reader, args ...string) string {
	t.Helper()
	cmd := exec.Command(hearthBin, args...)
	cmd.Stdin = stdin
	cmd.Env = append(os.Environ(), "HEARTH_DATA="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hearth %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
