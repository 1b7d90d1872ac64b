package modelgm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/lore"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/sqliteindex"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

// scriptedOpenAI is an OpenAI-compatible server on 127.0.0.1 that answers
// chats in order from a script, streaming each answer in pieces of a few
// bytes (so escapes and words are split across chunks), and keeps the
// requests it was sent.
type scriptedOpenAI struct {
	t       *testing.T
	mu      sync.Mutex
	answers []string
	reqs    []chatRequest
}

type chatRequest struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	ResponseFormat json.RawMessage `json:"response_format"`
}

// last is the last message of the request.
func (r chatRequest) last() string {
	if n := len(r.Messages); n > 0 {
		return r.Messages[n-1].Content
	}
	return ""
}

func (s *scriptedOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	if len(s.answers) == 0 {
		s.mu.Unlock()
		s.t.Errorf("the script has no answer for request %d: %s", len(s.reqs), req.last())
		http.Error(w, "script exhausted", http.StatusBadRequest)
		return
	}
	answer := s.answers[0]
	s.answers = s.answers[1:]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "1", "object": "chat.completion.chunk", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	for rest := answer; rest != ""; {
		n := min(5, len(rest))
		for n < len(rest) && !utf8.RuneStart(rest[n]) {
			n++
		}
		send(map[string]any{"content": rest[:n]}, nil)
		rest = rest[n:]
	}
	send(map[string]any{}, "stop")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (s *scriptedOpenAI) script(answers ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answers = append(s.answers, answers...)
}

func (s *scriptedOpenAI) requests() []chatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chatRequest(nil), s.reqs...)
}

// countingIndex counts searches, to tell a scene's preparation from an
// incremental fetch.
type countingIndex struct {
	*sqliteindex.Index
	n atomic.Int64
}

func (c *countingIndex) Search(ctx context.Context, q retrieve.Query) (retrieve.Result, error) {
	c.n.Add(1)
	return c.Index.Search(ctx, q)
}

// multipassGame is Saltmere played by the multi-pass pipeline over a
// scripted OpenAI server, with scene lore from a real index holding
// lore on the quay and on Mira, a character no one has met yet.
type multipassGame struct {
	s   *game.Session
	st  *sqlitestore.DB
	srv *scriptedOpenAI
	ix  *countingIndex
	p   *modelgm.Pipeline
}

func newMultipass(t *testing.T, plan bool) *multipassGame {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ix, err := sqliteindex.Open(ctx, filepath.Join(dir, "lore.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	for _, l := range []struct{ file, entity, text string }{
		{"quay.md", "quay", "The quay's bollards are scarred by smugglers' ropes."},
		{"mira.md", "mira_thorne", "Mira Thorne runs contraband past the dark lighthouse and owes Rook a debt."},
	} {
		ch := chunk.Chunk{ID: "sm/" + l.file + "#0", Pack: "sm", File: l.file, SourceType: chunk.Prose,
			EntityID: "sm:" + l.entity, Tier: 2, Access: access.Player, Text: l.text, Tokens: len(strings.Fields(l.text))}
		if err := ix.Upsert(ctx, "sm", l.file, "h-"+l.file, []chunk.Chunk{ch}); err != nil {
			t.Fatal(err)
		}
	}
	srv := &scriptedOpenAI{t: t}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	prov, err := openai.New(hs.URL+"/v1", "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := modelgm.New(modelgm.Config{Mode: modelgm.MultiPass, Plan: plan, Narrator: modelgm.Role{Provider: prov, Model: "m"}, SummariseEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	counted := &countingIndex{Index: ix}
	s, err := game.New(ctx, st, c, 7, game.Options{Pipeline: p, Lore: &lore.Keeper{Index: counted, Campaign: "sm", Packs: []string{"sm"}}})
	if err != nil {
		t.Fatal(err)
	}
	return &multipassGame{s: s, st: st, srv: srv, ix: counted, p: p}
}

// passes returns the last turn's pass records.
func passesOf(t *testing.T, s *game.Session) (calls []modelgm.Call, clarification *game.Question) {
	t.Helper()
	recs, err := s.Turns(context.Background(), s.Turn(), s.Turn())
	if err != nil || len(recs) != 1 {
		t.Fatalf("turn %d: %v", s.Turn(), err)
	}
	var ps struct {
		Calls         []modelgm.Call `json:"calls"`
		Clarification *game.Question `json:"clarification"`
	}
	if err := json.Unmarshal(recs[0].Passes, &ps); err != nil {
		t.Fatal(err)
	}
	return ps.Calls, ps.Clarification
}

func passNames(cs []modelgm.Call) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Pass)
	}
	return strings.Join(out, ",")
}

