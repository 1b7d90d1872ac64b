package cassette_test

import (
	"bytes"
	"context"
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
