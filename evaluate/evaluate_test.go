package evaluate_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/evaluate"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/world"
)

func effects(t *testing.T, es ...world.Effect) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(world.Effects(es))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func refusal(input, how, why string) world.Effect {
	return world.NoteRecorded{Note: world.Note{Kind: game.NoteRefused, Text: fmt.Sprintf("%q %s: %s", input, how, why)}}
}

func TestContradictions(t *testing.T) {
	established := []game.TurnRecord{
		{Number: 1, Input: "ask about the bridge", Narrative: "The ferryman says the old bridge is intact.",
			Effects: effects(t, world.FactRecorded{Fact: world.Fact{ID: "bridge", Text: "The old bridge is intact"}})},
		{Number: 2, Input: "attack mira", Narrative: "Mira falls.",
			Effects: effects(t, world.NPCCreated{NPC: world.Character{ID: "mira_vell", Name: "Mira Vell"}}, world.ConditionApplied{Target: "mira_vell", Condition: "dead"})},
	}
	tests := []struct {
		name      string
		narrative string
		want      []string // kinds found
	}{
		{"fact negated", "You reach the river. The old bridge is not intact: its middle span is gone.", []string{"fact"}},
		{"fact restated", "The old bridge stands intact over the river.", nil},
		{"fact not mentioned", "Rain falls on the harbour.", nil},
		{"the dead speak", "Mira says that the lantern is hers.", []string{"dead"}},
		{"the dead by full name", `"Go," Mira Vell whispered.`, []string{"dead"}},
		{"the dead remembered", "You remember how Mira smiled at the docks.", nil},
		{"the dead's body", "Mira's body lies still; nobody says a word.", nil},
		{"both", "Mira nods. The old bridge isn't intact any more.", []string{"dead", "fact"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turns := append(slices.Clone(established), game.TurnRecord{Number: 3, Input: "look", Narrative: tt.narrative})
			r := evaluate.Evaluate(evaluate.Input{Turns: turns})
			var got []string
			for _, c := range r.Contradictions {
				if c.Turn != 3 {
					t.Errorf("contradiction on turn %d, the turn that established it: %+v", c.Turn, c)
				}
				got = append(got, c.Kind)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("found %v, want %v: %+v", got, tt.want, r.Contradictions)
			}
		})
	}
}

func TestInvalidActionsAndClarifications(t *testing.T) {
	rejected := json.RawMessage(`{"rejection":{"intent":"go","reason":"the door is locked"}}`)
	turns := []game.TurnRecord{
		{Number: 1, Input: "go north", Narrative: "You push the door open and step into the hall.", Passes: rejected},
		{Number: 2, Input: "go north", Narrative: "The door is locked; it won't budge.", Passes: rejected},
		{Number: 3, Input: "attack the guard", Narrative: "You swing.",
			Effects: effects(t, refusal("attack the guard", game.Asked, "Attack the guard?"), refusal("frobnicate", game.NotPlayed, "Nothing happens."),
				refusal("go west", game.Refused, "there is no exit west"))},
		{Number: 4, Input: "do the thing", Narrative: "Which thing?", Passes: json.RawMessage(`{"awaiting":"clarification"}`)},
		{Number: 5, Input: "do it", Narrative: "Are you sure?", Passes: json.RawMessage(`{"awaiting":{"kind":"confirmation"}}`)},
		{Number: 6, Input: "hm", Narrative: "What do you want to do?", Passes: json.RawMessage(`{"calls":[{"pass":"interpreter","output":{"intents":[],"reply":"What do you want to do?"}}]}`)},
		{Number: 7, Input: "look", Narrative: "Crates.", Passes: json.RawMessage(`{"calls":[{"pass":"interpreter","output":{"intents":[{"type":"look"}]}}]}`)},
		{Number: 8, Input: "burn it", Narrative: "Burn what?", Passes: json.RawMessage(`{"calls":[{"pass":"validator","output":{"clarification":"burn what?"}}]}`)},
		{Number: 9, Input: "wait", Narrative: "Time passes.", Passes: json.RawMessage(`{"calls":[{"pass":"validator","output":{"clarification":""}}]}`)},
	}
	r := evaluate.Evaluate(evaluate.Input{Turns: turns})
	ia := r.InvalidActions
	if ia.Rejected != 2 || ia.Accepted != 1 || !slices.Equal(ia.AcceptedTurns, []int{1}) || ia.Rate == nil || *ia.Rate != 0.5 || ia.Refused != 1 {
		t.Errorf("invalid actions: %+v", ia)
	}
	if r.Inputs != 12 || r.Turns != 9 {
		t.Errorf("inputs %d, turns %d; want 12 and 9", r.Inputs, r.Turns)
	}
	c := r.Clarification
	want := map[string]int{"confirmation": 1, "not_understood": 2, "awaiting_clarification": 1, "awaiting_confirmation": 1, "validator": 1}
	if c.N != 6 || c.Of != 12 || fmt.Sprint(c.Why) != fmt.Sprint(want) {
		t.Errorf("clarification %d/%d %v; want 6/12 %v", c.N, c.Of, c.Why, want)
	}
}

