package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/cassette"
)

// Every provider numbers tool calls by their position in one response, so
// each step says call_1; the ids the client answers by must still be unique
// across steps and across requests of one conversation (issue 18).
func TestToolCallIDsUniqueInConversation(t *testing.T) {
	f := newFixture(t, fixtureOpts{script: []cassette.Interaction{
		cassette.Calls("fvtt_read", `{"document_type":"actor","document_id":"ship"}`),
		cassette.Calls("dice_roll", `{"formula":"2d6"}`),
		cassette.Text("Rolled."),
		cassette.Calls("fvtt_read", `{"document_type":"actor","document_id":"crew"}`),
		cassette.Text("Done."),
	}})
	var ids []string
	answer := func(s *stream) {
		t.Helper()
		for {
			e := s.next()
			switch e.Type {
			case agent.ToolCall:
				if slices.Contains(ids, e.ID) {
					t.Errorf("tool call id %q used twice in the conversation (%v)", e.ID, ids)
				}
				ids = append(ids, e.ID)
				wantStatus(t, f.do("POST", "/api/tool_result", f.gmKey, map[string]any{"conversation_id": "conv_ids", "tool_call_id": e.ID, "result": "ok"}), 200, "")
			case agent.Done:
				return
			}
		}
	}
	answer(f.openChat(f.gmKey, map[string]any{"messages": userMsg("Roll for the ship"), "conversation_id": "conv_ids"}))
	f.waitInactive("conv_ids")
	answer(f.openChat(f.gmKey, map[string]any{"messages": userMsg("And the crew?"), "conversation_id": "conv_ids"}))
	f.waitInactive("conv_ids")
	if len(ids) != 3 {
		t.Fatalf("tool calls %v, want 3", ids)
	}
	// The saved conversation pairs each result with its own call.
	conv := decode[assistant.Conversation](t, f.do("GET", "/api/conversations/conv_ids", f.gmKey, nil))
	seen := map[string]int{}
	for _, m := range conv.Messages {
		for _, c := range m.ToolCalls {
			seen[c.ID]++
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("saved call id %s appears %d times", id, n)
		}
	}
	// What the model was sent matches too: each tool message answers a
	// call of the message before it.
	reqs := f.model.Requests()
	last := reqs[len(reqs)-1].Messages
	for i, m := range last {
		if m.Role != llm.ToolRole {
			continue
		}
		found := false
		for j := i - 1; j >= 0 && !found; j-- {
			found = slices.ContainsFunc(last[j].ToolCalls, func(c llm.ToolCall) bool { return c.ID == m.ToolCallID })
		}
		if !found {
			t.Errorf("tool message %d answers %s, which no call has", i, m.ToolCallID)
		}
	}
}

// cancelAnswer is the body of a cancel: the partial results (seed 000
// §2.4.5 step 5).
type cancelAnswer struct {
	Status         string        `json:"status"`
	Action         string        `json:"action"`
	ConversationID string        `json:"conversation_id"`
	Content        string        `json:"content"`
	ToolCallsMade  int           `json:"tool_calls_made"`
	ToolResults    []agent.Event `json:"tool_results"`
}

