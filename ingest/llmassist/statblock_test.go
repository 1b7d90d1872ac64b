package llmassist

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/ingest/systems"
	"github.com/hearth-rpg/hearth/llm/openai"
)

// openAIWith serves /v1/chat/completions in OpenAI's streaming wire
// format, answering each request with the next answer and keeping the
// request bodies.
func openAIWith(t *testing.T, answers ...string) (*[]string, *StatReader) {
	t.Helper()
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		answer := ""
		if len(answers) > 0 {
			answer, answers = answers[0], answers[1:]
		}
		mu.Unlock()
		chunk, _ := json.Marshal(map[string]any{"id": "1", "object": "chat.completion.chunk", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": answer}, "finish_reason": "stop"}}})
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+string(chunk)+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	p, err := openai.New(srv.URL+"/v1", "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStatReader(p, "gpt-4o-mini")
	if err != nil {
		t.Fatal(err)
	}
	return &bodies, s
}

const minotaurAnswer = `{"name":"Minotaur","size":"Large","type":"monstrosity","alignment":"chaotic evil","armor_class":14,
"hit_points":76,"hit_dice":"9d10 + 27","speed":"40 ft.","scores":[18,11,16,6,16,9],"challenge":"3","xp":700,
"attacks":[{"name":"Greataxe","to_hit":6,"damage":"2d12+4","damage_type":"slashing"}]}`

// A block whose Hit Points line the PDF lost is read by the model; the
// rules' traits stay, the model's numbers go in.
func TestStatReaderOverOpenAI(t *testing.T) {
	bodies, s := openAIWith(t, minotaurAnswer)
	rule := systems.Monster{Name: "Minotaur", AC: 14, Scores: [6]int{18, 11, 16, 6, 16, 9}, CR: "3",
		Traits:   []systems.Feature{{Name: "Charge", Text: "If the minotaur moves…"}},
		Actions:  []systems.Feature{{Name: "Greataxe", Text: "Melee Weapon Attack: +6 to hit", Attack: &systems.Attack{Kind: "melee weapon", ToHit: 6, Reach: 5}}},
		Problems: []string{"no hit point number"}}
	m, err := s.ReadStatBlock(context.Background(), "Minotaur\n\nLarge monstrosity, chaotic evil\n\nArmor Class 14 (natural armor)", rule)
	if err != nil {
		t.Fatal(err)
	}
	if m.HP != 76 || m.HitDice != "9d10+27" || m.Walk != 0 || !m.Sure() || len(m.Traits) != 1 {
		t.Errorf("read: %+v", m)
	}
	if a := m.Actions[0].Attack; a == nil || a.Damage != "2d12+4" || a.Reach != 5 || a.Kind != "melee weapon" {
		t.Errorf("greataxe: %+v", a)
	}
	if len(*bodies) != 1 || !strings.Contains((*bodies)[0], "armor_class") || !strings.Contains((*bodies)[0], "no hit point number") {
		t.Errorf("request: %v", *bodies)
	}
	if !strings.HasPrefix(s.Key(), "statblock@1:") {
		t.Errorf("key %q", s.Key())
	}
}

// An answer that breaks the schema's checks is asked again, then given
// up on: the pipeline keeps the rules' reading.
func TestStatReaderRefusesBadAnswers(t *testing.T) {
	bad := `{"name":"Minotaur","armor_class":14,"hit_points":76,"scores":[18,11]}`
	_, s := openAIWith(t, bad, bad, bad, bad)
	rule := systems.Monster{Name: "Minotaur", Problems: []string{"no hit point number"}}
	m, err := s.ReadStatBlock(context.Background(), "Minotaur", rule)
	if err == nil {
		t.Fatalf("no error for answers with 2 scores: %+v", m)
	}
	if m.Name != "Minotaur" || m.Sure() {
		t.Errorf("the rules' reading changed: %+v", m)
	}
}
