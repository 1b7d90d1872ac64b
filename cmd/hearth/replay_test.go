package main

import (
	"bytes"
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
	"time"
)

// fakeOpenAI is a local server speaking the OpenAI chat completions wire
// format as a real one does: every completion and every tool call gets a
// fresh id and the time it was made. It answers from what it is asked: a
// request with tools gets a tool call until a tool has answered, then a
// narration; a request for JSON gets the interpreter's intents; any other
// request a narration.
func fakeOpenAI(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[{"id":"tiny","object":"model","owned_by":"test"}]}`)
			return
		}
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
			Tools          []json.RawMessage `json:"tools"`
			ResponseFormat json.RawMessage   `json:"response_format"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/chat/completions" || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		n++
		id := fmt.Sprintf("chatcmpl-%d-%d", n, time.Now().UnixNano())
		mu.Unlock()
		last := req.Messages[len(req.Messages)-1]
		input := ""
		for _, m := range req.Messages {
			if m.Role == "user" {
				input, _ = m.Content.(string)
			}
		}
		north := strings.Contains(strings.ToLower(input), "north")
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta string, finish string) {
			fin := "null"
			if finish != "" {
				fin = fmt.Sprintf("%q", finish)
			}
			fmt.Fprintf(w, "data: {\"id\":%q,\"object\":\"chat.completion.chunk\",\"created\":%d,\"model\":\"tiny\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n",
				id, time.Now().Unix(), delta, fin)
		}
		text := func(s string) {
			b, _ := json.Marshal(s)
			chunk(`{"role":"assistant","content":`+string(b)+`}`, "")
			chunk(`{}`, "stop")
		}
		switch {
		case len(req.Tools) > 0 && last.Role != "tool":
			name, args := "look", `{}`
			if north {
				name, args = "move", `{"destination":"north"}`
			}
			a, _ := json.Marshal(args)
			chunk(fmt.Sprintf(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_%s","type":"function","function":{"name":%q,"arguments":%s}}]}`, id, name, a), "")
			chunk(`{}`, "tool_calls")
		case strings.Contains(string(req.ResponseFormat), `"agent"`): // the router
			text(`{"agent":"exploration"}`)
		case strings.Contains(string(req.ResponseFormat), `"narration"`): // the multi-pass narrator
			if north {
				text(`{"narration":"You shoulder north into the Drowned Lantern; the talk stops."}`)
			} else {
				text(`{"narration":"Salt wind, wet rope, gulls over the harbour."}`)
			}
		case len(req.ResponseFormat) > 0:
			intent := `{"intents":[{"type":"look","args":{}}]}`
			if north {
				intent = `{"intents":[{"type":"move","args":{"destination":"north"}}]}`
			}
			text(intent)
		case north:
			text("You shoulder north into the Drowned Lantern; the talk stops.")
		default:
			text("Salt wind, wet rope, gulls over the harbour.")
		}
		fmt.Fprintf(w, "data: {\"id\":%q,\"object\":\"chat.completion.chunk\",\"created\":%d,\"model\":\"tiny\",\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":9,\"total_tokens\":59}}\n\ndata: [DONE]\n\n", id, time.Now().Unix())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// runFail runs the binary expecting it to fail, and returns its stdout and
// stderr together.
func runFail(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(hearthBin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "HEARTH_DATA="+t.TempDir())
	if err := cmd.Run(); err == nil {
		t.Fatalf("hearth %s succeeded, want a failure:\n%s", strings.Join(args, " "), out.String())
	}
	return out.String()
}

// recordGame plays a few turns with a model over HTTP, recording every
// call, and returns the data directory, the game's id and the cassette.
// More arguments go to hearth play.
func recordGame(t *testing.T, pipeline string, more ...string) (dir, id, tape string) {
	t.Helper()
	srv := fakeOpenAI(t)
	dir = t.TempDir()
	tape = filepath.Join(dir, "tape.jsonl")
	out := run(t, strings.NewReader("look\ngo north\nlook around\n"), append([]string{"play", "--new", "--seed", "7", "--data", dir,
		"--provider", "openai", "--base-url", srv.URL + "/v1", "--api-key-env", "HEARTH_TEST_NO_KEY", "--model", "tiny",
		"--pipeline", pipeline, "--record", tape}, more...)...)
	if !strings.Contains(out, "Drowned Lantern") {
		t.Fatalf("play output:\n%s", out)
	}
	srv.Close() // the model is gone; only the cassette answers
	s, db := onlySession(t, dir)
	id = s.ID()
	db.Close()
	return dir, id, tape
}

// A cassette recorded by this build replays with --exact, every call
// matched, in either pipeline, whatever volatile ids and times the server
// put in its answers. Edited, it stops at the first mismatch and names
// it; in order, it answers anyway and counts the call that diverged.
func TestReplayExactMatchesAFreshRecording(t *testing.T) {
	// edit is turn 2's first call of the game master: after turn 1's
	// router, agent and narration calls (agentic) or interpreter and
	// narrator (multi-pass), and its narrative element extraction; the
	// agentic turn 2 starts with its router call.
	for _, tt := range []struct {
		pipeline, pass string
		edit           int
	}{{"agentic", "agent:", 6}, {"multipass", "interpreter pass", 4}} {
		t.Run(tt.pipeline, func(t *testing.T) {
			dir, id, tape := recordGame(t, tt.pipeline)
			rep := run(t, nil, "replay", id, "--data", dir, "--cassette", tape, "--exact")
			if !strings.Contains(rep, "3 with the same narration, 3 with the same effects") || strings.Contains(rep, "fell back") {
				t.Errorf("replay:\n%s", rep)
			}
			calls := strings.Count(mustRead(t, tape), `"op":"chat"`)
			if want := fmt.Sprintf("%d of %d model calls matched the cassette exactly.", calls, calls); calls < 6 || !strings.Contains(rep, want) {
				t.Errorf("want %q in:\n%s", want, rep)
			}

			// Turn 2's first game master call edited by hand.
			edited := filepath.Join(dir, "edited.jsonl")
			editCall(t, tape, edited, tt.edit, func(req map[string]any) {
				m := req["messages"].([]any)[0].(map[string]any)
				m["content"] = strings.Replace(m["content"].(string), "Saltmere", "Saltmarsh", 1)
			})
			out := runFail(t, "replay", id, "--data", dir, "--cassette", edited, "--exact")
			for _, want := range []string{"stopped at turn 2 (" + tt.pass, fmt.Sprintf("call %d differs from recorded call %d at messages[0].content", tt.edit, tt.edit), `recorded …"`, `Lantern of Saltmarsh\" `, `replayed …"`} {
				if !strings.Contains(out, want) {
					t.Errorf("exact replay of an edited cassette lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "with the same narration") {
				t.Errorf("an exact replay went on after a mismatch:\n%s", out)
			}

			inOrder := run(t, nil, "replay", id, "--data", dir, "--cassette", edited)
			if want := fmt.Sprintf("1 of %d model calls diverged from the cassette", calls); !strings.Contains(inOrder, want) ||
				!strings.Contains(inOrder, "3 with the same narration") {
				t.Errorf("want %q in:\n%s", want, inOrder)
			}
		})
	}
}

// editCall copies a cassette, changing the recorded request of its n-th
// chat call (from 1) with edit.
func editCall(t *testing.T, from, to string, n int, edit func(req map[string]any)) {
	t.Helper()
	var out []string
	chat := 0
	for _, line := range strings.Split(strings.TrimSpace(mustRead(t, from)), "\n") {
		var in map[string]any
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatal(err)
		}
		if in["op"] == "chat" {
			if chat++; chat == n {
				edit(in["request"].(map[string]any))
				b, _ := json.Marshal(in)
				line = string(b)
			}
		}
		out = append(out, line)
	}
	if err := os.WriteFile(to, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Prompt versions: a campaign pins narrator@2, every turn records it, and
// a replay shows per turn which versions ran originally and in the
// replay, and what a changed version changed.
func TestReplayPromptVersions(t *testing.T) {
	camp := filepath.Join(t.TempDir(), "saltmere")
	if err := os.CopyFS(camp, os.DirFS(saltmere)); err != nil {
		t.Fatal(err)
	}
	yml := filepath.Join(camp, "campaign.yml")
	if err := os.WriteFile(yml, []byte(mustRead(t, yml)+"\nprompts:\n  narrator: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, id, tape := recordGame(t, "multipass", "--campaign", camp)

	same := run(t, nil, "replay", id, "--data", dir, "--cassette", tape, "--exact", "--prompt-versions")
	if strings.Count(same, "prompts: interpreter@1, narrator@2\n") != 3 || !strings.Contains(same, "Prompt versions: the same on every turn.") ||
		!strings.Contains(same, "9 of 9 model calls matched") {
		t.Errorf("replay with the campaign's pins:\n%s", same)
	}

	other := run(t, nil, "replay", id, "--data", dir, "--cassette", tape, "--prompt", "narrator@1", "--prompt", "interpreter@2", "--prompt-versions")
	for _, want := range []string{
		"prompts: interpreter@1 → interpreter@2, narrator@2 → narrator@1\n",
		"interpreter@1 → interpreter@2 on 3 turn(s): interpreter@2: for small models.",
		"narrator@2 → narrator@1 on 3 turn(s): narrator@2: for small models. A hard word limit",
		"6 of 9 model calls diverged from the cassette",
	} {
		if !strings.Contains(other, want) {
			t.Errorf("replay with other versions lacks %q:\n%s", want, other)
		}
	}
	if strings.Contains(other, "Status") {
		t.Errorf("a template's status line is shown as what it changed:\n%s", other)
	}

	// Exact refuses the other versions, naming the prompt that changed.
	out := runFail(t, "replay", id, "--data", dir, "--cassette", tape, "--exact", "--prompt", "interpreter@2")
	if !strings.Contains(out, "stopped at turn 1 (interpreter pass): call 1 differs from recorded call 1 at messages[0].content") {
		t.Errorf("exact replay with another interpreter:\n%s", out)
	}

	// --exact needs calls to compare with.
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--exact"}, "--exact compares with a recording: add --cassette FILE"},
		{[]string{"--exact", "--cassette", empty}, "holds no model calls; record a game with 'hearth play --record"},
	} {
		if out := runFail(t, append([]string{"replay", id, "--data", dir}, tt.args...)...); !strings.Contains(out, tt.want) {
			t.Errorf("replay %v: want %q in:\n%s", tt.args, tt.want, out)
		}
	}

	// The flag's old meaning gets a pointer to the new one.
	out = runFail(t, "replay", id, "--data", dir, "--prompt-versions", "narrator@1")
	if !strings.Contains(out, "to run narrator@1, write --prompt narrator@1") {
		t.Errorf("old --prompt-versions use:\n%s", out)
	}
}
