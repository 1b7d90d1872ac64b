package modelgm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/campaign"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

// newGame starts Saltmere (player at the quay, Nell there) in a real
// SQLite store, played by a pipeline over the given model.
func newGame(t testing.TB, model llm.Provider, cfg modelgm.Config) *game.Session {
	t.Helper()
	ctx := context.Background()
	c, err := campaign.LoadFS(ctx, hearth.Campaigns, hearth.DefaultCampaign)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg.Narrator = modelgm.Role{Provider: model, Model: "scripted"}
	cfg.Documents = modelgm.NewCampaignDocs(c)
	p, err := modelgm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := game.New(ctx, st, c, 7, game.Options{Pipeline: p})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// calls returns the model calls recorded with the last turn.
func calls(t *testing.T, s *game.Session) []modelgm.Call {
	t.Helper()
	recs, err := s.Turns(context.Background(), s.Turn(), s.Turn())
	if err != nil || len(recs) != 1 {
		t.Fatalf("turn %d: %v", s.Turn(), err)
	}
	var ps struct {
		Pipeline string            `json:"pipeline"`
		Prompts  map[string]string `json:"prompts"`
		Calls    []modelgm.Call    `json:"calls"`
	}
	if err := json.Unmarshal(recs[0].Passes, &ps); err != nil {
		t.Fatal(err)
	}
	return ps.Calls
}

func TestAgenticTurnWithRejectedAndCorrectedTool(t *testing.T) {
	model := cassette.Script(
		cassette.Text(`{"agent":"npc"}`),
		cassette.Calls("ability_check", `{"skill":"perception","dc":11,"reason":"scan the quay"}`, "talk", `{"npc":"gandalf"}`),
		cassette.Calls("talk", `{"npc":"nell","topic":"lantern"}`),
		cassette.Text("Fog beads on the bollards. ", "Nell looks up from her nets."),
	)
	s := newGame(t, model, modelgm.Config{Mode: modelgm.Agentic})
	var streamed strings.Builder
	resp, err := s.ActStream(context.Background(), "I look around and ask the woman by the nets about the lantern", func(p string) { streamed.WriteString(p) })
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Committed || resp.Narrative != "Fog beads on the bollards. Nell looks up from her nets." || streamed.String() != resp.Narrative {
		t.Fatalf("response %+v (streamed %q)", resp, streamed.String())
	}
	// Both accepted tools were resolved by the rules: a perception check and a conversation.
	var actions []string
	for _, o := range resp.Outcomes {
		actions = append(actions, o.Action)
	}
	if !strings.Contains(strings.Join(actions, ","), "talk") || len(resp.Rolls) == 0 {
		t.Fatalf("outcomes %v, rolls %v", actions, resp.Rolls)
	}
	// The model was told about the rejection and corrected itself.
	reqs := model.Requests()
	var rejected string
	for _, m := range reqs[2].Messages {
		if m.Role == llm.ToolRole && m.Name == "talk" {
			rejected = m.Content
		}
	}
	if !strings.Contains(rejected, "rejected by the rules") || !strings.Contains(strings.ToLower(rejected), "gandalf") {
		t.Fatalf("the model was told %q", rejected)
	}
	// Tool schemas come from the Go types.
	var talk llm.Tool
	for _, tool := range reqs[1].Tools {
		if tool.Name == "talk" {
			talk = tool
		}
	}
	if !strings.Contains(string(talk.Parameters), `"npc"`) || !strings.Contains(string(talk.Parameters), "who to talk to") {
		t.Fatalf("talk schema %s", talk.Parameters)
	}
	cs := calls(t, s)
	if len(cs) != 2 || cs[0].Pass != "router" || cs[0].Fallback != "" || cs[1].Pass != "agent:npc" || cs[1].Prompt != "npc@2" ||
		len(cs[1].Tools) != 3 || !cs[1].Tools[1].Error {
		t.Fatalf("recorded calls %+v", cs)
	}
	if cs[1].Context == nil || cs[1].Context.Tokens == 0 || cs[1].Context.Tokens > cs[1].Context.Budget {
		t.Fatalf("recorded context %+v", cs[1].Context)
	}
}

func TestMultiPassTurn(t *testing.T) {
	model := cassette.Script(
		cassette.Text(`{"intents":[{"type":"move","args":{"destination":"atlantis"}}]}`), // hallucinated place
		cassette.Text("```json\n{\"intents\":[{\"type\":\"move\",\"args\":{\"destination\":\"north\"}}]}\n```"),
		cassette.Text(`{"beats":["the tavern falls quiet"],"tension":"someone watches from the corner"}`),
		cassette.Text("You push into the Drowned Lantern. ", "Talk dies as the door bangs."),
	)
	s := newGame(t, model, modelgm.Config{Mode: modelgm.MultiPass, Plan: true})
	resp, err := s.Act(context.Background(), "I head north to the tavern")
	if err != nil {
		t.Fatal(err)
	}
	if s.World().PC().Location != "tavern" || resp.Narrative != "You push into the Drowned Lantern. Talk dies as the door bangs." {
		t.Fatalf("at %s, narrative %q", s.World().PC().Location, resp.Narrative)
	}
	cs := calls(t, s)
	var passes []string
	for _, c := range cs {
		passes = append(passes, c.Pass)
	}
	if strings.Join(passes, ",") != "interpreter,validator,interpreter,validator,planner,narrator" {
		t.Fatalf("passes %v", passes)
	}
	// The validator sent the invented place back to the interpreter.
	if !strings.Contains(string(cs[1].Output), `"unresolved"`) || !strings.Contains(string(cs[1].Output), "atlantis") {
		t.Fatalf("validator verdict %s", cs[1].Output)
	}
	// The narrator saw the plan and the outcome, in the player's projection.
	last := model.Requests()[3].Messages
	if got := last[len(last)-1].Content; !strings.Contains(got, "the tavern falls quiet") || !strings.Contains(got, "Drowned Lantern") {
		t.Fatalf("narrator was told %q", got)
	}
	if cs[5].Context.Viewer.Character != "kestrel" {
		t.Fatalf("narrator context viewer %+v", cs[5].Context.Viewer)
	}
	// Its answer was prose, not the structured output: kept, and recorded.
	if cs[5].Fallback == "" {
		t.Fatalf("narrator record %+v", cs[5])
	}
}

func TestGarbageEndsInFallbackNarration(t *testing.T) {
	garbage := func(n int) []cassette.Interaction {
		var out []cassette.Interaction
		for i := range n {
			switch i % 3 {
			case 0:
				out = append(out, cassette.Text("lol I am a teapot {"))
			case 1:
				out = append(out, cassette.Calls("teleport", `{"to":"moon"}`, "attack", `not json`))
			default:
				out = append(out, cassette.Text(""))
			}
		}
		return out
	}
	for _, mode := range []string{modelgm.Agentic, modelgm.MultiPass} {
		t.Run(mode, func(t *testing.T) {
			// Agentic: the model only ever calls nonsense tools.
			script := garbage(300)
			if mode == modelgm.Agentic {
				script = nil
				for range 300 {
					script = append(script, cassette.Calls("teleport", `{"to":"moon"}`, "attack", `not json`))
				}
			}
			// The hard limit only guards against a hang: the garbage must
			// end by the loop's own limits, which no call's error may blame
			// on the clock.
			s := newGame(t, cassette.Script(script...), modelgm.Config{Mode: mode, Agent: agent.Config{HardTimeout: 2 * time.Minute}})
			resp, err := s.Act(context.Background(), "go north")
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range calls(t, s) {
				if strings.Contains(c.Error, agent.ErrHardTimeout.Error()) {
					t.Fatalf("the %s pass ran into the hard time limit: %s", c.Pass, c.Error)
				}
			}
			if !resp.Committed || strings.TrimSpace(resp.Narrative) == "" || s.World().PC().Location != "tavern" {
				t.Fatalf("response %+v at %s", resp, s.World().PC().Location)
			}
			fell := false
			for _, c := range calls(t, s) {
				fell = fell || c.Fallback != ""
			}
			if !fell {
				t.Fatalf("no fallback recorded: %+v", calls(t, s))
			}
		})
	}
}

func TestPauseContinueCancelThroughSession(t *testing.T) {
	var script []cassette.Interaction
	for i := range 8 {
		script = append(script, cassette.Interaction{Op: "chat", Chunks: []llm.Chunk{{Content: fmt.Sprintf("Step %d. ", i)}},
			Response: &llm.Response{Message: llm.Message{Content: fmt.Sprintf("Step %d. ", i),
				ToolCalls: []llm.ToolCall{{Name: "search", Arguments: json.RawMessage(`{}`)}}}}})
	}
	ctl := &decider{decisions: []agent.Decision{agent.Continue, agent.Cancel}}
	s := newGame(t, cassette.Script(script...), modelgm.Config{Mode: modelgm.Agentic, NoSubagents: true, Controller: ctl,
		Agent: agent.Config{PauseAfterCalls: 2, MaxConsecutiveInternal: 10}})
	resp, err := s.Act(context.Background(), "search the quay thoroughly")
	if err != nil {
		t.Fatal(err)
	}
	if ctl.pauses != 2 || !resp.Committed || resp.Narrative != "Step 0. Step 1. Step 2. Step 3. " {
		t.Fatalf("%d pauses, response %+v", ctl.pauses, resp)
	}
	cs := calls(t, s)
	if cs[0].Error != "cancelled at a pause" || len(cs[0].Tools) != 4 {
		t.Fatalf("record %+v", cs[0])
	}
}

type decider struct {
	decisions []agent.Decision
	pauses    int
}

func (d *decider) ToolResult(ctx context.Context, call llm.ToolCall) (string, error) {
	return "", fmt.Errorf("no client")
}

func (d *decider) Pause(ctx context.Context, e agent.Event) (agent.Decision, error) {
	d.pauses++
	if len(d.decisions) == 0 {
		return agent.Cancel, nil
	}
	x := d.decisions[0]
	d.decisions = d.decisions[1:]
	return x, nil
}
