package openai

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/llm"
)

// Chats running at once each get their own stream. The SDK's services
// append a call's options to the provider's shared option slice: when
// that slice had room to spare (it had, with an API key), concurrent
// calls wrote their options into the same array, so one chat's response
// landed in another's variable (a nil-pointer panic in the first, and
// the second reading a stranger's answer).
func TestConcurrentChatsGetTheirOwnStreams(t *testing.T) {
	srv := server(t, func(t *testing.T, w http.ResponseWriter, r *http.Request, body map[string]any) {
		msgs, _ := body["messages"].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		s := startSSE(w)
		s.send(chunk(fmt.Sprintf(`{"content":%q}`, "re: "+fmt.Sprint(last["content"])), "stop"))
		s.done()
	})
	p := newProvider(t, srv)
	const chats = 32
	var wg sync.WaitGroup
	for i := range chats {
		wg.Go(func() {
			q := fmt.Sprintf("question %d", i)
			resp, err := p.Chat(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: q}}}, nil)
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