// output decodes a call's output.
func output[T any](t *testing.T, c modelgm.Call) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(c.Output, &v); err != nil {
		t.Fatalf("%s output %s: %v", c.Pass, c.Output, err)
	}
	return v
}

type verdict struct {
	Verdict string   `json:"verdict"`
	Allowed []string `json:"allowed"`
	Blocked *struct {
		Intent, Reason string
		Unresolved     bool
	} `json:"blocked"`
	NotJudged []string `json:"not_judged"`
}

func TestValidatorIsARecordedPass(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		answers []string
		passes  string
		// verdicts are the validator passes' verdicts, in order.
		verdicts []string
		// fallback is the last validator pass's.
		fallback string
		check    func(t *testing.T, g *multipassGame, resp *game.Response, vs []verdict)
	}{
		{
			name:  "an invented place is sent back to the interpreter",
			input: "I head north to the tavern",
			answers: []string{
				`{"intents":[{"type":"move","args":{"destination":"atlantis"}}]}`,
				`{"intents":[{"type":"move","args":{"destination":"north"}}]}`,
				`{"narration":"You push into the Drowned Lantern."}`,
			},
			passes:   "interpreter,validator,interpreter,validator,narrator",
			verdicts: []string{"unresolved", "allowed"},
			check: func(t *testing.T, g *multipassGame, resp *game.Response, vs []verdict) {
				if vs[0].Blocked == nil || !vs[0].Blocked.Unresolved || !strings.Contains(vs[0].Blocked.Reason, "atlantis") {
					t.Errorf("first verdict %+v", vs[0])
				}
				// The interpreter was told why, in the rules' words.
				if got := g.srv.requests()[1].last(); !strings.Contains(got, "atlantis") || !strings.Contains(got, "rules cannot carry that out") {
					t.Errorf("the interpreter's retry was told %q", got)
				}
				if g.s.World().PC().Location != "tavern" || resp.Narrative != "You push into the Drowned Lantern." {
					t.Errorf("at %s, narrative %q", g.s.World().PC().Location, resp.Narrative)
				}
			},
		},
		{
			name:  "an interpreter that insists on it is replaced by the offline one",
			input: "go north",
			answers: []string{
				`{"intents":[{"type":"move","args":{"destination":"atlantis"}}]}`,
				`{"intents":[{"type":"move","args":{"destination":"atlantis"}}]}`,
				`{"narration":"You push into the Drowned Lantern."}`,
			},
			passes:   "interpreter,validator,interpreter,validator,narrator",
			verdicts: []string{"unresolved", "unresolved"},
			fallback: "offline interpreter",
			check: func(t *testing.T, g *multipassGame, resp *game.Response, vs []verdict) {
				if g.s.World().PC().Location != "tavern" {
					t.Errorf("the offline interpreter did not play %q: at %s", "go north", g.s.World().PC().Location)
				}
			},
		},
		{
			name:  "a later intent is judged on the world the earlier one left",
			input: "I go north and greet Maren",
			answers: []string{
				`{"intents":[{"type":"move","args":{"destination":"north"}},{"type":"talk","args":{"npc":"maren"}}]}`,
				`{"narration":"Maren looks up from the bar."}`,
			},
			passes:   "interpreter,validator,narrator",
			verdicts: []string{"allowed"},
			check: func(t *testing.T, g *multipassGame, resp *game.Response, vs []verdict) {
				if strings.Join(vs[0].Allowed, ",") != "move,talk" {
					t.Errorf("verdict %+v", vs[0])
				}
			},
		},
		{
			name:  "a refusal by the world is played and narrated, not retried",
			input: "I check something",
			answers: []string{
				`{"intents":[{"type":"ability_check","args":{"skill":"basket weaving"}},{"type":"look"}]}`,
				`{"narration":"Nothing comes of it."}`,
			},
			passes:   "interpreter,validator,narrator",
			verdicts: []string{"refused"},
			check: func(t *testing.T, g *multipassGame, resp *game.Response, vs []verdict) {
				if vs[0].Blocked == nil || vs[0].Blocked.Unresolved || strings.Join(vs[0].NotJudged, ",") != "look" {
					t.Errorf("verdict %+v", vs[0])
				}
				if resp.Rejected == "" || !strings.Contains(g.srv.requests()[1].last(), "Refused by the rules") {
					t.Errorf("the refusal was not narrated: rejected %q", resp.Rejected)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newMultipass(t, false)
			g.srv.script(tt.answers...)
			resp, err := g.s.Act(context.Background(), tt.input)
			if err != nil {
				t.Fatal(err)
			}
			cs, _ := passesOf(t, g.s)
			if got := passNames(cs); got != tt.passes {
				t.Fatalf("passes %s, want %s", got, tt.passes)
			}
			var vs []verdict
			var got []string
			fallback := ""
			for _, c := range cs {
				if c.Pass == "validator" {
					v := output[verdict](t, c)
					vs = append(vs, v)
					got = append(got, v.Verdict)
					fallback = c.Fallback
				}
			}
			if fallback != tt.fallback {
				t.Errorf("validator fallback %q, want %q", fallback, tt.fallback)
			}
			if strings.Join(got, ",") != strings.Join(tt.verdicts, ",") {
				t.Fatalf("verdicts %v, want %v", got, tt.verdicts)
			}
			tt.check(t, g, resp, vs)
		})
	}
}

