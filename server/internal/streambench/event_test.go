package streambench

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/llm"
)

// decodeEvent is what encoding/json reads in an SSE data line.
func decodeEvent(line []byte) (typ, text string, err error) {
	data := strings.TrimRight(strings.TrimPrefix(strings.TrimPrefix(string(line), "data:"), " "), "\r\n")
	var v struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	err = json.Unmarshal([]byte(data), &v)
	return v.Type, v.Text, err
}

// The clients' parser reads every event hearth sends as encoding/json
// does: the events are made by hearth's own encoder (agent.Event).
func TestParseEventAgreesWithJSON(t *testing.T) {
	events := []agent.Event{
		{Type: agent.Content, Text: "t1764382400123456789 "},
		{Type: agent.Content, Text: "t1764382400123456789 t1764382400123456790 "},
		{Type: agent.Content, Text: "plain words, no stamp"},
		{Type: agent.Content, Text: ""},
		{Type: agent.Content, Text: `a "quoted" word \ and a tab	`},
		{Type: agent.Content, Text: "<b> & é ✓ \u2028 \x00"},
		{Type: agent.Content, Text: "bad utf-8 \xff\xfe"},
		{Type: agent.ToolCall, ID: "c1", Tool: "dice_roll", Args: json.RawMessage(`{"formula":"2d6"}`)},
		{Type: agent.ToolResult, ID: "c1", Tool: "dice_roll", Summary: "7"},
		{Type: agent.ToolStatus, Message: "rolling"},
		{Type: agent.Pause, Reason: agent.ToolLimit, ToolCallsMade: 3, Message: "paused"},
		{Type: agent.Error, Message: `the model said "no"`, Recoverable: true},
		{Type: agent.HistoryTrimmed, Dropped: 2, Kept: 5, Message: "trimmed"},
		{Type: agent.Done, Usage: &llm.Usage{PromptTokens: 100, CompletionTokens: 20}},
		{Type: agent.Done},
	}
	for _, e := range events {
		line, err := e.AppendJSON([]byte("data: "))
		if err != nil {
			t.Fatal(err)
		}
		line = append(line, '\n')
		checkAgrees(t, line)
	}
	// The peer proxy's content event and hearth's are the same bytes.
	checkAgrees(t, []byte(`data: {"type":"content","text":"t1764382400123456789 "}`+"\n"))
}

// Lines that are not data are skipped, and data that is not an event
// is an error naming it.
func TestParseEventRejects(t *testing.T) {
	for _, l := range []string{"\n", ": keep-alive\n", "event: message\n", "id: 3\n"} {
		if _, _, ok, err := parseEvent([]byte(l)); ok || err != nil {
			t.Errorf("%q: ok %v, err %v; want it skipped", l, ok, err)
		}
	}
	for _, l := range []string{"data: {\"type\":\"content\",\"text\":\"x\"\n", "data: [DONE]\n", "data: {\"text\":\"x\"}\n", "data: {\"type\":3}\n"} {
		if _, _, _, err := parseEvent([]byte(l)); err == nil || !strings.Contains(err.Error(), "event") {
			t.Errorf("%q: err %v, want an error naming the event", l, err)
		}
	}
}

// checkAgrees fails unless parseEvent reads line as encoding/json does.
func checkAgrees(t *testing.T, line []byte) {
	t.Helper()
	typ, text, ok, err := parseEvent(line)
	wantTyp, wantText, jerr := decodeEvent(line)
	if jerr != nil {
		if err == nil && ok {
			t.Errorf("%q: encoding/json fails (%v), parseEvent read type %q text %q", line, jerr, typ, text)
		}
		return
	}
	if err != nil || !ok {
		t.Errorf("%q: ok %v, err %v; encoding/json reads type %q text %q", line, ok, err, wantTyp, wantText)
		return
	}
	if string(typ) != wantTyp || string(text) != wantText {
		t.Errorf("%q: type %q text %q, encoding/json %q %q", line, typ, text, wantTyp, wantText)
	}
}

// FuzzParseEvent: on any data line, parseEvent agrees with encoding/json
// (valid JSON without a type is an error for the parser alone).
func FuzzParseEvent(f *testing.F) {
	for _, s := range []string{
		`{"type":"content","text":"t1764382400123456789 "}`,
		`{"type":"done"}`,
		`{"type":"done","usage":{"prompt_tokens":1}}`,
		`{"type":"content","text":"a\"b"}`,
		`{"type":"content","text":"\u00e9"}`,
		`{"type":"content","text":"x"} `,
		`{"type":"content","text":"x","text":"y"}`,
		`{"TYPE":"content","Text":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		line := append(append([]byte("data: "), data...), '\n')
		var probe struct {
			Type *string `json:"type"`
		}
		if json.Unmarshal(data, &probe) == nil && probe.Type == nil {
			return // an object without a type is an error for the parser only
		}
		checkAgrees(t, line)
	})
}
