package modelgm_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/rules"
)

func toolNames(req llm.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	return out
}

// In default play a turn that needs new things reaches the worldbuilder,
// whose tools create a person and a place, schedule an event and read
// the schedule back.
func TestWorldbuilderInDefaultPlay(t *testing.T) {
	model := cassette.Script(
		cassette.Text(`{"agent":"worldbuilder"}`),
		cassette.Calls(
			"create_npc", `{"name":"Oswin Tarr","description":"A one-eyed ferryman.","disposition":"wary"}`,
			"create_location", `{"name":"Tarr's Landing","description":"A sagging jetty.","connect_to":"quay","direction":"east","back_direction":"west"}`,
			"schedule_event", `{"description":"The smugglers' boat comes in","in":"6h","location":"Tarr's Landing"}`),
		cassette.Calls("check_schedule", `{"within":"1d"}`),
		cassette.Text("A ferryman waves from a jetty to the east."),
	)
	s := newGame(t, model, modelgm.Config{})
	resp, err := s.Act(context.Background(), "Is there anyone who could row me across the bay tonight?")
	if err != nil {
		t.Fatal(err)
	}
	w := s.World()
	var npc, place bool
	for _, c := range w.Characters {
		npc = npc || c.Name == "Oswin Tarr"
	}
	for _, l := range w.Locations {
		place = place || l.Name == "Tarr's Landing"
	}
	var event bool
	for _, ev := range w.Scheduled {
		event = event || ev.Description == "The smugglers' boat comes in"
	}
	if !resp.Committed || !npc || !place || !event {
		t.Fatalf("npc %v, place %v, event %v; response %+v", npc, place, event, resp)
	}
	cs := calls(t, s)
	if len(cs) != 2 || cs[0].Pass != "router" || cs[1].Pass != "agent:worldbuilder" || cs[1].Prompt != "worldbuilder@1" {
		t.Fatalf("calls %+v", cs)
	}
	if got := cs[1].Tools[3]; got.Name != "check_schedule" || got.Error || !strings.Contains(got.Result, "(in 6h): The smugglers' boat comes in [at Tarr's Landing]") {
		t.Fatalf("check_schedule answered %+v", got)
	}
	// The router was asked with a tiny request: its prompt, the scene and
	// the words, no tools.
	router := model.Requests()[0]
	if len(router.Tools) != 0 || len(router.Schema) == 0 || len(router.Messages) != 2 ||
		!strings.Contains(router.Messages[1].Content, "Present: Nell") || !strings.Contains(router.Messages[1].Content, "row me across") {
		t.Fatalf("router request %+v", router)
	}
}

// "I search the room for traps" is offered dice and a check whichever way
// the router decides: by the model, or by keywords when the model fails
// or answers nonsense.
func TestTrapSearchOffersDice(t *testing.T) {
	for _, c := range []struct {
		name     string
		router   cassette.Interaction
		fallback string
	}{
		{"model", cassette.Text(`{"agent":"exploration"}`), ""},
		{"model alias", cassette.Text("```json\n{\"agent\":\"explore\"}\n```"), ""},
		{"nonsense", cassette.Text(`{"agent":"wizard"}`), "keyword router"},
		{"failure", cassette.Fail(llm.Overloaded, "boom"), "keyword router"},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := cassette.Script(c.router,
				cassette.Calls("search", `{}`),
				cassette.Text("You run your fingers along the cracks."))
			s := newGame(t, model, modelgm.Config{})
			if _, err := s.Act(context.Background(), "I search the room for traps"); err != nil {
				t.Fatal(err)
			}
			reqs := model.Requests()
			if len(reqs) < 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			tools := toolNames(reqs[1])
			for _, want := range []string{"search", "ability_check", "roll_dice"} {
				if !slices.Contains(tools, want) {
					t.Errorf("the agent was not offered %s: %v", want, tools)
				}
			}
			cs := calls(t, s)
			if cs[0].Pass != "router" || cs[0].Fallback != c.fallback || cs[1].Pass != "agent:exploration" {
				t.Fatalf("calls %+v", cs)
			}
		})
	}
}

// A model's attack on someone who is not hostile is not resolved: the
// turn ends with the game's question, a yes carries the attack out and
// the model tells it, a no drops it. Both pipelines.
func TestAttackOnAFriendAsksFirst(t *testing.T) {
	for _, c := range []struct {
		name   string
		mode   string
		router string // the subagent the router model picks
		silent bool   // the agent says nothing: the offline interpreter reads the words
		answer string
	}{
		{"agentic npc yes", modelgm.Agentic, "npc", false, "yes"},
		{"agentic combat no", modelgm.Agentic, "combat", false, "no"},
		{"agentic silent yes", modelgm.Agentic, "exploration", true, "yes"},
		{"multipass yes", modelgm.MultiPass, "", false, "yes"},
		{"multipass no", modelgm.MultiPass, "", false, "no"},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := []cassette.Interaction{
				cassette.Text(`{"intents":[{"type":"attack","args":{"target":"nell"}}]}`),
				cassette.Text("Steel flashes on the quay."),
			}
			if c.mode == modelgm.Agentic {
				script = []cassette.Interaction{
					cassette.Text(`{"agent":"` + c.router + `"}`),
					cassette.Calls("attack", `{"target":"Nell"}`),
					cassette.Text("Your hand drifts to your blade."),
					cassette.Text("Steel flashes on the quay."),
				}
			}
			if c.silent {
				script = []cassette.Interaction{cassette.Text(`{"agent":"` + c.router + `"}`), cassette.Text(""),
					cassette.Text("Steel flashes on the quay.")}
			}
			model := cassette.Script(script...)
			s := newGame(t, model, modelgm.Config{Mode: c.mode})
			ctx := context.Background()
			nell := s.World().Characters["nell"]
			hp := nell.Sheet.HP
			resp, err := s.Act(ctx, "attack Nell")
			if err != nil {
				t.Fatal(err)
			}
			if resp.Awaiting.Kind != game.Confirmation || !strings.HasSuffix(resp.Narrative, "Nell Pike is not hostile. Attack anyway? (yes/no)") ||
				len(resp.Rolls) != 0 || s.World().Combat != nil || nell.Sheet.HP != hp {
				t.Fatalf("asked %+v; combat %v, hp %d", resp, s.World().Combat, nell.Sheet.HP)
			}
			if c.mode == modelgm.Agentic && !c.silent {
				told := ""
				for _, m := range model.Requests()[2].Messages {
					if m.Role == llm.ToolRole && m.Name == "attack" {
						told = m.Content
					}
				}
				if !strings.Contains(told, "Not done yet") {
					t.Fatalf("the model was told %q", told)
				}
			}
			before := len(model.Requests())
			resp, err = s.Act(ctx, c.answer)
			if err != nil {
				t.Fatal(err)
			}
			attacked := slices.ContainsFunc(resp.Outcomes, func(o rules.Outcome) bool { return o.Action == "attack" && o.Target == "nell" })
			if c.answer == "no" {
				if attacked || resp.Narrative != "You think better of it." || len(model.Requests()) != before {
					t.Fatalf("after no: %+v", resp)
				}
				return
			}
			if !attacked || !resp.Committed || resp.Narrative != "Steel flashes on the quay." {
				t.Fatalf("after yes: %+v", resp)
			}
			if cs := calls(t, s); len(cs) != 1 || cs[0].Pass != "narrator" {
				t.Fatalf("calls after yes %+v", cs)
			}
		})
	}
}
