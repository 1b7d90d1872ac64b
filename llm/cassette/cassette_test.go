package cassette_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/llm/offline"
)

func chat(t *testing.T, p llm.Provider, req llm.Request) (string, string) {
	t.Helper()
	var streamed strings.Builder
	resp, err := p.Chat(context.Background(), req, func(c llm.Chunk) error { streamed.WriteString(c.Content); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return resp.Message.Content, streamed.String()
}

func TestRecordAndReplay(t *testing.T) {
	var buf bytes.Buffer
	rec := cassette.NewRecorder(offline.New(), &buf)
	a := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "tell me a story"}}}
	b := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "another"}}}
	wantA, _ := chat(t, rec, a)
	wantB, _ := chat(t, rec, b)
	if _, err := rec.Models(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	all, err := cassette.Read(&buf)
	if err != nil || len(all) != 3 {
		t.Fatalf("%d interactions, %v", len(all), err)
	}

	// Exact: answers by request, in any order; an unknown request fails.
	p := cassette.NewPlayer("offline", cassette.Exact, all)
	if got, streamed := chat(t, p, b); got != wantB || streamed != wantB {
		t.Fatalf("replayed %q (streamed %q), want %q", got, streamed, wantB)
	}
	if got, _ := chat(t, p, a); got != wantA {
		t.Fatalf("replayed %q, want %q", got, wantA)
	}
	if _, err := p.Chat(context.Background(), a, nil); !errors.Is(err, cassette.ErrNoAnswer) {
		t.Fatalf("a third call = %v", err)
	}

	// InOrder: a changed request gets the next recorded answer.
	p = cassette.NewPlayer("offline", cassette.InOrder, all)
	changed := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "tell me a story, differently"}}}
	if got, _ := chat(t, p, changed); got != wantA {
		t.Fatalf("in order: %q, want %q", got, wantA)
	}
	if m, err := p.Models(context.Background()); err != nil || len(m) != 1 {
		t.Fatalf("models %v, %v", m, err)
	}
}

func TestRecordedErrorsReplay(t *testing.T) {
	p := cassette.Script(cassette.Fail(llm.RateLimited, "slow down"))
	_, err := p.Chat(context.Background(), llm.Request{}, nil)
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.RateLimited || !e.Transient() {
		t.Fatalf("err = %v", err)
	}
}

func TestReadRejectsGarbage(t *testing.T) {
	_, err := cassette.Read(strings.NewReader("{\"op\":\"chat\"}\nnot json\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v", err)
	}
}

// Two runs of one build differ in what servers make up: the model a
// replay is configured with and the ids of tool calls. Everything else
// is the request.
func TestCanonicalIgnoresOnlyVolatileFields(t *testing.T) {
	toolTurn := func(model, id string, args string) llm.Request {
		return llm.Request{Model: model, Messages: []llm.Message{
			{Role: llm.System, Content: "be brief"},
			{Role: llm.User, Content: "go north"},
			{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "move", Arguments: json.RawMessage(args)}}},
			{Role: llm.ToolRole, ToolCallID: id, Name: "move", Content: "moved"},
		}}
	}
	base := toolTurn("tiny", "call_x7Gq", `{"destination":"north","quiet":true}`)
	temp := 0.2
	for _, tt := range []struct {
		name  string
		req   llm.Request
		same  bool
		field string
	}{
		{"another model", toolTurn("big", "call_x7Gq", `{"destination":"north","quiet":true}`), true, ""},
		{"another tool call id", toolTurn("tiny", "call_1", `{"destination":"north","quiet":true}`), true, ""},
		{"arguments in another key order", toolTurn("tiny", "call_x7Gq", `{"quiet":true, "destination":"north"}`), true, ""},
		{"other arguments", toolTurn("tiny", "call_x7Gq", `{"destination":"south","quiet":true}`), false, "messages[2].tool_calls[0].arguments.destination"},
		{"another prompt", func() llm.Request {
			r := toolTurn("tiny", "a", `{}`)
			r.Messages[0].Content = "be very brief"
			return r
		}(), false, "messages[0].content"},
		{"a tool answer for another call", func() llm.Request {
			r := toolTurn("tiny", "call_x7Gq", `{"destination":"north","quiet":true}`)
			r.Messages[3].ToolCallID = "call_other"
			return r
		}(), false, "messages[3].tool_call_id"},
		{"a temperature", func() llm.Request {
			r := toolTurn("tiny", "a", `{"destination":"north","quiet":true}`)
			r.Temperature = &temp
			return r
		}(), false, "temperature"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if same := cassette.Key(tt.req) == cassette.Key(base); same != tt.same {
				t.Fatalf("same key = %v, want %v:\n%s\n%s", same, tt.same, cassette.Canonical(base), cassette.Canonical(tt.req))
			}
			d, differ := cassette.Diff(cassette.Canonical(base), cassette.Canonical(tt.req))
			if differ == tt.same || d.Field != tt.field {
				t.Fatalf("diff %+v (%v), want field %q", d, differ, tt.field)
			}
		})
	}
}

// An exact player names the first call it cannot match and the recorded
// call it expected; an in-order player answers it and counts it.
func TestPlayerMismatchAndStats(t *testing.T) {
	var buf bytes.Buffer
	rec := cassette.NewRecorder(offline.New(), &buf)
	ask := func(s string) llm.Request {
		return llm.Request{Messages: []llm.Message{{Role: llm.System, Content: "narrate"}, {Role: llm.User, Content: s}}}
	}
	for _, s := range []string{"look", "go north", "look"} {
		chat(t, rec, ask(s))
	}
	all, err := cassette.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}

	p := cassette.NewPlayer("tape", cassette.Exact, all)
	chat(t, p, ask("look"))
	_, err = p.Chat(context.Background(), ask("go south"), nil)
	m := p.Mismatch()
	if !errors.Is(err, cassette.ErrNoAnswer) || m == nil || m.Call != 2 || m.Recorded != 2 || m.Field != "messages[1].content" ||
		!strings.Contains(err.Error(), `recorded "go north", replayed "go south"`) {
		t.Fatalf("err %v, mismatch %+v", err, m)
	}
	chat(t, p, ask("look"))
	if st := p.Stats(); st != (cassette.Stats{Calls: 3, Matched: 2, Diverged: 1, Recorded: 3, Unused: 1, FirstUnused: 2}) {
		t.Fatalf("exact stats %+v", st)
	}
	if _, err := p.Chat(context.Background(), ask("look"), nil); err == nil || p.Mismatch().Call != 2 {
		t.Fatalf("a fourth call: %v; the first mismatch must stay %+v", err, p.Mismatch())
	}

	p = cassette.NewPlayer("tape", cassette.InOrder, all)
	for _, s := range []string{"look", "go south", "look"} {
		chat(t, p, ask(s))
	}
	if st := p.Stats(); st != (cassette.Stats{Calls: 3, Matched: 2, Diverged: 1, Recorded: 3}) || p.Mismatch() != nil {
		t.Fatalf("in-order stats %+v, mismatch %+v", st, p.Mismatch())
	}
}
