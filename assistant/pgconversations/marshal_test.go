package pgconversations

import (
	"encoding/json"
	"testing"

	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/llm"
)

// A saved conversation's text is json.Marshal's, byte for byte: escapes
// of HTML and bad UTF-8 included, with no newline.
func TestMarshalStringIsMarshal(t *testing.T) {
	for _, v := range []any{
		[]llm.Message{{Role: llm.User, Content: "a <b> & \"c\"\n\u2028 \xff"}, {Role: llm.Assistant, Content: "ok",
			ToolCalls: []llm.ToolCall{{ID: "c1", Name: "dice_roll", Arguments: []byte(`{"formula":"2d6"}`)}}}},
		[]llm.Message(nil),
		assistant.Metadata{TotalTokensEstimate: 12, SystemSchema: []byte(`{"system":"dnd5e"}`)},
		"",
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalString(v)
		if err != nil || got != string(want) {
			t.Errorf("marshalString(%#v) = %q, %v; want %q", v, got, err, want)
		}
	}
	if _, err := marshalString(func() {}); err == nil {
		t.Error("marshalString of a func: no error")
	}
}
