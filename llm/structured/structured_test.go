package structured_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/llm/structured"
)

type plan struct {
	Beats   []string `json:"beats" jsonschema:"what happens next"`
	Tension int      `json:"tension"`
	Target  string   `json:"target,omitempty"`
}

func spec(t *testing.T) *structured.Spec[plan] {
	s, err := structured.New[plan]("plan")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{"": true, "maren": true}
	s.Check = func(p plan) error {
		if !known[p.Target] {
			return fmt.Errorf("there is no one called %q here; present: maren", p.Target)
		}
		return nil
	}
	return s
}

func TestParse(t *testing.T) {
	s := spec(t)
	for _, tc := range []struct {
		name, in string
		wantErr  string
	}{
		{"bare", `{"beats":["a"],"tension":2}`, ""},
		{"fenced", "Here you go:\n```json\n{\"beats\":[\"a\"],\"tension\":2}\n```\nEnjoy.", ""},
		{"prose around", `Sure! {"beats":["a"],"tension":2} Hope that helps.`, ""},
		{"empty", "   ", "empty"},
		{"prose only", "The lantern flickers.", "no JSON"},
		{"truncated", `{"beats":["a"],"tens`, "incomplete"},
		{"wrong type", `{"beats":"a","tension":2}`, "schema"},
		{"missing required", `{"beats":["a"]}`, "schema"},
		{"unknown field", `{"beats":["a"],"tension":2,"mood":"grim"}`, "schema"},
		{"hallucinated name", `{"beats":["a"],"tension":1,"target":"gandalf"}`, "gandalf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Parse(tc.in)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one mentioning %q", err, tc.wantErr)
			}
		})
	}
}

func TestCallRepairsOnce(t *testing.T) {
	s := spec(t)
	model := cassette.Script(cassette.Text(`{"beats":"one"}`), cassette.Text(`{"beats":["one"],"tension":1}`))
	got, rep, err := s.Call(context.Background(), model, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "plan"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Tension != 1 || !rep.Repaired || rep.Attempts != 2 || len(rep.Errors) != 1 {
		t.Fatalf("got %+v, report %+v", got, rep)
	}
	reqs := model.Requests()
	if string(reqs[0].Schema) != string(s.Schema()) {
		t.Fatalf("schema not sent: %s", reqs[0].Schema)
	}
	repair := reqs[1].Messages[len(reqs[1].Messages)-1]
	if repair.Role != llm.User || !strings.Contains(repair.Content, "schema") || !strings.Contains(repair.Content, `"tension"`) {
		t.Fatalf("repair message %q", repair.Content)
	}
}

func TestCallGivesUpAfterRepair(t *testing.T) {
	s := spec(t)
	model := cassette.Script(cassette.Text("I am a teapot"), cassette.Text(`{"beats":[`), cassette.Text(`{"beats":[],"tension":0}`))
	_, rep, err := s.Call(context.Background(), model, llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "plan"}}})
	if !errors.Is(err, structured.ErrInvalid) || rep.Attempts != 2 || model.Remaining() != 1 {
		t.Fatalf("err %v, report %+v, %d left", err, rep, model.Remaining())
	}
}

func TestCallPassesProviderErrors(t *testing.T) {
	s := spec(t)
	_, _, err := s.Call(context.Background(), cassette.Script(cassette.Fail(llm.RateLimited, "slow down")), llm.Request{})
	if !llm.IsTransient(err) || errors.Is(err, structured.ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"beats":["a"],"tension":2}`, "```json\n{}\n```", "{", "[]", `{"beats":null}`, "prose {\"a\": [1,2"} {
		f.Add(s)
	}
	s, err := structured.New[plan]("plan")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := s.Parse(in)
		if err == nil && p.Beats == nil {
			t.Fatalf("accepted %q without beats", in)
		}
	})
}
