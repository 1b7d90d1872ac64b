package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/llm"
)

// Chats running at once each get their own stream: the provider's
// services and their options are shared by every chat (the OpenAI SDK's
// appended to a shared option slice, so answers went to the wrong chat
// there; this SDK copies them, and this holds it to that).
func TestConcurrentChatsGetTheirOwnStreams(t *testing.T) {
	_, p := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 || len(body.Messages[0].Content) == 0 {
			http.Error(w, "unreadable request", http.StatusBadRequest)
			return
		}
		startStream(w)
		sse(w, "message_start", messageStart)
		sse(w, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		sse(w, "content_block_delta", textDelta(0, "re: "+body.Messages[0].Content[0].Text))
		sse(w, "content_block_stop", blockStop(0))
		messageEnd(w, "end_turn", 3)
	})
	const chats = 32
	var wg sync.WaitGroup
	for i := range chats {
		wg.Go(func() {
			q := fmt.Sprintf("question %d", i)
			resp, err := p.Chat(context.Background(), llm.Request{Model: "claude-test", Messages: []llm.Message{{Role: llm.User, Content: q}}}, nil)
			if err != nil {
				t.Errorf("%s: %v", q, err)
				return
			}
			if want := "re: " + q; resp.Message.Content != want {
				t.Errorf("%s: answered %q, want %q", q, resp.Message.Content, want)
			}
		})
	}
	wg.Wait()
}
