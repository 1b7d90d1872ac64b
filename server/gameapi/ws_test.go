package gameapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/server/gameapi"
)

func assertHidden(t *testing.T, who, text string) {
	t.Helper()
	for _, s := range gmOnly {
		if strings.Contains(text, s) {
			t.Errorf("%s sees %q", who, s)
		}
	}
}

func assertShown(t *testing.T, who, text string) {
	t.Helper()
	for _, s := range gmOnly {
		if !strings.Contains(text, s) {
			t.Errorf("%s does not see %q", who, s)
		}
	}
}

func TestTwoClientsShareATurnEachInTheirView(t *testing.T) {
	h := newHarness(t)
	id := h.create(7).ID
	g, p := h.dial(id, gm), h.dial(id, player)
	gs, ps := g.state(), p.state()
	if gs.View != "gm" || ps.View != "player" || ps.Character != "kestrel" || gs.Turn != 0 {
		t.Fatalf("views: gm %q, player %q of %q at turn %d", gs.View, ps.View, ps.Character, gs.Turn)
	}
	assertShown(t, "the GM on connect", marshal(t, gs))
	assertHidden(t, "the player on connect", marshal(t, ps))

	p.send(gameapi.Command{Type: gameapi.HumanAction, Content: "look around"})
	gu, gBefore := g.turnUpdate(nil)
	pu, pBefore := p.turnUpdate(nil)
	for who, u := range map[string]gameapi.TurnUpdate{"gm": gu, "player": pu} {
		if u.Turn != 1 || !u.Committed || u.Agent != "kestrel" || u.Controller != "pat" || u.Input != "look around" || u.By != "pat" || u.State.Turn != 1 {
			t.Errorf("%s's turn_update: turn %d committed %v agent %q controller %q input %q by %q state turn %d",
				who, u.Turn, u.Committed, u.Agent, u.Controller, u.Input, u.By, u.State.Turn)
		}
	}
	if gu.Content == "" || gu.Content != pu.Content {
		t.Fatalf("the narrative differs:\nGM: %q\nplayer: %q", gu.Content, pu.Content)
	}
	for who, before := range map[string][]msg{"gm": gBefore, "player": pBefore} {
		var streamed strings.Builder
		for _, m := range before {
			if m.Type != gameapi.TypeTurnDelta {
				continue
			}
			var d gameapi.TurnDelta
			m.into(t, &d)
			if d.Turn != 1 || d.Agent != "dm" {
				t.Errorf("%s: turn_delta of turn %d by %q", who, d.Turn, d.Agent)
			}
			streamed.WriteString(d.Text)
		}
		if streamed.Len() == 0 || !strings.Contains(gu.Content, strings.TrimSpace(streamed.String())) {
			t.Errorf("%s: the deltas %q do not make the narrative %q", who, streamed.String(), gu.Content)
		}
	}
	assertShown(t, "the GM's turn_update", marshal(t, gu))
	assertHidden(t, "the player's turn_update", marshal(t, pu))
	if len(pu.Outcomes) != 0 || len(gu.Outcomes) == 0 {
		t.Errorf("outcomes: player %d, GM %d; only the GM gets them", len(pu.Outcomes), len(gu.Outcomes))
	}
	if pu.State.World.Characters["kestrel"] == nil || pu.State.World.Characters["nell"] == nil {
		t.Error("the player's view lacks their character or Nell, who stands beside them")
	}
}

func TestReconnectGetsTheCurrentState(t *testing.T) {
	// With a linger the session stays open between connections; without,
	// the last one to leave closes it and the reconnect reopens it from
	// the store.
	for _, linger := range []time.Duration{0, -1} {
		t.Run(fmt.Sprint("linger ", linger), func(t *testing.T) {
			reconnect(t, linger)
		})
	}
}

