package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/llm"
)

// Each event reaches the client as one data line holding what
// json.Marshal makes of it, whatever its text holds (newlines, HTML,
// arguments spread over lines): the stream writes the event's own
// encoding without checking and compacting it again.
func TestSSEWritesEachEventAsOneDataLine(t *testing.T) {
	events := []agent.Event{
		{Type: agent.Content, Text: "The jump drive "},
		{Type: agent.Content, Text: "needs\nan <Engineer> & \"check\"\r\n\u2028 é 🎲 \xff"},
		{Type: agent.ToolCall, ID: "c1", Tool: "dice_roll", Args: json.RawMessage("{\n  \"formula\": \"2d6 <3>\"\n}")},
		{Type: agent.Content, Text: "Roll it. "},
		{Type: agent.Content, Text: "A <b>\"quoted\"</b> & \\ token\t"},
		{Type: agent.ToolCall, ID: "c2", Tool: "ping"},
		{Type: agent.ToolResult, ID: "c1", Tool: "dice_roll", Summary: "7\n(2d6)"},
		{Type: agent.Error, Message: "line one\nline two", Recoverable: true},
		{Type: agent.Done, Usage: &llm.Usage{PromptTokens: 10, CompletionTokens: 3}},
	}
	// Half the events come before the stream starts, as a run's first
	// events can.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := newSSE(w)
		for _, e := range events[:3] {
			s.send(e)
		}
		s.start()
		for i, e := range events[3:] {
			s.send(e)
			if i == 0 {
				s.comment("keep-alive")
			}
		}
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var want strings.Builder
	for i, e := range events {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&want, "data: %s\n\n", b)
		if i == 3 {
			want.WriteString(": keep-alive\n\n")
		}
	}
	var got strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		got.WriteString(sc.Text() + "\n")
	}
	if got.String() != want.String() {
		t.Errorf("the stream was\n%s\nwant\n%s", got.String(), want.String())
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
}

// discardWriter is a ResponseWriter that keeps nothing, so that what an
// event costs the stream is all that is counted.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) Flush()                      {}

// A token's event allocates nothing on its way to the client: with a
// thousand streams, each token's garbage brings the next collection
// (and the stalls of its assists) nearer for all of them.
func TestSSETokenAllocatesNothing(t *testing.T) {
	s := newSSE(&discardWriter{h: http.Header{}})
	s.start()
	e := agent.Event{Type: agent.Content, Text: "needs an Engineer "}
	if n := testing.AllocsPerRun(100, func() { s.send(e) }); n != 0 {
		t.Errorf("a content event costs %v allocations, want 0", n)
	}
}