func TestPlannerQuestionAwaitsClarification(t *testing.T) {
	ctx := context.Background()
	g := newMultipass(t, true)
	const question = "Which do you offer Nell: the coin purse or the rope?"
	g.srv.script(
		`{"intents":[{"type":"talk","args":{"npc":"nell","topic":"trade"}}]}`,
		`{"beats":[],"tension":"","question":"`+question+`"}`,
	)
	resp, err := g.s.Act(ctx, "I offer Nell the thing")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Awaiting.Kind != game.Clarification || resp.Awaiting.Prompt != question || resp.Narrative != question {
		t.Fatalf("response %+v", resp)
	}
	if len(resp.Outcomes) != 0 || len(resp.Rolls) != 0 || resp.Rejected != "" {
		t.Fatalf("an intent was resolved before the answer: %+v", resp)
	}
	cs, asked := passesOf(t, g.s)
	if passNames(cs) != "interpreter,validator,planner" || asked == nil || asked.Text != question || asked.Input != "I offer Nell the thing" {
		t.Fatalf("passes %s, clarification %+v", passNames(cs), asked)
	}

	// The answer continues what the player meant, in a game opened again
	// (the question is read from the record). The planner's second
	// question is not asked: one question per action.
	s, err := game.Open(ctx, g.st, g.s.ID(), game.Options{Pipeline: g.p})
	if err != nil {
		t.Fatal(err)
	}
	g.srv.script(
		`{"intents":[{"type":"talk","args":{"npc":"nell","topic":"rope"}}]}`,
		`{"beats":["Nell weighs the rope"],"tension":"","question":"Are you sure?"}`,
		`{"narration":"Nell turns the rope over in her hands."}`,
	)
	resp, err = s.Act(ctx, "the rope")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Awaiting.Kind == game.Clarification || resp.Narrative != "Nell turns the rope over in her hands." || len(resp.Outcomes) == 0 {
		t.Fatalf("the answer was not played: %+v", resp)
	}
	reqs := g.srv.requests()
	for _, i := range []int{2, 3} { // the interpreter and the planner
		got := reqs[i].last()
		for _, want := range []string{"I offer Nell the thing", question, "the rope"} {
			if !strings.Contains(got, want) {
				t.Errorf("request %d lacks %q: %q", i, want, got)
			}
		}
	}
	if cs, asked := passesOf(t, s); passNames(cs) != "interpreter,validator,planner,narrator" || asked != nil {
		t.Fatalf("passes %s, clarification %+v", passNames(cs), asked)
	}
}

type introductions struct {
	Applied []string `json:"applied"`
	Skipped []string `json:"skipped"`
	Lore    *struct {
		Scene   int      `json:"scene"`
		Briefed []string `json:"briefed"`
	} `json:"lore"`
}