func reconnect(t *testing.T, linger time.Duration) {
	h := newHarness(t, func(o *gameapi.Options) { o.Linger = linger })
	id := h.create(3).ID
	a, b := h.dial(id, gm), h.dial(id, player)
	a.state()
	b.state()

	// b acts and leaves at once: its turn is still played, and a sees it.
	b.send(gameapi.Command{Type: gameapi.HumanAction, Content: "go north"})
	b.conn.CloseNow()
	u, _ := a.turnUpdate(nil)
	if u.Turn != 1 || u.Input != "go north" || u.State.World.PC().Location != "tavern" {
		t.Fatalf("the departed client's turn: %d %q at %s", u.Turn, u.Input, u.State.World.PC().Location)
	}
	a.send(gameapi.Command{Type: gameapi.HumanAction, Content: "wait"})
	a.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Turn == 2 })

	a.conn.Close(websocket.StatusNormalClosure, "")
	for deadline := time.Now().Add(wait); ; {
		var in gameapi.SessionInfo
		h.ok(http.StatusOK, "GET", "/api/sessions/"+id, gm, nil, &in)
		if *in.Clients == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d clients still connected", *in.Clients)
		}
		time.Sleep(5 * time.Millisecond)
	}
	b = h.dial(id, player)
	s := b.state()
	if s.Turn != 2 || s.World.PC().Location != "tavern" || s.View != "player" {
		t.Fatalf("on reconnect: turn %d at %s view %s; want turn 2 in the tavern", s.Turn, s.World.PC().Location, s.View)
	}
	assertHidden(t, "the reconnected player", marshal(t, s))
	if linger < 0 {
		// The session unloaded in between: that game night ended, and the
		// next one opens with its recap.
		if s.Recap == "" {
			t.Error("no recap of the last game night on reconnect")
		}
		eps, err := h.db.Episodes(context.Background(), id)
		if err != nil || len(eps) != 2 || eps[0].Open() || !eps[1].Open() || eps[1].Recap != s.Recap {
			t.Errorf("episodes %+v, %v", eps, err)
		}
	}
}