func TestCancelReturnsPartialResults(t *testing.T) {
	t.Run("at a pause", func(t *testing.T) {
		f := newFixture(t, fixtureOpts{agent: agent.Config{PauseAfterCalls: 1}, script: []cassette.Interaction{
			cassette.Calls("document_search", `{"query":"jump drive repair"}`),
			cassette.Text("never said"),
		}})
		s := f.openChat(f.gmKey, map[string]any{"messages": userMsg("How do I repair a jump drive?"), "conversation_id": "conv_c1"})
		s.until(agent.Pause)
		resp := f.do("POST", "/api/chat/continue", f.gmKey, map[string]any{"conversation_id": "conv_c1", "action": "cancel"})
		wantStatus(t, resp, 200, "")
		ans := decode[cancelAnswer](t, resp)
		if ans.Status != "cancelled" || ans.ConversationID != "conv_c1" || ans.ToolCallsMade != 1 || len(ans.ToolResults) != 1 {
			t.Fatalf("cancel answer %+v", ans)
		}
		if r := ans.ToolResults[0]; r.Type != agent.ToolResult || r.Tool != "document_search" || r.ID == "" || r.Summary == "" {
			t.Errorf("tool result %+v", r)
		}
		es := s.until(agent.Done)
		if strings.Contains(types(es), "error") {
			t.Errorf("a cancel is not an error: %s", types(es))
		}
	})
	t.Run("while a tool is pending", func(t *testing.T) {
		f := newFixture(t, fixtureOpts{script: []cassette.Interaction{
			{Op: "chat", Chunks: []llm.Chunk{{Content: "Let me look at your ship. "}},
				Response: &llm.Response{Message: llm.Message{Role: llm.Assistant, Content: "Let me look at your ship. ",
					ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "fvtt_read", Arguments: []byte(`{"document_type":"actor","document_id":"ship"}`)}}}}},
			cassette.Text("never said"),
		}})
		s := f.openChat(f.gmKey, map[string]any{"messages": userMsg("What is wrong with my ship?"), "conversation_id": "conv_c2"})
		es := s.until(agent.ToolCall)
		resp := f.do("POST", "/api/chat/continue", f.gmKey, map[string]any{"conversation_id": "conv_c2", "action": "cancel"})
		wantStatus(t, resp, 200, "")
		ans := decode[cancelAnswer](t, resp)
		if ans.Status != "cancelled" || ans.Content != "Let me look at your ship. " || ans.ToolCallsMade != 1 {
			t.Fatalf("cancel answer %+v", ans)
		}
		rest := s.until(agent.Done)
		for _, e := range rest {
			if e.Type == agent.Error {
				t.Errorf("cancelling a pending tool ended with an error event: %q (recoverable %v)", e.Message, e.Recoverable)
			}
		}
		f.waitInactive("conv_c2")
		// The pending call got an answer in the record, so the next
		// request's history is one a provider accepts.
		conv := decode[assistant.Conversation](t, f.do("GET", "/api/conversations/conv_c2", f.gmKey, nil))
		last := conv.Messages[len(conv.Messages)-1]
		if last.Role != llm.ToolRole || last.ToolCallID != es[len(es)-1].ID {
			t.Errorf("saved after cancel: %+v", conv.Messages)
		}
		// Nothing to cancel now.
		wantStatus(t, f.do("POST", "/api/chat/continue", f.gmKey, map[string]any{"conversation_id": "conv_c2", "action": "cancel"}), 404, api.NotFound)
	})
}

func TestUnknownModelRefused(t *testing.T) {
	f := newFixture(t, fixtureOpts{script: []cassette.Interaction{
		{Op: "models", Models: []llm.Model{{Name: "llama3.2", ContextLength: 131072}, {Name: "mistral", ContextLength: 32768}}},
		cassette.Text("Hello."),
	}})
	resp := f.do("POST", "/api/chat", f.gmKey, map[string]any{"model": "gpt-9", "messages": userMsg("hi")})
	if resp.StatusCode != 400 {
		t.Fatalf("unknown model: status %d: %s", resp.StatusCode, body(resp))
	}
	e := decode[api.ErrorBody](t, resp)
	if e.Error.Code != api.Invalid || !strings.Contains(e.Error.Message, "gpt-9") || !strings.Contains(e.Error.Message, "llama3.2") || !strings.Contains(e.Error.Message, "mistral") {
		t.Fatalf("error %+v", e)
	}
	// A listed model is taken.
	s := f.openChat(f.gmKey, map[string]any{"model": "mistral", "messages": userMsg("hi")})
	if got := textOf(s.until(agent.Done)); got != "Hello." {
		t.Fatalf("content %q", got)
	}
	if reqs := f.model.Requests(); reqs[0].Model != "mistral" {
		t.Errorf("model sent %q", reqs[0].Model)
	}
}

