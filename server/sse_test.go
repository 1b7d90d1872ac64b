package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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

// writeCounter is a listener whose connections count their writes.
type writeCounter struct {
	net.Listener
	writes atomic.Int64
}

func (l *writeCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	return countedConn{c, &l.writes}, err
}

type countedConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countedConn) Write(b []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(b)
}

// A stream's done event is not flushed alone: the handler returns after
// it and net/http's finishing write carries it with the response's end.
// The client gets every event, done last, and then the stream's end; the
// connection sees one write for the headers, one a content event and one
// for done and the end.
func TestSSEDoneLeavesWithTheEnd(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	counter := &writeCounter{Listener: ln}
	events := []agent.Event{{Type: agent.Content, Text: "The jump "}, {Type: agent.Content, Text: "drive."},
		{Type: agent.Done, Usage: &llm.Usage{PromptTokens: 10, CompletionTokens: 2}}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := newSSE(w)
		s.start()
		for _, e := range events {
			s.send(e)
		}
		s.stop()
	}))
	srv.Listener = counter
	srv.Start()
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var types []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var e agent.Event
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				t.Fatal(err)
			}
			types = append(types, e.Type)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("the stream did not end cleanly: %v", err)
	}
	if got := strings.Join(types, ","); got != "content,content,done" {
		t.Errorf("events %s, want content,content,done", got)
	}
	// The body was read to its end, so the server's last write is in.
	if n := counter.writes.Load(); n != 1+2+1 {
		t.Errorf("%d writes to the connection, want 4 (headers, two events, done with the end)", n)
	}
}
