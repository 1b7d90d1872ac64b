package modelgm

import (
	"encoding/json"
	"strings"
	"testing"
)

// The narration streams out of a structured answer byte by byte: what is
// emitted is at every byte a prefix of the decoded narration, and ends as
// it, whatever the chunking splits (escapes, surrogate pairs,
// multi-byte runes).
func TestNarrationStreamsOutOfJSON(t *testing.T) {
	tests := []struct {
		name, answer, want string
		complete           bool
	}{
		{"plain", `{"narration":"Fog rolls in."}`, "Fog rolls in.", true},
		{"escapes", `{"narration":"\"Lost?\" she asks.\nThe bell\\rings \u00e9 \ud83c\udf0a."}`, "\"Lost?\" she asks.\nThe bell\\rings é 🌊.", true},
		{"runes", `{"narration":"Nebel über dem Kai — 🌫"}`, "Nebel über dem Kai — 🌫", true},
		{"after other keys", `{"established_facts":[{"fact":"narration"}],"scene_transition":{"title":"x"},"narration":"Night."}`, "Night.", true},
		{"fenced", "```json\n{\"narration\": \"Rain.\", \"introduced_npcs\": []}\n```", "Rain.", true},
		{"nested narration key is not it", `{"scene_transition":{"narration":"no"},"narration":"yes"}`, "yes", true},
		{"cut off", `{"narration":"You wa`, "You wa", false},
		{"not a string", `{"narration":42}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strings.Builder
			n := &narrationStream{emit: func(s string) { got.WriteString(s) }}
			for i := 0; i < len(tt.answer); i++ {
				n.write(tt.answer[i : i+1])
				// Emitting only appends, so a prefix at every byte is a
				// text that only grew and never held JSON.
				if !strings.HasPrefix(tt.want, got.String()) {
					t.Fatalf("after byte %d emitted %q, not a prefix of %q", i, got.String(), tt.want)
				}
			}
			if got.String() != tt.want || n.complete != tt.complete {
				t.Fatalf("emitted %q (complete %v), want %q (%v)", got.String(), n.complete, tt.want, tt.complete)
			}
		})
	}
}

// An answer that is not JSON is prose, told as it comes; a provider that
// does not stream has its narration told at the end.
func TestNarrationStreamProseAndUnstreamed(t *testing.T) {
	var got strings.Builder
	n := &narrationStream{emit: func(s string) { got.WriteString(s) }}
	for _, c := range []string{"  ", "You ", "wait."} {
		n.write(c)
	}
	n.finish("ignored")
	if got.String() != "You wait." || n.mode != prose {
		t.Fatalf("prose emitted %q (mode %d)", got.String(), n.mode)
	}

	got.Reset()
	n = &narrationStream{emit: func(s string) { got.WriteString(s) }}
	var v narration
	if err := json.Unmarshal([]byte(`{"narration":"Still."}`), &v); err != nil {
		t.Fatal(err)
	}
	n.write(`{"narration":"Sti`)
	n.finish(v.Narration)
	if got.String() != "Still." {
		t.Fatalf("finished with %q", got.String())
	}
}