func TestAutopilotPlaysNudgesChoicesAndSafeActionsThenStops(t *testing.T) {
	h := newHarness(t)
	id := h.create(11).ID
	g, p := h.dial(id, gm), h.dial(id, player)
	g.state()
	p.state()
	// A nudge is a suggestion, from anyone at the table: the autopilot
	// follows what it names (the north exit), never plays its words, and
	// the turn keeps it as a note.
	nudges := []string{"the road north looks promising", "Maren surely knows something"}
	p.send(gameapi.Command{Type: gameapi.Nudge, Content: nudges[0]})
	p.send(gameapi.Command{Type: gameapi.StopAutopilot}) // refused: p's nudge is in when p reads why
	p.errorMsg()
	g.send(gameapi.Command{Type: gameapi.NextTurn})
	u, _ := g.turnUpdate(nil)
	if u.Input != "go north" || u.By != "autopilot" || !strings.Contains(marshal(t, u.Effects), nudges[0]) {
		t.Fatalf("nudged turn 1: %q by %q, effects %s", u.Input, u.By, marshal(t, u.Effects))
	}
	g.send(gameapi.Command{Type: gameapi.Nudge, Content: nudges[1]}) // one connection: in order
	g.send(gameapi.Command{Type: gameapi.NextTurn})
	if u, _ := g.turnUpdate(nil); !strings.HasPrefix(u.Input, "talk to Maren") {
		t.Fatalf("nudged turn 2 played %q", u.Input)
	}
	g.send(gameapi.Command{Type: gameapi.StartAutopilot, Speed: "fast"})
	m, _ := g.until(gameapi.TypeAutopilotStarted, nil)
	var started gameapi.AutopilotStarted
	m.into(t, &started)
	if started.Speed != "fast" {
		t.Errorf("started at %q", started.Speed)
	}
	last := u
	for i, want := range []string{"ask Maren about the guild", "", ""} {
		u, _ := g.turnUpdate(nil)
		if u.By != "autopilot" || u.Turn != i+3 || !u.Committed {
			t.Fatalf("autopilot turn %d: %d by %q, committed %v", i+3, u.Turn, u.By, u.Committed)
		}
		if !u.State.Autopilot.Running || u.State.Autopilot.Speed != "fast" {
			t.Errorf("turn %d's state: autopilot %+v", u.Turn, u.State.Autopilot)
		}
		switch {
		case want != "" && u.Input != want:
			t.Errorf("turn %d played %q, want %q", u.Turn, u.Input, want)
		case want == "" && (u.Input == last.Input || !slices.Contains(last.Awaiting.Options, u.Input)):
			// The menu of topics is walked through, not asked forever.
			t.Errorf("turn %d played %q after %q offered %q", u.Turn, u.Input, last.Input, last.Awaiting.Options)
		}
		last = u
	}
	g.send(gameapi.Command{Type: gameapi.StopAutopilot})
	m, _ = g.until(gameapi.TypeAutopilotStopped, nil)
	var stopped gameapi.AutopilotStopped
	m.into(t, &stopped)
	if stopped.Reason != "user_request" {
		t.Errorf("stopped for %q", stopped.Reason)
	}
	var in gameapi.SessionInfo
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id, gm, nil, &in)
	if in.Autopilot == nil || in.Autopilot.Running || in.Turn < 5 {
		t.Errorf("after stop: %+v at turn %d", in.Autopilot, in.Turn)
	}
	// Stopping again is an error the client can recover from.
	g.send(gameapi.Command{Type: gameapi.StopAutopilot})
	if e := g.errorMsg(); !e.Recoverable || !strings.Contains(e.Message, "not running") {
		t.Errorf("second stop: %+v", e)
	}
	// The transcripts show the nudges as suggestions; no turn played them.
	_, md, _ := h.do("GET", "/api/sessions/"+id+"/transcript?format=md", player, nil)
	_, gmd, _ := h.do("GET", "/api/sessions/"+id+"/transcript?format=md", gm, nil)
	for who, text := range map[string]string{"player": string(md), "gm": string(gmd)} {
		if !strings.Contains(text, "(suggested by pat: "+nudges[0]+")") || !strings.Contains(text, "(suggested by gail: "+nudges[1]+")") {
			t.Errorf("%s's transcript lacks the suggestions:\n%s", who, text)
		}
		for _, n := range nudges {
			if strings.Contains(text, "> "+n) {
				t.Errorf("%s's transcript has the nudge %q as a turn's input", who, n)
			}
		}
	}
}

