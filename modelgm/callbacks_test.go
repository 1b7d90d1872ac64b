package modelgm_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/world"
)

// openAIServer answers every chat with content, in OpenAI's streaming
// format, and keeps the last user message it was sent.
func openAIServer(t *testing.T, content string) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		if n := len(body.Messages); n > 0 {
			seen = append(seen, body.Messages[n-1].Content)
		}
		mu.Unlock()
		chunk, _ := json.Marshal(map[string]any{"id": "1", "object": "chat.completion.chunk", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": content}, "finish_reason": "stop"}}})
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+string(chunk)+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }
}

func TestElementExtractorOverOpenAI(t *testing.T) {
	tests := []struct {
		name    string
		answer  string
		want    []string
		wantErr bool
	}{
		{"json", `{"elements":[{"element_type":"promise","name":"The ferryman's debt","description":"Mira owes him."},{"element_type":"threat","name":"Grey wolves","description":"They howl."}]}`,
			[]string{"promise:The ferryman's debt", "threat:Grey wolves"}, false},
		{"fenced", "```json\n{\"elements\":[{\"element_type\":\"item\",\"name\":\"Brass key\",\"description\":\"\"}]}\n```", []string{"item:Brass key"}, false},
		{"prose", "The ferryman is owed money.", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, seen := openAIServer(t, tt.answer)
			p, err := openai.New(srv.URL+"/v1", "")
			if err != nil {
				t.Fatal(err)
			}
			x := modelgm.ElementExtractor{Role: modelgm.Role{Provider: p, Model: "m"}}
			got, err := x.ExtractElements(context.Background(), game.ExtractInput{Turn: 4, Input: "pay the ferryman", Narrative: "Mira promises to pay.",
				Known: []world.NarrativeElement{{ElementType: world.ElementCharacter, Name: "Mira"}}})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			var names []string
			for _, e := range got {
				names = append(names, e.ElementType+":"+e.Name)
			}
			if strings.Join(names, "|") != strings.Join(tt.want, "|") {
				t.Errorf("elements %v, want %v", names, tt.want)
			}
			if s := seen(); len(s) != 1 || !strings.Contains(s[0], "Mira (character)") || !strings.Contains(s[0], "Mira promises to pay.") {
				t.Errorf("the model was sent %q", s)
			}
		})
	}
}
