package gameapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/server/gameapi"
	"github.com/hearth-rpg/hearth/world"
)

// Markers of the module the DM's model lists; none may reach a player or
// a party member's model.
const (
	moduleName = "The Sunken Belfry"
	moduleHook = "BELLROPE-HOOK"
)

// The DM's model lists modules when asked, and narrates otherwise.
const moduleAnswer = `{"modules":[{"number":1,"name":"Keep on the Borderlands","description":"A keep.","setting":"Greyhawk","level_range":"1-3"},` +
	`{"number":2,"name":"` + moduleName + `","description":"A drowned chapel.","setting":"Saltmere coast","level_range":"2-4",` +
	`"hooks":"` + moduleHook + `: the bell rings at low tide","npcs":"Sister Orla","guidelines":"The tide rises."}]}`

// TestModuleSelection: the GM asks the DM's model (a local server speaking
// the OpenAI wire format) for modules, chooses one, and the party plays:
// every DM request after the choice holds the module's context, the party
// member's model (a second server) never does, and a player gets 403 from
// the module routes and no module in the session, the transcript or any
// WebSocket frame. Restoring to before the choice drops it.
func TestModuleSelection(t *testing.T) {
	dm := newPCModel(t, "dm-model", "The fog rolls in off the quay.")

	dmReply := func(prompt string) string {
		if strings.Contains(prompt, "adventure modules") {
			return moduleAnswer
		}
		return "The fog rolls in off the quay."
	}
	dm.reply = dmReply
	pc := newPCModel(t, "pc-bram", "search", "keep watch")
	h := newHarness(t, func(o *gameapi.Options) {
		o.Campaign = saltmereParty(t, "party: [{id: kestrel}, {id: bram, provider: openai, model: pc-bram}]")
		o.Prepare = func(ctx context.Context, s *game.Session) error {
			dp, err := openai.New(dm.srv.URL, "")
			if err != nil {
				return err
			}
			role := modelgm.Role{Provider: dp, Model: "dm-model"}
			pl, err := modelgm.New(modelgm.Config{Mode: modelgm.Agentic, Narrator: role, SummariseEvery: -1})
			if err != nil {
				return err
			}
			s.UsePipeline(pl)
			s.UseModuleFinder(modelgm.ModuleFinder{Role: role})
			s.UseAgents(func(ctx context.Context, m world.PartyMember) (game.Agent, error) {
				p, err := openai.New(pc.srv.URL, "")
				if err != nil {
					return nil, err
				}
				return modelgm.NewPartyAgent(modelgm.Role{Provider: p, Model: "pc-bram"}), nil
			})
			return nil
		}
	})
	var in gameapi.SessionInfo
	h.ok(http.StatusCreated, "POST", "/api/sessions", gm, map[string]any{"campaign": "party", "seed": 3}, &in)
	modules, module := "/api/sessions/"+in.ID+"/modules", "/api/sessions/"+in.ID+"/module"

	for _, u := range []string{player, trusted, ""} {
		want := http.StatusForbidden
		if u == "" {
			want = http.StatusUnauthorized
		}
		if code, b, _ := h.do("GET", modules, u, nil); code != want || strings.Contains(string(b), moduleName) {
			t.Errorf("GET modules as %q: %d %s, want %d", u, code, b, want)
		}
		if code, b, _ := h.do("POST", module, u, map[string]any{"number": 2}); code != want {
			t.Errorf("POST module as %q: %d %s, want %d", u, code, b, want)
		}
	}

	g := h.dial(in.ID, gm)
	g.state()
	p := h.dial(in.ID, player)
	p.state()
	var frames []string // every frame the player receives
	playTurn := func() int {
		t.Helper()
		g.send(gameapi.Command{Type: gameapi.NextTurn})
		u, _ := g.turnUpdate(nil)
		m, before := p.until(gameapi.TypeTurnUpdate, nil)
		for _, x := range append(before, m) {
			frames = append(frames, string(x.Raw))
		}
		return u.Turn
	}
	playTurn()
	dmBefore := len(dm.requests())

	var list gameapi.ModuleList
	h.ok(http.StatusOK, "GET", modules, gm, nil, &list)
	if list.Source != game.ModulesFromModel || len(list.Modules) != 2 || list.Modules[1].Name != moduleName || list.Modules[1].LevelRange != "2-4" {
		t.Fatalf("modules %+v", list)
	}
	h.ok(http.StatusNotFound, "POST", module, gm, map[string]any{"name": "Tomb of Horrors"}, nil)
	h.ok(http.StatusBadRequest, "POST", module, gm, map[string]any{}, nil)
	var chose gameapi.ModuleSelected
	h.ok(http.StatusOK, "POST", module, gm, map[string]any{"name": strings.ToLower(moduleName)}, &chose)
	if chose.Module.Name != moduleName || chose.Module.Source != game.ModulesFromModel {
		t.Fatalf("chose %+v", chose)
	}
	gu, _ := g.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Turn == chose.Turn })
	if gu.State.World.Module == nil || gu.State.World.Module.Name != moduleName {
		t.Errorf("the GM's session_state holds no module: %+v", gu.State.World.Module)
	}
	m, before := p.until(gameapi.TypeTurnUpdate, nil)
	for _, x := range append(before, m) {
		frames = append(frames, string(x.Raw))
	}
	for range 4 {
		playTurn()
	}

	var gmInfo, playerInfo gameapi.SessionInfo
	h.ok(http.StatusOK, "GET", "/api/sessions/"+in.ID, gm, nil, &gmInfo)
	if gmInfo.Module == nil || gmInfo.Module.Name != moduleName {
		t.Errorf("the GM's session view: module %+v", gmInfo.Module)
	}
	reads := []string{string(h.ok(http.StatusOK, "GET", "/api/sessions/"+in.ID, player, nil, &playerInfo)),
		string(h.ok(http.StatusOK, "GET", "/api/sessions/"+in.ID+"/turns?from=1&to=99", player, nil, nil)),
		string(h.ok(http.StatusOK, "GET", "/api/sessions/"+in.ID+"/transcript?format=md", player, nil, nil)),
		string(h.ok(http.StatusOK, "GET", "/api/sessions/"+in.ID+"/transcript?format=json", player, nil, nil))}
	for i, text := range append(reads, frames...) {
		if strings.Contains(text, moduleName) || strings.Contains(text, moduleHook) {
			t.Errorf("the player received the module (read %d): %.300s", i, text)
		}
	}

	dmReqs := dm.requests()
	narrations := 0
	for i, r := range dmReqs {
		if strings.Contains(r, "adventure modules") || strings.Contains(r, "You route a player's words") {
			continue // the module finder, and the router, which is told only the scene
		}
		has := strings.Contains(r, "## Current Module: "+moduleName) && strings.Contains(r, moduleHook)
		if has != (i >= dmBefore) {
			t.Errorf("DM request %d holds the module: %v", i, has)
		}
		if i >= dmBefore {
			narrations++
		}
	}
	if narrations < 4 {
		t.Errorf("%d DM narrations after the choice; the injection is barely tested", narrations)
	}
	pcReqs := pc.requests()
	if len(pcReqs) == 0 {
		t.Fatal("Bram's model was never asked; the party member's side is untested")
	}
	for i, r := range pcReqs {
		if strings.Contains(r, moduleName) || strings.Contains(r, moduleHook) || strings.Contains(r, "Current Module") {
			t.Errorf("Bram's model request %d holds the module", i)
		}
	}

	h.ok(http.StatusOK, "POST", "/api/sessions/"+in.ID+"/restore", gm, map[string]any{"turn": chose.Turn - 1}, nil)
	var after gameapi.SessionInfo
	h.ok(http.StatusOK, "GET", "/api/sessions/"+in.ID, gm, nil, &after)
	if after.Module != nil {
		t.Errorf("restored to turn %d, before the choice: module %+v", chose.Turn-1, after.Module)
	}
	n := len(dm.requests())
	playTurn()
	for _, r := range dm.requests()[n:] {
		if strings.Contains(r, moduleHook) {
			t.Error("after the restore the DM is still given the module")
		}
	}
}

