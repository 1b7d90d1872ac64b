package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
)

// sseEvent is what the test reads of a chat's server-sent events.
type sseEvent struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Tool   string `json:"tool"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// TestServeScaleOutChatRepliesReachTheChatsServer runs two real `hearth
// serve` processes on one PostgreSQL schema: a chat streams from A; the
// model (a local server speaking Ollama's API) asks for dice_roll, which
// the client runs and answers through B; the chat pauses (after one tool
// call), and is continued through B too. The model then receives the
// client's result, and its answer streams on A's open stream. A second
// chat waiting on A for its tool result is cancelled through B.
func TestServeScaleOutChatRepliesReachTheChatsServer(t *testing.T) {
	const rolled = "rolled 17 on the d20"
	var mu sync.Mutex
	var toolSeen []string // the tool messages the model received
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/api/tags":
			io.WriteString(w, `{"models":[{"name":"tiny:1b","model":"tiny:1b","details":{"parameter_size":"1B","quantization_level":"Q4_0"}}]}`)
		case "/api/show":
			io.WriteString(w, `{"details":{"parameter_size":"1B","quantization_level":"Q4_0"},"model_info":{"general.architecture":"llama","llama.context_length":8192}}`)
		case "/api/chat":
			var req struct {
				Model    string `json:"model"`
				Messages []struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(body, &req); err != nil || req.Model != "tiny:1b" {
				http.Error(w, `{"error":"bad request"}`, 400)
				return
			}
			var tools []string
			for _, m := range req.Messages {
				if m.Role == "tool" {
					tools = append(tools, m.Content)
				}
			}
			mu.Lock()
			toolSeen = tools
			mu.Unlock()
			line := toolCall("dice_roll", `{"formula":"1d20"}`)
			if len(tools) > 0 {
				line = say("The lock gives way: " + tools[len(tools)-1] + ".")
			}
			w.Header().Set("Content-Type", "application/x-ndjson")
			io.WriteString(w, line+"\n")
			io.WriteString(w, `{"model":"tiny:1b","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":50,"eval_count":9}`+"\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer model.Close()

	env := append(scaleEnv(t), "HEARTH__MODELS__ASSISTANT__PROVIDER=ollama", "HEARTH__MODELS__ASSISTANT__MODEL=tiny:1b",
		"HEARTH__MODELS__ASSISTANT__BASE_URL="+model.URL, "HEARTH__ASSISTANT__TOOL_CALL_PAUSE_THRESHOLD=1")
	dir := t.TempDir()
	gmKey := regexp.MustCompile(`hth_[a-z0-9_]+`).FindString(runEnv(t, env, nil, "user", "add", "gm", "--role", "gm", "--data", dir))
	if gmKey == "" {
		t.Fatal("no key printed")
	}
	cmdA, urlA := hearthtest.Server{Bin: hearthBin, Data: dir, Env: env}.Launch(t)
	defer func() { cmdA.Process.Kill(); cmdA.Wait() }()
	cmdB, urlB := hearthtest.Server{Bin: hearthBin, Data: dir, Env: env}.Launch(t)
	defer func() { cmdB.Process.Kill(); cmdB.Wait() }()

	events := openChat(t, urlA, gmKey, "relay")
	var text strings.Builder
	next := func(want string) sseEvent {
		t.Helper()
		timeout := time.After(3 * time.Minute)
		for {
			select {
			case e, ok := <-events:
				if !ok {
					t.Fatalf("A's stream ended waiting for %s; text so far %q", want, text.String())
				}
				text.WriteString(e.Text)
				if e.Type == want {
					return e
				}
				if e.Type == "error" || (e.Type == "done" && want != "done") {
					t.Fatalf("A's stream: %+v waiting for %s", e, want)
				}
			case <-timeout:
				t.Fatalf("A's stream: no %s within 3 minutes", want)
			}
		}
	}

	call := next("tool_call")
	if call.Tool != "dice_roll" || call.ID == "" {
		t.Fatalf("tool call: %+v", call)
	}
	res, _ := json.Marshal(map[string]string{"conversation_id": "relay", "tool_call_id": call.ID, "result": rolled})
	if code, b := apiCall(t, "POST", urlB+"/api/tool_result", gmKey, "application/json", strings.NewReader(string(res))); code != http.StatusOK {
		t.Fatalf("tool result through B: %d %s", code, b)
	}
	if p := next("pause"); p.Reason != "tool_limit" {
		t.Fatalf("pause: %+v", p)
	}
	// A wrong call id through B is A's answer, worded as A would.
	bad, _ := json.Marshal(map[string]string{"conversation_id": "relay", "tool_call_id": "call_nope", "result": "x"})
	if code, b := apiCall(t, "POST", urlB+"/api/tool_result", gmKey, "application/json", strings.NewReader(string(bad))); code != http.StatusBadRequest {
		t.Fatalf("a wrong tool call id through B: %d %s", code, b)
	}
	if code, b := apiCall(t, "POST", urlB+"/api/chat/continue", gmKey, "application/json",
		strings.NewReader(`{"conversation_id":"relay","action":"continue"}`)); code != http.StatusOK {
		t.Fatalf("continue through B: %d %s", code, b)
	}
	next("done")
	if !strings.Contains(text.String(), "The lock gives way: "+rolled) {
		t.Fatalf("A's stream after the replies through B: %q", text.String())
	}
	mu.Lock()
	seen := toolSeen
	mu.Unlock()
	if len(seen) != 1 || !strings.Contains(seen[0], rolled) {
		t.Fatalf("the model received tool results %q, want %q", seen, rolled)
	}

	// A cancel through B ends a chat waiting on A for its tool result.
	events = openChat(t, urlA, gmKey, "relay2")
	text.Reset()
	next("tool_call")
	code, b := apiCall(t, "POST", urlB+"/api/chat/continue", gmKey, "application/json",
		strings.NewReader(`{"conversation_id":"relay2","action":"cancel"}`))
	var cancelled struct {
		Status         string `json:"status"`
		ConversationID string `json:"conversation_id"`
		Cancelled      bool   `json:"cancelled"`
	}
	if json.Unmarshal(b, &cancelled); code != http.StatusOK || cancelled.Status != "cancelled" || cancelled.ConversationID != "relay2" || !cancelled.Cancelled {
		t.Fatalf("cancel through B: %d %s", code, b)
	}
	next("done")
}

// openChat starts a streamed chat on url, asking for a roll, and returns
// its events as they arrive.
func openChat(t *testing.T, url, key, conversation string) <-chan sseEvent {
	t.Helper()
	req, err := http.NewRequest("POST", url+"/api/chat", strings.NewReader(
		`{"conversation_id":"`+conversation+`","tools":["dice_roll"],"messages":[{"role":"user","content":"Roll to pick the lock."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("chat on %s: %d %s", url, resp.StatusCode, b)
	}
	events := make(chan sseEvent, 64)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var e sseEvent
			if json.Unmarshal([]byte(data), &e) == nil {
				events <- e
			}
		}
	}()
	return events
}
