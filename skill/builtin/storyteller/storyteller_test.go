package storyteller_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/skill/builtin/storyteller"
)

const forge = `{"location": {"name": "the forge", "description": "Heat rolls off the coals. The anvil is scarred.",
  "exits": [{"direction": "north", "to": "square", "name": "the square"}]},
  "present": [{"name": "Gareth", "perception": 45}, {"name": "a guard", "perception": -50}]}`

func narrate(t *testing.T, config string) (string, string) {
	t.Helper()
	doc := `{"requestId":"r","tool":"narrate","input":{"action":"look around","scene":` + forge + `},"config":` + config + `}`
	var out, errb bytes.Buffer
	if code := storyteller.Run(strings.NewReader(doc), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		var e struct {
			Event   string `json:"event"`
			Payload struct{ Text, Source string }
		}
		if json.Unmarshal([]byte(l), &e) == nil && e.Event == "narration" {
			return e.Payload.Text, out.String()
		}
	}
	t.Fatalf("no narration:\n%s", out.String())
	return "", ""
}

func TestStorytellerOffline(t *testing.T) {
	text, _ := narrate(t, `{}`)
	for _, want := range []string{"the forge", "Heat rolls off the coals. The anvil is scarred.", "Gareth gives you a welcoming nod", "a guard watches you with open distrust", "north to the square"} {
		if !strings.Contains(text, want) {
			t.Errorf("narration lacks %q:\n%s", want, text)
		}
	}
	if n := len(strings.Split(text, "\n\n")); n < 2 || n > 3 {
		t.Errorf("%d paragraphs, want 2 or 3:\n%s", n, text)
	}
	if terse, _ := narrate(t, `{"style":"terse"}`); strings.Contains(terse, "scarred") {
		t.Errorf("terse kept the whole description:\n%s", terse)
	}
}

// TestStorytellerModelAndFallback: with a model configured the model's
// prose is the narration and it was given the scene's facts; when the
// model fails the offline narration comes instead and the fallback is
// logged.
func TestStorytellerModelAndFallback(t *testing.T) {
	var asked string
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string
			Messages []struct{ Content string }
		}
		json.NewDecoder(r.Body).Decode(&req)
		if r.URL.Path != "/v1/chat/completions" || req.Model != "tiny" {
			http.Error(w, "wrong request", http.StatusBadRequest)
			return
		}
		asked = req.Messages[len(req.Messages)-1].Content
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": "Sparks leap as Gareth works."}}}})
	}))
	defer model.Close()
	text, out := narrate(t, `{"provider":"ollama","model":"tiny","baseURL":"`+model.URL+`/v1"}`)
	if text != "Sparks leap as Gareth works." || !strings.Contains(out, `"source":"ollama"`) {
		t.Errorf("model narration %q:\n%s", text, out)
	}
	if !strings.Contains(asked, "The anvil is scarred") {
		t.Errorf("the model was not given the scene: %s", asked)
	}
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer broken.Close()
	text, out = narrate(t, `{"provider":"openai","model":"tiny","baseURL":"`+broken.URL+`"}`)
	if !strings.Contains(text, "Gareth gives you a welcoming nod") || !strings.Contains(out, "falling back to offline narration") {
		t.Errorf("no fallback: %q\n%s", text, out)
	}
}