func TestDropInPausesTheAutopilot(t *testing.T) {
	h := newHarness(t)
	id := h.create(5).ID
	g, p := h.dial(id, gm), h.dial(id, player)
	g.state()
	p.state()
	g.send(gameapi.Command{Type: gameapi.StartAutopilot, Speed: "fast"})
	p.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.By == "autopilot" })

	p.send(gameapi.Command{Type: gameapi.DropIn, Character: "kestrel"})
	m, _ := p.until(gameapi.TypeAwaitingInput, nil)
	var aw gameapi.AwaitingInput
	m.into(t, &aw)
	if aw.Character != "kestrel" || aw.User != "pat" {
		t.Fatalf("awaiting_input %+v", aw)
	}
	var in gameapi.SessionInfo
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id, gm, nil, &in)
	if !in.Autopilot.Running || !in.Autopilot.Paused {
		t.Fatalf("while dropped in: %+v", in.Autopilot)
	}
	// An autopilot turn may have been under way; after the human's first
	// turn, only the human plays until they let go.
	p.send(gameapi.Command{Type: gameapi.HumanAction, Content: "go north"})
	first, _ := p.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.By == "pat" })
	p.until(gameapi.TypeAwaitingInput, nil)
	p.send(gameapi.Command{Type: gameapi.HumanAction, Content: "wait"})
	second, between := p.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.By == "pat" && u.Input == "wait" })
	for _, m := range between {
		if m.Type == gameapi.TypeTurnUpdate {
			t.Errorf("a turn between the human's turns %d and %d: %s", first.Turn, second.Turn, m.Raw)
		}
	}
	if second.Turn != first.Turn+1 || second.State.Control == nil || second.State.Control.Character != "kestrel" {
		t.Errorf("human turns %d then %d, control %+v", first.Turn, second.Turn, second.State.Control)
	}

	// Someone else cannot let go for them; they can, and the autopilot resumes.
	g2 := h.dial(id, trusted)
	g2.state()
	g2.send(gameapi.Command{Type: gameapi.ReleaseControl})
	if e := g2.errorMsg(); !e.Recoverable || !strings.Contains(e.Message, "pat") {
		t.Errorf("release by another: %+v", e)
	}
	p.send(gameapi.Command{Type: gameapi.ReleaseControl})
	p.until(gameapi.TypeControlReleased, nil)
	p.until(gameapi.TypeAutopilotStarted, nil)
	u, _ := p.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.By == "autopilot" })
	if u.Turn <= second.Turn {
		t.Errorf("the autopilot resumed at turn %d, after %d", u.Turn, second.Turn)
	}
	g.send(gameapi.Command{Type: gameapi.StopAutopilot})
	g.until(gameapi.TypeAutopilotStopped, nil)
}

func TestNextTurnAndRoles(t *testing.T) {
	h := newHarness(t)
	id := h.create(9).ID
	p := h.dial(id, player)
	p.state()
	p.send(gameapi.Command{Type: gameapi.NextTurn})
	if u, _ := p.turnUpdate(nil); u.By != "autopilot" || u.Input != "look around" || u.Turn != 1 {
		t.Errorf("next_turn: %d by %q %q", u.Turn, u.By, u.Input)
	}
	for _, cmd := range []gameapi.Command{
		{Type: gameapi.StartAutopilot}, {Type: gameapi.StopAutopilot}, {Type: gameapi.SetSpeed, Speed: "fast"},
		{Type: gameapi.RevealSecret, ID: "whisper_1"},
	} {
		p.send(cmd)
		if e := p.errorMsg(); !e.Recoverable || !strings.Contains(e.Message, cmd.Type) {
			t.Errorf("a player's %s: %+v", cmd.Type, e)
		}
	}
	for _, raw := range []string{`not json`, `{"type":"fly"}`, `{"type":"human_action"}`, `{"type":"drop_in","character":"rook"}`} {
		if err := p.conn.Write(t.Context(), websocket.MessageText, []byte(raw)); err != nil {
			t.Fatal(err)
		}
		if e := p.errorMsg(); !e.Recoverable || e.Message == "" || strings.HasPrefix(e.Message, "gameapi.") {
			t.Errorf("%s: %+v", raw, e)
		}
	}
	// Still usable after the errors.
	p.send(gameapi.Command{Type: gameapi.HumanAction, Content: "wait"})
	if u, _ := p.turnUpdate(nil); u.Turn != 2 {
		t.Errorf("after errors: turn %d", u.Turn)
	}
	// A message over the limit closes the connection.
	big := `{"type":"human_action","content":"` + strings.Repeat("a", gameapi.MaxMessage) + `"}`
	if err := p.conn.Write(t.Context(), websocket.MessageText, []byte(big)); err != nil {
		t.Fatal(err)
	}
	if s := p.closed(); s != websocket.StatusMessageTooBig {
		t.Errorf("an oversized message closed the connection with %v", s)
	}
}