// History is cut to what the chosen model's context length leaves (from
// the provider's model list, as /api/models shows it), the rest is
// summarised for the model, and the client is told.
func TestHistoryTrimmedByContextLength(t *testing.T) {
	long := strings.Repeat("lorem ipsum dolor ", 400) // ~1,200 tokens: under the default budget twice over
	f := newFixture(t, fixtureOpts{script: []cassette.Interaction{
		{Op: "models", Models: []llm.Model{{Name: "small", ContextLength: 4096}}},
		cassette.Text("The Zhodani read minds. " + long),
		cassette.Text("Jump drives need fuel. " + long),
		cassette.Text("Third answer."),
	}})
	ask := func(q string) []agent.Event {
		s := f.openChat(f.gmKey, map[string]any{"model": "small", "messages": userMsg(q), "conversation_id": "conv_h"})
		es := s.until(agent.Done)
		f.waitInactive("conv_h")
		return es
	}
	for _, q := range []string{"Who are the Zhodani? " + long, "How do jump drives work? " + long} {
		for _, e := range ask(q) {
			if e.Type == agent.HistoryTrimmed && !strings.HasPrefix(q, "How") {
				t.Errorf("trimmed on the first request: %+v", e)
			}
		}
	}
	es := ask("And psionics?")
	if es[0].Type != agent.HistoryTrimmed || es[0].Dropped < 2 || es[0].ContextLength != 4096 || es[0].Message == "" {
		t.Fatalf("first event %+v (%s)", es[0], types(es))
	}
	reqs := f.model.Requests()
	sent := reqs[len(reqs)-1].Messages
	if sys := sent[0].Content; !strings.Contains(sys, "Earlier in this conversation") || !strings.Contains(sys, "Who are the Zhodani?") {
		t.Errorf("no summary of the older turns in the system prompt:\n%s", sys[max(0, len(sys)-600):])
	}
	for _, m := range sent[1:] {
		if strings.HasPrefix(m.Content, "Who are the Zhodani?") {
			t.Error("the oldest question was sent whole")
		}
	}
	if len(sent) != 1+es[0].Kept+1 {
		t.Errorf("sent %d messages, the event says %d kept", len(sent), es[0].Kept)
	}
	// The record keeps everything.
	conv := decode[assistant.Conversation](t, f.do("GET", "/api/conversations/conv_h", f.gmKey, nil))
	if len(conv.Messages) != 6 {
		t.Errorf("saved %d messages, want 6", len(conv.Messages))
	}
}

// One name per field across endpoints, the seed's: access_level (access
// still read as a deprecated alias), and image paths as fvtt_image_path
// makes them (seed 000 §4.8: seneschal/<title>/page_<n>_<caption>.webp).
func TestFieldNamesFollowTheSeed(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	doc := decode[map[string]any](t, f.do("GET", "/api/documents/core", f.gmKey, nil))
	if doc["access_level"] != "player" || doc["access"] != nil {
		t.Errorf("document: %v", doc)
	}
	list := decode[map[string]any](t, f.do("GET", "/api/documents", f.gmKey, nil))
	if b, _ := json.Marshal(list); strings.Contains(string(b), `"access":`) || !strings.Contains(string(b), `"access_level":`) {
		t.Errorf("document list: %s", b)
	}
	hits := body(f.do("POST", "/api/search", f.gmKey, map[string]any{"query": "jump drive"}))
	if !strings.Contains(string(hits), `"access_level":`) || strings.Contains(string(hits), `"access":`) {
		t.Errorf("search: %s", hits)
	}
	// The old name still works on input.
	patched := decode[map[string]any](t, f.do("PATCH", "/api/documents/core", f.gmKey, map[string]any{"access": "gm_only"}))
	if patched["access_level"] != "gm_only" {
		t.Errorf("patch with access: %v", patched)
	}
	wantStatus(t, f.do("PATCH", "/api/documents/core", f.gmKey, map[string]any{"access": "player", "access_level": "gm_only"}), 400, api.Invalid)
	ims := decode[struct {
		Images []map[string]any `json:"images"`
	}](t, f.do("GET", "/api/images?document_id=core", f.gmKey, nil))
	if len(ims.Images) != 1 || ims.Images[0]["suggested_path"] != "seneschal/Core_Rulebook/page_1_deck_plan_of_the_Core_Rulebook.webp" {
		t.Fatalf("images %v", ims.Images)
	}
	id := itoa(int64(ims.Images[0]["id"].(float64)))
	got := decode[map[string]any](t, f.do("POST", "/api/images/"+id+"/deliver", f.gmKey, nil))
	if got["fvtt_path"] != "seneschal/Core_Rulebook/page_1_deck_plan_of_the_Core_Rulebook.webp" {
		t.Errorf("deliver %v", got)
	}
}
