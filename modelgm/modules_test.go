package modelgm_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/world"
)

func TestParseModules(t *testing.T) {
	tests := []struct {
		name    string
		answer  string
		want    []string // "number:name|setting|level_range"
		hooks   string   // the first module's hooks, when checked
		wantErr string
	}{
		{"object", `{"modules":[{"number":1,"name":"The Sunless Citadel","description":"A ruined fortress.","setting":"Forgotten Realms","level_range":"1-3"}]}`,
			[]string{"1:The Sunless Citadel|Forgotten Realms|1-3"}, "", ""},
		{"fenced bare array, loose types", "Here you go:\n```json\n[{\"number\":\"#2\",\"title\":\"Keep on the Borderlands\",\"levels\":[1,3]," +
			"\"hooks\":[\"A caravan is late\",\"A reward is posted\"],\"npcs\":[{\"name\":\"Castellan\",\"role\":\"commands the keep\"}]}," +
			"{\"name\":\"Tomb of Horrors\",\"level_range\":10}]\n```",
			[]string{"2:Keep on the Borderlands||1-3", "1:Tomb of Horrors||10"}, "- A caravan is late\n- A reward is posted", ""},
		{"nameless entries dropped", `{"modules":[{"number":1},{"number":2,"name":"Hoard"}]}`, []string{"2:Hoard||"}, "", ""},
		{"prose", "I know many modules, such as the Keep.", nil, "", "not a JSON list"},
		{"no list", `{"adventures":[]}`, nil, "", `no "modules" list`},
		{"empty", `{"modules":[]}`, nil, "", "no usable module"},
		{"not objects", `{"modules":["a","b"]}`, nil, "", "not a list of objects"},
		{"too long", `{"modules":[` + strings.Repeat(`{"name":"x"},`, modelgm.MaxModulesAnswer/12) + `{"name":"y"}]}`, nil, "", "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := modelgm.ParseModules(tt.answer)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, m := range got {
				out = append(out, strings.Join([]string{itoa(m.Number) + ":" + m.Name, m.Setting, m.LevelRange}, "|"))
				if m.Source != game.ModulesFromModel {
					t.Errorf("%s: source %q", m.Name, m.Source)
				}
			}
			if strings.Join(out, ";") != strings.Join(tt.want, ";") {
				t.Errorf("modules %q, want %q", out, tt.want)
			}
			if tt.hooks != "" && got[0].Hooks != tt.hooks {
				t.Errorf("hooks %q, want %q", got[0].Hooks, tt.hooks)
			}
			if tt.name == "fenced bare array, loose types" && got[0].NPCs != "- Castellan: commands the keep" {
				t.Errorf("npcs %q", got[0].NPCs)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// FuzzParseModules: whatever a model answers, ParseModules neither panics
// nor returns a module without a name, an unnumbered or twice-numbered
// one, or more than game.ModulesMax.
func FuzzParseModules(f *testing.F) {
	for _, s := range []string{`{"modules":[{"number":1,"name":"A"}]}`, `[{"title":"B","levels":[1,2],"npcs":[{"name":"x"}]}]`,
		"```\n[{\"name\":\"C\",\"number\":\"3\"}]\n```", `{"modules":{}}`, `[[[[]]]]`, `{"modules":[{"name":["a",{"b":1}]}]}`, "", "{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := modelgm.ParseModules(s)
		if err != nil && len(got) > 0 {
			t.Fatalf("an error with modules: %v", err)
		}
		if len(got) > game.ModulesMax {
			t.Fatalf("%d modules", len(got))
		}
		seen := map[int]bool{}
		for _, m := range got {
			if strings.TrimSpace(m.Name) == "" || m.Number <= 0 || seen[m.Number] {
				t.Fatalf("module %+v (numbers so far %v)", m, seen)
			}
			seen[m.Number] = true
		}
	})
}

func TestModuleFinderOverOpenAI(t *testing.T) {
	srv, seen := openAIServer(t, `{"modules":[{"number":1,"name":"The Lost Mine of Phandelver","description":"Goblins and a lost mine.","setting":"Sword Coast","level_range":"1-5"}]}`)
	p, err := openai.New(srv.URL+"/v1", "")
	if err != nil {
		t.Fatal(err)
	}
	f := modelgm.ModuleFinder{Role: modelgm.Role{Provider: p, Model: "m"}}
	got, err := f.FindModules(context.Background(), game.Campaign{Title: "The Lantern of Saltmere", Genre: "Low fantasy"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "The Lost Mine of Phandelver" || got[0].LevelRange != "1-5" {
		t.Fatalf("modules %+v", got)
	}
	if s := seen(); len(s) != 1 || !strings.Contains(s[0], "The Lantern of Saltmere") {
		t.Errorf("the model was asked %q", s)
	}
}

// The chosen module is in the system prompt of every pass that plays the
// game master (the agent; the interpreter and planner), and not in the
// multi-pass narrator's, whose context is the player's projection.
func TestModuleInTheGameMastersPromptOnly(t *testing.T) {
	m := world.Module{Number: 1, Name: "The Drowned Abbey", Hooks: "ABBEYHOOK", NPCs: "ABBOTNPC", Source: game.ModulesFromModel}
	inSystem := func(msgs []llm.Message) bool {
		return len(msgs) > 0 && msgs[0].Role == llm.System && strings.Contains(msgs[0].Content, "## Current Module: The Drowned Abbey") &&
			strings.Contains(msgs[0].Content, "ABBEYHOOK")
	}
	t.Run("agentic", func(t *testing.T) {
		route := cassette.Text(`{"agent":"exploration"}`)
		model := cassette.Script(route, cassette.Text("The bell tolls."), route, cassette.Text("Fog."))
		s := newGame(t, model, modelgm.Config{Mode: modelgm.Agentic})
		ctx := context.Background()
		if _, err := s.Act(ctx, "look around"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SelectModule(ctx, m, "gail"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Act(ctx, "look around"); err != nil {
			t.Fatal(err)
		}
		reqs := model.Requests()
		// Each turn is a router call, then the agent's.
		if len(reqs) != 4 || inSystem(reqs[1].Messages) || !inSystem(reqs[3].Messages) {
			t.Fatalf("%d requests; the module in the first agent's: %v, in the second's: %v", len(reqs), len(reqs) > 1 && inSystem(reqs[1].Messages),
				len(reqs) > 3 && inSystem(reqs[3].Messages))
		}
	})
	t.Run("multipass", func(t *testing.T) {
		model := cassette.Script(
			cassette.Text(`{"intents":[{"type":"look","args":{}}]}`),
			cassette.Text(`{"beats":["a bell"],"tension":"low"}`),
			cassette.Text("You look around."),
		)
		s := newGame(t, model, modelgm.Config{Mode: modelgm.MultiPass, Plan: true})
		ctx := context.Background()
		if _, err := s.SelectModule(ctx, m, "gail"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Act(ctx, "look around"); err != nil {
			t.Fatal(err)
		}
		reqs := model.Requests()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want interpreter, planner, narrator", len(reqs))
		}
		for i, want := range []bool{true, true, false} {
			if got := inSystem(reqs[i].Messages); got != want {
				t.Errorf("request %d holds the module: %v, want %v", i, got, want)
			}
			all := ""
			for _, msg := range reqs[i].Messages {
				all += msg.Content
			}
			if !want && (strings.Contains(all, "ABBEYHOOK") || strings.Contains(all, "Drowned Abbey")) {
				t.Errorf("the narrator was told the module: %.300s", all)
			}
		}
	})
}