// Without a model the list is the server's campaigns, said so; a model
// that fails gives the same list with a notice, never a made-up one.
func TestModulesOffline(t *testing.T) {
	broken := newPCModel(t, "dm-model", "I am not JSON")
	for _, tt := range []struct {
		name   string
		finder bool
		notice bool
	}{{"no model", false, false}, {"a model that answers garbage", true, true}} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(o *gameapi.Options) {
				o.Prepare = func(ctx context.Context, s *game.Session) error {
					if tt.finder {
						p, err := openai.New(broken.srv.URL, "")
						if err != nil {
							return err
						}
						s.UseModuleFinder(modelgm.ModuleFinder{Role: modelgm.Role{Provider: p, Model: "dm-model"}})
					}
					return nil
				}
			})
			in := h.create(1)
			var list gameapi.ModuleList
			h.ok(http.StatusOK, "GET", "/api/sessions/"+in.ID+"/modules", gm, nil, &list)
			if list.Source != game.ModulesFromCampaigns || (list.Notice != "") != tt.notice {
				t.Fatalf("source %q notice %q", list.Source, list.Notice)
			}
			if len(list.Modules) == 0 {
				t.Fatal("no campaigns listed")
			}
			m := list.Modules[0]
			if m.Name != "The Lantern of Saltmere" || m.LevelRange != "2" || !strings.Contains(m.Setting, "Low fantasy") ||
				m.Number != 1 || m.NPCs == "" || m.Hooks == "" || m.Source != game.ModulesFromCampaigns {
				t.Errorf("saltmere as a module: %+v", m)
			}
			var chose gameapi.ModuleSelected
			h.ok(http.StatusOK, "POST", "/api/sessions/"+in.ID+"/module", asst, map[string]any{"number": 1}, &chose)
			h.ok(http.StatusConflict, "POST", "/api/sessions/"+in.ID+"/module", gm, map[string]any{"number": 1}, nil)
			var info gameapi.SessionInfo
			h.ok(http.StatusOK, "GET", "/api/sessions/"+in.ID, gm, nil, &info)
			if info.Module == nil || info.Module.Name != m.Name || chose.Turn != info.Turn {
				t.Errorf("after the choice: %+v (turn %d)", info.Module, chose.Turn)
			}

		})
	}
}