func TestSetSpeedAndConfig(t *testing.T) {
	h := newHarness(t)
	id := h.create(2).ID
	g := h.dial(id, gm)
	g.state()
	g.send(gameapi.Command{Type: gameapi.SetSpeed, Speed: "warp"})
	if e := g.errorMsg(); !strings.Contains(e.Message, "fast, normal, slow") {
		t.Errorf("unknown speed: %+v", e)
	}
	g.send(gameapi.Command{Type: gameapi.SetSpeed, Speed: "slow"})
	if s := g.state(); s.Autopilot.Speed != "slow" || s.Autopilot.Running {
		t.Errorf("after set_speed: %+v", s.Autopilot)
	}
	var c gameapi.Config
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id+"/config", player, nil, &c)
	if c.Speed != "slow" || c.Autopilot || c.Speeds["fast"] != "5ms" || c.Speeds["normal"] != "3s" {
		t.Errorf("config %+v", c)
	}
	h.ok(http.StatusOK, "PUT", "/api/sessions/"+id+"/config", gm, map[string]any{"speed": "fast", "autopilot": true}, &c)
	if c.Speed != "fast" || !c.Autopilot {
		t.Errorf("after PUT: %+v", c)
	}
	g.until(gameapi.TypeAutopilotStarted, nil)
	g.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.By == "autopilot" })
	h.ok(http.StatusOK, "PUT", "/api/sessions/"+id+"/config", asst, map[string]any{"autopilot": false}, &c)
	if c.Autopilot {
		t.Errorf("after PUT off: %+v", c)
	}
	g.until(gameapi.TypeAutopilotStopped, nil)
	for _, tt := range []struct {
		user   string
		body   any
		status int
	}{
		{player, map[string]any{"speed": "fast"}, http.StatusForbidden},
		{gm, map[string]any{"speed": "warp"}, http.StatusBadRequest},
		{gm, map[string]any{"turbo": true}, http.StatusBadRequest},
	} {
		if got, b, _ := h.do("PUT", "/api/sessions/"+id+"/config", tt.user, tt.body); got != tt.status {
			t.Errorf("PUT %v as %s: %d, want %d: %s", tt.body, tt.user, got, tt.status, b)
		}
	}
}

// broken is a pipeline whose model is always down.
type broken struct{}

func (broken) Name() string                           { return "broken" }
func (broken) Play(context.Context, *game.Turn) error { return errors.New("model unreachable") }

func TestFailedTurnsAreReportedAndStopTheAutopilot(t *testing.T) {
	prepared := make(chan string, 4)
	h := newHarness(t, func(o *gameapi.Options) {
		o.Prepare = func(_ context.Context, s *game.Session) error {
			prepared <- s.ID()
			s.UsePipeline(broken{})
			return nil
		}
	})
	id := h.create(1).ID
	g := h.dial(id, gm)
	g.state()
	if got := <-prepared; got != id {
		t.Errorf("prepared %q, want %q", got, id)
	}
	g.send(gameapi.Command{Type: gameapi.HumanAction, Content: "look around"})
	if e := g.errorMsg(); !e.Recoverable || !strings.Contains(e.Message, "could not be played") {
		t.Errorf("a failed turn: %+v", e)
	}
	g.send(gameapi.Command{Type: gameapi.StartAutopilot, Speed: "fast"})
	m, before := g.until(gameapi.TypeAutopilotStopped, nil)
	var stopped gameapi.AutopilotStopped
	m.into(t, &stopped)
	errs := 0
	for _, m := range before {
		if m.Type == gameapi.TypeError {
			errs++
		}
		if m.Type == gameapi.TypeTurnUpdate {
			t.Errorf("a failed turn was sent as played: %s", m.Raw)
		}
	}
	if stopped.Reason != "error" || errs != 3 {
		t.Errorf("stopped for %q after %d errors; want error after 3", stopped.Reason, errs)
	}
	var in gameapi.SessionInfo
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id, gm, nil, &in)
	if in.Turn != 0 {
		t.Errorf("failed turns committed: at turn %d", in.Turn)
	}
}
