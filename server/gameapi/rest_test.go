package gameapi_test

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/server/gameapi"
)

func TestRESTRoundTrip(t *testing.T) {
	h := newHarness(t)

	// Creating takes an assistant, a campaign that exists and a title of
	// reasonable length.
	for _, tt := range []struct {
		user   string
		body   any
		status int
	}{
		{"", map[string]any{"campaign": "saltmere"}, http.StatusUnauthorized},
		{player, map[string]any{"campaign": "saltmere"}, http.StatusForbidden},
		{trusted, map[string]any{"campaign": "saltmere"}, http.StatusForbidden},
		{gm, map[string]any{"campaign": "atlantis"}, http.StatusNotFound},
		{gm, map[string]any{"campaign": "../campaigns"}, http.StatusNotFound},
		{gm, map[string]any{}, http.StatusBadRequest},
		{gm, map[string]any{"campaign": "saltmere", "title": strings.Repeat("n", 201)}, http.StatusBadRequest},
		{gm, map[string]any{"campaign": "saltmere", "colour": "red"}, http.StatusBadRequest},
	} {
		if got, b, _ := h.do("POST", "/api/sessions", tt.user, tt.body); got != tt.status {
			t.Errorf("create %v as %q: %d, want %d: %s", tt.body, tt.user, got, tt.status, b)
		}
	}
	var created gameapi.SessionInfo
	status, b, hdr := h.do("POST", "/api/sessions", asst, map[string]any{"campaign": "saltmere", "seed": 42, "title": "Thursday group"})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, b)
	}
	if err := json.Unmarshal(b, &created); err != nil {
		t.Fatal(err)
	}
	id := created.ID
	if created.Seed != 42 || created.Branch != "main" || created.Turn != 0 || created.Title != "Thursday group" ||
		created.Campaign != "the_lantern_of_saltmere" ||
		hdr.Get("Location") != "/api/sessions/"+id {
		t.Fatalf("created %+v at %q", created, hdr.Get("Location"))
	}

	var list struct{ Sessions []gameapi.SessionInfo }
	h.ok(http.StatusOK, "GET", "/api/sessions", player, nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != id || list.Sessions[0].Campaign != created.Campaign || list.Sessions[0].Branch != "main" {
		t.Fatalf("list %+v", list.Sessions)
	}
	var got gameapi.SessionInfo
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id, player, nil, &got)
	if got.Seed != 0 || got.Created == nil || got.Autopilot == nil || got.Autopilot.Speed != "normal" {
		t.Errorf("a player's detail: %+v (no seed for players)", got)
	}

	// Three turns over the WebSocket; a watcher sees every REST change.
	p, watcher := h.dial(id, player), h.dial(id, player)
	p.state()
	watcher.state()
	for i, in := range []string{"look around", "go west", "search"} {
		p.send(gameapi.Command{Type: gameapi.HumanAction, Content: in})
		p.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Turn == i+1 })
	}

	var page gameapi.TurnsPage
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id+"/turns", gm, nil, &page)
	if len(page.Turns) != 3 || page.Turn != 3 || page.Branch != "main" || len(page.Turns[0].Passes) == 0 {
		t.Fatalf("GM's turns: %d at %d on %s, passes %d", len(page.Turns), page.Turn, page.Branch, len(page.Turns[0].Passes))
	}
	page = gameapi.TurnsPage{}
	pb := h.ok(http.StatusOK, "GET", "/api/sessions/"+id+"/turns?from=2&to=3", player, nil, &page)
	if len(page.Turns) != 2 || page.Turns[0].Number != 2 || page.Turns[1].Input != "search" {
		t.Fatalf("player's turns 2..3: %+v", page.Turns)
	}
	for _, tr := range page.Turns {
		if len(tr.Passes) != 0 || len(tr.Intents) != 0 || tr.Narrative == "" {
			t.Errorf("player's turn %d: passes %d intents %d narrative %q", tr.Number, len(tr.Passes), len(tr.Intents), tr.Narrative)
		}
	}
	assertHidden(t, "the player's turns", string(pb))
	if got, b, _ := h.do("GET", "/api/sessions/"+id+"/turns?from=two", player, nil); got != http.StatusBadRequest || !strings.Contains(string(b), "from") {
		t.Errorf("bad from: %d %s", got, b)
	}

	// Restore.
	if got, _, _ := h.do("POST", "/api/sessions/"+id+"/restore", player, map[string]any{"turn": 1}); got != http.StatusForbidden {
		t.Errorf("a player's restore: %d", got)
	}
	if got, b, _ := h.do("POST", "/api/sessions/"+id+"/restore", gm, map[string]any{"turn": 99}); got != http.StatusBadRequest || !strings.Contains(string(b), "turns 0 to 3") {
		t.Errorf("restore 99: %d %s", got, b)
	}
	h.ok(http.StatusOK, "POST", "/api/sessions/"+id+"/restore", gm, map[string]any{"turn": 1}, &got)
	if got.Turn != 1 {
		t.Errorf("restored to %d", got.Turn)
	}
	if s := watcher.state(); s.Turn != 1 || s.Branch != "main" || s.World.PC().Location != "quay" {
		t.Errorf("the watcher after restore: turn %d on %s at %s", s.Turn, s.Branch, s.World.PC().Location)
	}

	// Fork at turn 1 and play on it.
	var br game.BranchInfo
	h.ok(http.StatusCreated, "POST", "/api/sessions/"+id+"/forks", gm, map[string]any{"name": "alt"}, &br)
	if br.Name != "alt" || br.ForkTurn != 1 || !br.Current || br.Parent != "main" {
		t.Errorf("fork %+v", br)
	}
	if s := watcher.state(); s.Branch != "alt" || s.Turn != 1 {
		t.Errorf("the watcher after fork: %s at %d", s.Branch, s.Turn)
	}
	for _, tt := range []struct {
		user   string
		name   string
		status int
	}{
		{gm, "alt", http.StatusConflict},
		{gm, "../etc", http.StatusBadRequest},
		{player, "mine", http.StatusForbidden},
	} {
		if got, b, _ := h.do("POST", "/api/sessions/"+id+"/forks", tt.user, map[string]any{"name": tt.name}); got != tt.status {
			t.Errorf("fork %q as %s: %d, want %d: %s", tt.name, tt.user, got, tt.status, b)
		}
	}
	p.send(gameapi.Command{Type: gameapi.HumanAction, Content: "go north"})
	if u, _ := p.turnUpdate(nil); u.Turn != 2 || u.State.Branch != "alt" {
		t.Fatalf("turn on alt: %d on %s", u.Turn, u.State.Branch)
	}

	var forks struct{ Forks []game.BranchInfo }
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id+"/forks", player, nil, &forks)
	if len(forks.Forks) != 2 || forks.Forks[1].Name != "alt" || forks.Forks[1].Tip != 2 || !forks.Forks[1].Current {
		t.Errorf("forks %+v", forks.Forks)
	}

	// Switch back to main.
	if got, _, _ := h.do("POST", "/api/sessions/"+id+"/forks/nowhere/switch", gm, nil); got != http.StatusNotFound {
		t.Errorf("switch to a missing branch: %d", got)
	}
	if got, _, _ := h.do("POST", "/api/sessions/"+id+"/forks/main/switch", player, nil); got != http.StatusForbidden {
		t.Errorf("a player's switch: %d", got)
	}
	h.ok(http.StatusOK, "POST", "/api/sessions/"+id+"/forks/main/switch", gm, nil, &got)
	if got.Branch != "main" || got.Turn != 3 {
		t.Errorf("switched to %s at %d", got.Branch, got.Turn)
	}
	if s := watcher.state(); s.Branch != "main" || s.Turn != 3 {
		t.Errorf("the watcher after switch: %s at %d", s.Branch, s.Turn)
	}

	// Compare the two lines from turn 1.
	for _, user := range []string{gm, player} {
		var cmp gameapi.Comparison // fresh: decoding into an old one keeps its fields
		cb := h.ok(http.StatusOK, "GET", "/api/sessions/"+id+"/compare?a=main&b=alt", user, nil, &cmp)
		inputs := func(l gameapi.BranchLine) (out []string) {
			for _, t := range l.Turns {
				out = append(out, t.Input)
			}
			return out
		}
		if cmp.Ancestor != 1 || cmp.A.Branch != "main" || cmp.A.Tip != 3 || cmp.B.Tip != 2 ||
			!slices.Equal(inputs(cmp.A), []string{"go west", "search"}) || !slices.Equal(inputs(cmp.B), []string{"go north"}) {
			t.Errorf("compare as %s: %+v", user, cmp)
		}
		if user == player {
			assertHidden(t, "the player's comparison", string(cb))
			if strings.Contains(string(cb), `"passes"`) {
				t.Error("the player's comparison holds pipeline passes")
			}
		}
	}
	if got, _, _ := h.do("GET", "/api/sessions/"+id+"/compare?a=main", gm, nil); got != http.StatusBadRequest {
		t.Errorf("compare with one branch: %d", got)
	}
	if got, _, _ := h.do("GET", "/api/sessions/"+id+"/compare?a=main&b=nope", gm, nil); got != http.StatusNotFound {
		t.Errorf("compare with a missing branch: %d", got)
	}

	// Transcripts, as attachments; the player's without the seed or secrets.
	for _, tt := range []struct {
		user, format, ext string
		want, not         []string
	}{
		{gm, "md", ".md", []string{"# The Lantern of Saltmere", "## Turn 3", "> search", "seed 42", "<sub>played by kestrel (pat)</sub>"}, nil},
		{gm, "json", ".json", []string{`"seed": 42`, `"passes"`, `"input": "search"`}, nil},
		{player, "md", ".md", []string{"# The Lantern of Saltmere", "## Turn 3", "> search", "<sub>played by kestrel (pat)</sub>"}, []string{"seed"}},
		{player, "json", ".json", []string{`"input": "search"`, `"branch": "main"`}, []string{"seed", `"passes"`, `"intents"`}},
	} {
		status, b, hdr := h.do("GET", "/api/sessions/"+id+"/transcript?format="+tt.format, tt.user, nil)
		disp, params, err := mime.ParseMediaType(hdr.Get("Content-Disposition"))
		if status != http.StatusOK || err != nil || disp != "attachment" || !strings.HasSuffix(params["filename"], tt.ext) {
			t.Errorf("%s transcript as %s: %d, disposition %q", tt.format, tt.user, status, hdr.Get("Content-Disposition"))
		}
		for _, s := range tt.want {
			if !strings.Contains(string(b), s) {
				t.Errorf("%s transcript as %s lacks %q", tt.format, tt.user, s)
			}
		}
		for _, s := range tt.not {
			if strings.Contains(string(b), s) {
				t.Errorf("%s transcript as %s holds %q", tt.format, tt.user, s)
			}
		}
		if tt.user == player {
			assertHidden(t, "the player's transcript", string(b))
		}
	}
	if got, _, _ := h.do("GET", "/api/sessions/"+id+"/transcript?format=pdf", gm, nil); got != http.StatusBadRequest {
		t.Errorf("transcript as pdf: %d", got)
	}

	// Delete: the GM's or an assistant's; connected clients are told and
	// let go.
	if got, _, _ := h.do("DELETE", "/api/sessions/"+id, player, nil); got != http.StatusForbidden {
		t.Errorf("a player's delete: %d", got)
	}
	h.ok(http.StatusNoContent, "DELETE", "/api/sessions/"+id, asst, nil, nil)
	if e := watcher.errorMsg(); e.Recoverable || !strings.Contains(e.Message, "deleted") {
		t.Errorf("the watcher on delete: %+v", e)
	}
	if s := watcher.closed(); s != websocket.StatusNormalClosure {
		t.Errorf("the watcher was let go with %v", s)
	}
	if got, _, _ := h.do("GET", "/api/sessions/"+id, gm, nil); got != http.StatusNotFound {
		t.Errorf("get after delete: %d", got)
	}
	h.ok(http.StatusOK, "GET", "/api/sessions", gm, nil, &list)
	if len(list.Sessions) != 0 {
		t.Errorf("list after delete: %+v", list.Sessions)
	}
}

