package game_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/offlinegm"
	"github.com/hearth-rpg/hearth/world"
)

// The supervisor routes turns: initiative order in combat, else the
// members the DM addressed by name in order of mention, else round-robin.
func TestSupervisorOrder(t *testing.T) {
	party := []string{"wren", "moss", "ivy", "brand"}
	newWorld := func() *world.State {
		w := world.New("d20")
		w.Characters = map[string]*world.Character{}
		for _, id := range append(slices.Clone(party), "rat") {
			name := strings.ToUpper(id[:1]) + id[1:]
			if id == "ivy" {
				name = "Ivy Thorn"
			}
			w.Characters[id] = &world.Character{ID: id, Name: name, Sheet: world.Sheet{HP: 5, MaxHP: 5}}
		}
		for _, id := range party {
			w.Party = append(w.Party, world.PartyMember{Character: id, Controller: world.Controller{Kind: world.ControllerAI}})
		}
		w.Player = "wren"
		return w
	}
	type step struct {
		narration string
		want      string
	}
	tests := []struct {
		name   string
		combat []string // initiative order, highest first
		skip   string   // a member who may not act
		steps  []step
	}{
		{name: "round robin", steps: []step{{"", "moss"}, {"", "ivy"}, {"", "brand"}, {"", "wren"}}},
		{name: "round robin skips who may not act", skip: "ivy", steps: []step{{"", "moss"}, {"", "brand"}, {"", "wren"}}},
		{name: "addressed by name", steps: []step{{"The door creaks. Brand, what do you do?", "brand"}, {"", "wren"}}},
		{name: "addressed after a comma, by first name", steps: []step{{"The rope holds. What now, Ivy?", "ivy"}, {"", "brand"}}},
		{name: "several addressed in order of mention", steps: []step{
			{"Ivy: the altar glows. Brand, the lock clicks.", "ivy"}, {"", "brand"}, {"", "wren"}}},
		{name: "a later address replaces the waiting ones", steps: []step{
			{"Brand, you hear it. Ivy, you see it.", "brand"}, {"Moss! The wall moves.", "moss"}, {"", "ivy"}}},
		{name: "mentioned is not addressed", steps: []step{{"Brand stands guard while Ivy Thorn prays.", "moss"}}},
		{name: "the actor addressing itself changes nothing", steps: []step{{"Wren, you did well.", "moss"}}},
		{name: "addressed but may not act", skip: "brand", steps: []step{{"Brand, what do you do?", "moss"}}},
		{name: "initiative order in combat", combat: []string{"rat", "ivy", "wren", "moss"}, steps: []step{
			{"Ivy, what do you do?", "moss"}, {"", "ivy"}, {"", "wren"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			if tt.combat != nil {
				w.Combat = &world.Combat{Round: 1}
				for i, id := range tt.combat {
					w.Combat.Order = append(w.Combat.Order, world.Combatant{ID: id, Initiative: 20 - i})
				}
			}
			var sv game.Supervisor
			can := func(m world.PartyMember) bool { return m.Character != tt.skip }
			for i, st := range tt.steps {
				sv.Observe(w, w.Player, st.narration)
				m, ok := sv.Next(w, can)
				if !ok || m.Character != st.want {
					t.Fatalf("step %d (after %s, %q): next %q, want %q", i+1, w.Player, st.narration, m.Character, st.want)
				}
				w.Player = m.Character
			}
		})
	}
}

// playAgents plays n turns of the party campaign, each member deciding
// with the offline agent from its own view as the supervisor routes them,
// and returns every member's memory (as JSON) after each turn.
func playAgents(t *testing.T, s *game.Session, n int) map[int]string {
	t.Helper()
	ctx := context.Background()
	var sv game.Supervisor
	mem := map[int]string{}
	for range n {
		w := s.World()
		m, ok := sv.Next(w, func(m world.PartyMember) bool { return w.Characters[m.Character].Alive() })
		if !ok {
			t.Fatal("nobody may act")
		}
		words, err := offlinegm.NewAgent().Decide(ctx, game.AgentView(w, m.Character), m)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.PlayTurn(ctx, game.Play{Input: words, Agent: m.Character, Controller: "test"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Committed {
			sv.Observe(s.World(), r.Agent, r.Narrative)
		}
		mem[s.Turn()] = memoryJSON(t, s.World())
	}
	return mem
}

func memoryJSON(t *testing.T, w *world.State) string {
	t.Helper()
	b, err := json.Marshal(w.Memory)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every agent's memory is part of the checkpoint: restoring turn N, forking
// there or reopening the game brings back exactly the memories recorded at
// N, long-term summaries included.
func TestAgentMemoryRestoresExactly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir)
	s, err := game.New(ctx, db, loadParty(t), 3, game.Options{SnapshotEvery: 4})
	if err != nil {
		t.Fatal(err)
	}
	recorded := playAgents(t, s, 40)
	end := s.Turn()
	w := s.World()
	summarised := 0
	for _, m := range w.Members() {
		mem := w.Memory[m.Character]
		if mem == nil || len(mem.Recent) == 0 {
			t.Errorf("%s remembers nothing after %d turns", m.Character, end)
			continue
		}
		if mem.Summary != "" {
			summarised++
			if mem.Through >= mem.Recent[0].Turn {
				t.Errorf("%s: summary through turn %d overlaps the recent entries from turn %d", m.Character, mem.Through, mem.Recent[0].Turn)
			}
		}
	}
	if summarised == 0 {
		t.Fatalf("no memory was compressed in %d turns; the long-term summary is untested", end)
	}
	for _, n := range []int{3, 8, 13, end - 1} {
		if err := s.Restore(ctx, n); err != nil {
			t.Fatal(err)
		}
		if got := memoryJSON(t, s.World()); got != recorded[n] {
			t.Errorf("restored to turn %d, memories\n%s\nwant\n%s", n, got, recorded[n])
		}
	}
	if err := s.Restore(ctx, 13); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork(ctx, "what-if"); err != nil {
		t.Fatal(err)
	}
	if got := memoryJSON(t, s.World()); got != recorded[13] {
		t.Errorf("forked at 13, memories differ from those recorded there")
	}
	if err := s.Switch(ctx, "main"); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(ctx); err != nil {
		t.Errorf("replay of the memories: %v", err)
	}
	again, err := game.Open(ctx, db, s.ID(), game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := memoryJSON(t, again.World()); got != recorded[again.Turn()] {
		t.Errorf("reopened at turn %d, memories differ from those recorded there", again.Turn())
	}
}

// A member remembers what happened where it stood, and not what happened
// elsewhere; the memory in a member's view is its own alone.
func TestAgentMemoryHoldsOnlyWhatWasWitnessed(t *testing.T) {
	ctx := context.Background()
	s, err := game.New(ctx, openDB(t, t.TempDir()), loadParty(t), 5, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	play := func(agent, input string) int {
		t.Helper()
		r, err := s.PlayTurn(ctx, game.Play{Input: input, Agent: agent}, nil)
		if err != nil || !r.Committed {
			t.Fatalf("%s: %q: %v %+v", agent, input, err, r)
		}
		return r.Turn
	}
	moved := play("moss", "go north") // from the gate to the hall: all saw it leave
	talk := play("moss", "talk to tomas")
	back := play("wren", "search")
	w := s.World()
	turns := func(id string) []int {
		var out []int
		if m := w.Memory[id]; m != nil {
			for _, e := range m.Recent {
				out = append(out, e.Turn)
			}
		}
		return out
	}
	tests := []struct {
		who  string
		want []int
	}{
		{"moss", []int{moved, talk}},
		{"wren", []int{moved, back}},
		{"ivy", []int{moved, back}},
		{"brand", []int{moved, back}},
	}
	for _, tt := range tests {
		if got := turns(tt.who); !slices.Equal(got, tt.want) {
			t.Errorf("%s remembers turns %v, want %v", tt.who, got, tt.want)
		}
	}
	if m := w.Memory["moss"]; m == nil || !strings.Contains(m.Recent[1].Text, "Moss: talk to tomas") {
		t.Errorf("moss's memory of the talk: %+v", m)
	}
	v := game.AgentView(w, "wren")
	if len(v.Memory) != 1 || v.Memory["wren"] == nil {
		t.Errorf("wren's view holds the memories of %v", slices.Sorted(maps.Keys(v.Memory)))
	}
}

// namedAgent is an agent that only says who it is.
type namedAgent string

func (a namedAgent) Name() string { return string(a) }
func (a namedAgent) Decide(context.Context, *world.State, world.PartyMember) (string, error) {
	return "search", nil
}

// A member's agent follows its controller: the offline agent without a
// model, the model's agent with one, the new model's after a change made
// mid-campaign; a human's character has no agent.
func TestAgentOfFollowsTheController(t *testing.T) {
	ctx := context.Background()
	s, err := game.New(ctx, openDB(t, t.TempDir()), loadParty(t), 1, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	member := func(id string) world.PartyMember { return *s.World().Member(id) }
	name := func(id string) string {
		t.Helper()
		a, err := s.AgentOf(ctx, member(id))
		if err != nil {
			return "error"
		}
		return game.AgentName(a, member(id))
	}
	if got := name("moss"); got != "offline" {
		t.Errorf("without models moss is played by %q", got)
	}
	s.UseAgents(func(_ context.Context, m world.PartyMember) (game.Agent, error) {
		return namedAgent(m.Controller.Label()), nil
	})
	for _, tt := range []struct{ id, want string }{{"wren", "offline"}, {"moss", "ollama/qwen3"}, {"ivy", "error"}} {
		if got := name(tt.id); got != tt.want {
			t.Errorf("%s played by %q, want %q", tt.id, got, tt.want)
		}
	}
	if _, err := s.ChangeController(ctx, "moss", world.Controller{Kind: world.ControllerAI, Provider: "openai", Model: "gpt-x"}, "gail"); err != nil {
		t.Fatal(err)
	}
	if got := name("moss"); got != "openai/gpt-x" {
		t.Errorf("after the change moss is played by %q", got)
	}
}
