package jsonstring

import (
	"encoding/json"
	"testing"
)

// Marshal's text is json.Marshal's, byte for byte: escapes of HTML and
// bad UTF-8 included, with no newline.
func TestMarshalIsJSONMarshal(t *testing.T) {
	type message struct {
		Role      string          `json:"role"`
		Content   string          `json:"content"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	}
	for _, v := range []any{
		[]message{{Role: "user", Content: "a <b> & \"c\"\n\u2028 \xff"}, {Role: "assistant", Content: "ok", Arguments: []byte(`{"formula":"2d6"}`)}},
		[]message(nil),
		map[string]any{"tokens": 12, "schema": json.RawMessage(`{"system":"dnd5e"}`)},
		"",
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Marshal(v)
		if err != nil || got != string(want) {
			t.Errorf("Marshal(%#v) = %q, %v; want %q", v, got, err, want)
		}
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("Marshal of a func: no error")
	}
}