func TestUnknownSession(t *testing.T) {
	h := newHarness(t)
	for _, r := range []struct{ method, path string }{
		{"GET", "/api/sessions/nope"},
		{"DELETE", "/api/sessions/nope"},
		{"GET", "/api/sessions/nope/config"},
		{"PUT", "/api/sessions/nope/config"},
		{"GET", "/api/sessions/nope/turns"},
		{"POST", "/api/sessions/nope/restore"},
		{"GET", "/api/sessions/nope/forks"},
		{"POST", "/api/sessions/nope/forks"},
		{"POST", "/api/sessions/nope/forks/main/switch"},
		{"GET", "/api/sessions/nope/compare?a=main&b=main"},
		{"GET", "/api/sessions/nope/transcript"},
		{"GET", "/ws/game/nope"},
	} {
		status, b, _ := h.do(r.method, r.path, gm, map[string]any{})
		var body struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(b, &body); status != http.StatusNotFound || err != nil || body.Error.Code != "not_found" ||
			!strings.Contains(body.Error.Message, "nope") {
			t.Errorf("%s %s: %d %s", r.method, r.path, status, b)
		}
	}
}

func TestErrorsSpeakTheCallersLanguage(t *testing.T) {
	h := newHarness(t)
	req, _ := http.NewRequestWithContext(context.Background(), "GET", h.ts.URL+"/api/sessions/nope", nil)
	req.Header.Set("X-Test-User", player)
	req.Header.Set("Accept-Language", "de")
	res, err := h.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct{ Error struct{ Message string } }
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Error.Message != "Es gibt kein Spiel nope." {
		t.Errorf("German 404: %q", body.Error.Message)
	}
}