func TestLorePassesAndFlags(t *testing.T) {
	turns := []game.TurnRecord{
		{Number: 1, Input: "look", Narrative: "Crows circle the gate.",
			Passes: json.RawMessage(`{"lore":{"scene":1,"prepared":true,"passages":["gate","hall"],"terms":{"gate":["portcullis","crows"],"hall":["tapestries"]}},
				"calls":[{"pass":"narrator","usage":{"prompt_tokens":100,"completion_tokens":20},"ms":40},{"pass":"interpreter","usage":{"prompt_tokens":50,"completion_tokens":5},"ms":10}]}`)},
		{Number: 2, Input: "talk to tomas", Narrative: "Tomas mutters about ledgers.",
			Passes: json.RawMessage(`{"lore":{"scene":1,"passages":["gate","hall"],"turn":{"kept":["tomas","gate","old"]},"terms":{"tomas":["tomas","ledgers"],"gate":["portcullis","crows"]}},
				"calls":[{"pass":"narrator","usage":{"prompt_tokens":300,"completion_tokens":60},"ms":120,"error":"timeout","fallback":"offline narrator"}]}`)},
		{Number: 3, Input: "wait", Narrative: "Nothing stirs."},
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	flags := []game.Flag{{Turn: 2, By: "bob", Reason: "Tomas would never talk", At: at.Add(time.Minute)}, {Turn: 1, Reason: "too short", At: at}}
	r := evaluate.Evaluate(evaluate.Input{Turns: turns, Flags: flags})
	l := r.Lore
	if l.Turns != 2 || l.CacheHits.N != 1 || l.CacheHits.Of != 2 {
		t.Errorf("cache: %+v", l)
	}
	if l.PassagesPerTurn.N != 2 || l.PassagesPerTurn.Total != 5 {
		t.Errorf("passages per turn: %+v", l.PassagesPerTurn)
	}
	// Turn 1: gate (crows) yes, hall no; turn 2: tomas yes, gate no, old
	// unjudged. Gate was reflected once, hall never.
	if l.Relevance.N != 2 || l.Relevance.Of != 4 || l.Unjudged != 1 || !slices.Equal(l.Irrelevant, []string{"hall"}) {
		t.Errorf("relevance: %+v", l)
	}
	if len(r.Passes) != 2 || r.Passes[0].Name != "interpreter" || r.Passes[1].Name != "narrator" {
		t.Fatalf("passes: %+v", r.Passes)
	}
	n := r.Passes[1]
	if n.Calls != 2 || n.PromptTokens.Total != 400 || n.PromptTokens.P50 != 100 || n.PromptTokens.P99 != 300 || n.Millis.P99 != 120 || n.Errors != 1 || n.Fallbacks != 1 {
		t.Errorf("narrator pass: %+v", n)
	}
	if r.ResponseWords.N != 3 || r.ResponseWords.P50 != 4 || r.ResponseWords.Max != 4 {
		t.Errorf("response words: %+v", r.ResponseWords)
	}
	if len(r.Flags) != 2 || r.Flags[0].Turn != 1 || r.Flags[1].Input != "talk to tomas" {
		t.Errorf("flags: %+v", r.Flags)
	}
	var out strings.Builder
	if err := r.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"scene-cache hit rate      1/2 (50%)", "lore relevance            2/4 (50%)", "narrator", "turn 2, flagged by bob: Tomas would never talk", "turn 1, flagged by a player: too short"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestNothingToCount(t *testing.T) {
	r := evaluate.Evaluate(evaluate.Input{})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"contradictions":[]`, `"rate":null`, `"share":null`, `"flags":[]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %s", want, b)
		}
	}
	var out strings.Builder
	if err := r.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "n/a") {
		t.Errorf("an empty report should say n/a:\n%s", out.String())
	}
}