func TestNarratorIntroductionsAreCommittedWithTheirLore(t *testing.T) {
	ctx := context.Background()
	g := newMultipass(t, false)
	scene := g.s.World().Scene.Number

	// A character introduced mid-scene: created at the player's side,
	// and only her lore is fetched into the scene's cache.
	g.srv.script(
		`{"intents":[{"type":"look"}]}`,
		`{"narration":"A woman in a grey coat steps out of the fog. \"Lost, are we?\"",`+
			`"introduced_npcs":[{"name":"Mira Thorne","description":"a smuggler in a grey coat","disposition":"wary"},{"name":"Nell Pike"}],`+
			`"established_facts":[{"subject":"Nell","fact":"Nell's brother drowned on the Teeth last winter.","category":"backstory"}]}`,
	)
	before := g.ix.n.Load()
	resp, err := g.s.Act(ctx, "I look around")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Narrative != "A woman in a grey coat steps out of the fog. \"Lost, are we?\"" {
		t.Fatalf("narrative %q", resp.Narrative)
	}
	w := g.s.World()
	mira := w.Characters["mira_thorne"]
	if mira == nil || mira.Location != w.PC().Location || mira.Disposition != "wary" {
		t.Fatalf("Mira %+v", mira)
	}
	found := false
	for _, f := range w.Facts {
		found = found || (f.Text == "Nell's brother drowned on the Teeth last winter." && f.Subject == "nell")
	}
	if !found {
		t.Errorf("the established fact is not in the world's facts")
	}
	if n := g.ix.n.Load() - before; n != 1 {
		t.Errorf("the new arrival cost %d searches; want one incremental fetch", n)
	}
	cs, _ := passesOf(t, g.s)
	if passNames(cs) != "interpreter,validator,narrator,introductions" {
		t.Fatalf("passes %s", passNames(cs))
	}
	in := output[introductions](t, cs[3])
	if len(in.Applied) != 2 || len(in.Skipped) != 1 || !strings.Contains(in.Skipped[0], "already exists") ||
		in.Lore == nil || !strings.Contains(strings.Join(in.Lore.Briefed, ","), "mira_thorne") {
		t.Errorf("introductions %+v", in)
	}
	br, err := g.st.BranchByName(ctx, g.s.ID(), g.s.Branch())
	if err != nil {
		t.Fatal(err)
	}
	cache, err := g.st.SceneLore(ctx, br.ID, g.s.Turn())
	if err != nil || cache.Turn != g.s.Turn() || !strings.Contains(string(cache.Lore), "owes Rook a debt") {
		t.Fatalf("scene lore with the turn: %+v %v", cache, err)
	}

	// A scene transition begins a new scene, whose lore is prepared.
	g.srv.script(
		`{"intents":[{"type":"look"}]}`,
		`{"narration":"The fog thickens into night.","scene_transition":{"title":"Night on the quay","location":"Nowhere Special","mood":"tense"}}`,
	)
	if _, err := g.s.Act(ctx, "I wait for nightfall"); err != nil {
		t.Fatal(err)
	}
	w = g.s.World()
	if w.Scene.Number != scene+1 || w.Scene.Title != "Night on the quay" || w.Scene.Location != "quay" || w.Scene.Mood != "tense" {
		t.Fatalf("scene %+v", w.Scene)
	}
	cache, err = g.st.SceneLore(ctx, br.ID, g.s.Turn())
	if err != nil || cache.Turn != g.s.Turn() || cache.Scene != scene+1 || !strings.Contains(string(cache.Lore), "scarred by smugglers") {
		t.Fatalf("the new scene's lore: %+v %v", cache, err)
	}
}

func TestNarratorFallsBackWhenItsAnswerIsNotValid(t *testing.T) {
	tests := []struct {
		name      string
		answer    string
		narrative func(string) bool
		fallback  string
	}{
		{"prose", "You look around the fog-bound quay.",
			func(s string) bool { return s == "You look around the fog-bound quay." }, "prose narration; story elements extracted offline"},
		{"broken after the narration", `{"narration":"You look around.","introduced_npcs":[{"name":`,
			func(s string) bool { return s == "You look around." }, "the narration, without the structured part"},
		{"broken inside the narration", `{"narration":"You look aro`,
			func(s string) bool {
				return strings.HasPrefix(s, "You look aro\n\n") && len(s) > len("You look aro\n\n")
			}, "offline narrator"},
		{"against the schema", `{"narration":42,"introduced_npcs":[{"name":"Mira Thorne"}]}`,
			func(s string) bool { return strings.TrimSpace(s) != "" }, "offline narrator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newMultipass(t, false)
			g.srv.script(`{"intents":[{"type":"look"}]}`, tt.answer)
			resp, err := g.s.Act(context.Background(), "I look around")
			if err != nil {
				t.Fatal(err)
			}
			if !tt.narrative(resp.Narrative) {
				t.Errorf("narrative %q", resp.Narrative)
			}
			cs, _ := passesOf(t, g.s)
			if passNames(cs) != "interpreter,validator,narrator" {
				t.Fatalf("passes %s", passNames(cs))
			}
			if nc := cs[2]; nc.Fallback != tt.fallback || nc.Report == nil || len(nc.Report.Errors) != 1 {
				t.Errorf("narrator record: fallback %q, report %+v", nc.Fallback, nc.Report)
			}
			if g.s.World().Characters["mira_thorne"] != nil {
				t.Errorf("an invalid answer introduced a character")
			}
			// The schema went with the request.
			if rf := string(g.srv.requests()[1].ResponseFormat); !strings.Contains(rf, "introduced_npcs") {
				t.Errorf("response_format %s", rf)
			}
		})
	}
}