func TestCloseStopsAutopilotsAndKeepsCommittedTurns(t *testing.T) {
	h := newHarness(t)
	id := h.create(13).ID
	g := h.dial(id, gm)
	g.state()
	g.send(gameapi.Command{Type: gameapi.StartAutopilot, Speed: "fast"})
	g.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Turn == 2 })

	// The client reads on, as a browser does, until the server hangs up.
	got := make(chan []msg, 1)
	go func() {
		var ms []msg
		for {
			m, err := g.read()
			if err != nil {
				if s := websocket.CloseStatus(err); s != websocket.StatusGoingAway {
					ms = append(ms, msg{Type: "closed with " + s.String()})
				}
				got <- ms
				return
			}
			ms = append(ms, m)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := h.srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	ms := <-got
	i := slices.IndexFunc(ms, func(m msg) bool { return m.Type == gameapi.TypeAutopilotStopped })
	if i < 0 {
		t.Fatalf("no autopilot_stopped among %d messages", len(ms))
	}
	if last := ms[len(ms)-1]; strings.HasPrefix(last.Type, "closed with") {
		t.Errorf("the server hung up: %s", last.Type)
	}
	var stopped gameapi.AutopilotStopped
	ms[i].into(t, &stopped)
	if stopped.Reason != "shutdown" {
		t.Errorf("stopped for %q", stopped.Reason)
	}
	if got, _, _ := h.do("GET", "/api/sessions/"+id+"/turns", gm, nil); got != http.StatusServiceUnavailable {
		t.Errorf("turns after close: %d", got)
	}
	s, err := game.Open(ctx, h.db, id, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Turn() < 2 {
		t.Errorf("after close the game is at turn %d; turns 1 and 2 were committed", s.Turn())
	}
	if err := s.Verify(ctx); err != nil {
		t.Errorf("the stored game does not replay: %v", err)
	}
}

// The autopilot's speed is kept with the game: another server over the
// same store (a restart) lists and plays it at that speed.
func TestSpeedOutlivesTheServer(t *testing.T) {
	glacial := func(o *gameapi.Options) { o.Speeds["glacial"] = 24 * time.Hour }
	h := newHarness(t, glacial)
	s := h.create(1)
	speed := "glacial"
	var cfg gameapi.Config
	h.ok(http.StatusOK, "PUT", "/api/sessions/"+s.ID+"/config", asst, gameapi.ConfigUpdate{Speed: &speed}, &cfg)
	if cfg.Speed != speed {
		t.Fatalf("config after PUT: %+v", cfg)
	}

	again := newHarness(t, glacial, func(o *gameapi.Options) { o.Store = h.db })
	var info gameapi.SessionInfo
	again.ok(http.StatusOK, "GET", "/api/sessions/"+s.ID, gm, nil, &info)
	if info.Autopilot == nil || info.Autopilot.Speed != speed {
		t.Errorf("the game, not yet loaded, after a restart: autopilot %+v", info.Autopilot)
	}
	again.ok(http.StatusOK, "GET", "/api/sessions/"+s.ID+"/config", asst, nil, &cfg)
	if cfg.Speed != speed {
		t.Errorf("the game, loaded, after a restart: %+v", cfg)
	}

	// A speed since removed from the configuration falls back to the default.
	third := newHarness(t, func(o *gameapi.Options) { o.Store = h.db })
	third.ok(http.StatusOK, "GET", "/api/sessions/"+s.ID+"/config", asst, nil, &cfg)
	if cfg.Speed != gameapi.DefaultSpeed {
		t.Errorf("a stored speed the server no longer has: %+v", cfg)
	}
}

// TestForkNotes: a fork's description is set on create and by PUT, one
// fork at a time is canonical, and only an assistant may change either.
func TestForkNotes(t *testing.T) {
	h := newHarness(t)
	id := h.create(7).ID
	var br game.BranchInfo
	h.ok(http.StatusCreated, "POST", "/api/sessions/"+id+"/forks", gm, map[string]any{"name": "mercy", "description": "the party spares the smuggler"}, &br)
	if br.Description != "the party spares the smuggler" || br.IsCanonical {
		t.Errorf("created fork %+v", br)
	}
	canonical := func() []string {
		t.Helper()
		var forks struct{ Forks []game.BranchInfo }
		h.ok(http.StatusOK, "GET", "/api/sessions/"+id+"/forks", player, nil, &forks)
		var out []string
		for _, f := range forks.Forks {
			if f.IsCanonical {
				out = append(out, f.Name)
			}
		}
		return out
	}
	path := func(name string) string { return "/api/sessions/" + id + "/forks/" + name }
	for _, tt := range []struct {
		user, name string
		body       map[string]any
		status     int
		canonical  []string
	}{
		{gm, "main", map[string]any{"is_canonical": true}, http.StatusOK, []string{"main"}},
		{gm, "mercy", map[string]any{"is_canonical": true}, http.StatusOK, []string{"mercy"}},
		{player, "main", map[string]any{"is_canonical": true}, http.StatusForbidden, []string{"mercy"}},
		{"", "main", map[string]any{"is_canonical": true}, http.StatusUnauthorized, []string{"mercy"}},
		{gm, "nowhere", map[string]any{"is_canonical": true}, http.StatusNotFound, []string{"mercy"}},
		{gm, "main", map[string]any{}, http.StatusBadRequest, []string{"mercy"}},
		{gm, "main", map[string]any{"description": strings.Repeat("d", game.MaxBranchDescription+1)}, http.StatusBadRequest, []string{"mercy"}},
		{gm, "mercy", map[string]any{"is_canonical": false}, http.StatusOK, nil},
	} {
		if got, b, _ := h.do("PUT", path(tt.name), tt.user, tt.body); got != tt.status {
			t.Errorf("PUT %s %v as %q: %d, want %d: %s", tt.name, tt.body, tt.user, got, tt.status, b)
		}
		if got := canonical(); !slices.Equal(got, tt.canonical) {
			t.Errorf("after PUT %s %v as %q: canonical %v, want %v", tt.name, tt.body, tt.user, got, tt.canonical)
		}
	}
	h.ok(http.StatusOK, "PUT", path("main"), gm, map[string]any{"description": "  the story as told  ", "is_canonical": true}, &br)
	if br.Name != "main" || br.Description != "the story as told" || !br.IsCanonical || br.Current {
		t.Errorf("updated main %+v (the game stays on mercy)", br)
	}
}
