package gameapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/server/gameapi"
	"github.com/hearth-rpg/hearth/world"
)

// Players of the party tests: their header is "id:role".
const (
	ann = "ann:player"
	bob = "bob:player"
	cid = "cid:player"
)

// omens is a game master that whispers to Oona when the input speaks of
// an omen, and otherwise plays offline as a pipeline would without a model.
type omens struct{}

func (omens) Name() string { return "omens" }
func (omens) Play(ctx context.Context, t *game.Turn) error {
	if strings.Contains(t.Input, "omen") {
		if _, err := t.Resolve(ctx, rules.Whisper{To: "oona", Text: "The gulls fly inland: a storm is coming."}); err != nil {
			return err
		}
		t.Emit("The wind shifts.")
		return nil
	}
	in, err := t.Interpret(ctx)
	if err != nil {
		return err
	}
	for _, i := range in.Intents {
		if _, err := t.Resolve(ctx, i); err != nil {
			break
		}
	}
	t.Emit("Time passes.")
	return nil
}

// partyTable opens a party game with ann holding bram and bob holding
// oona, and the GM watching.
func partyTable(t *testing.T) (h *harness, id string, a, b, g *client) {
	t.Helper()
	h = newHarness(t, func(o *gameapi.Options) {
		o.Campaign = partySaltmere(t)
		o.Prepare = func(_ context.Context, s *game.Session) error { s.UsePipeline(omens{}); return nil }
	})
	var in gameapi.SessionInfo
	h.ok(http.StatusCreated, "POST", "/api/sessions", gm, map[string]any{"campaign": "party", "seed": 3}, &in)
	id = in.ID
	a, b, g = h.dial(id, ann), h.dial(id, bob), h.dial(id, gm)
	for _, c := range []*client{a, b, g} {
		c.state()
	}
	for c, ch := range map[*client]string{a: "bram", b: "oona"} {
		c.send(gameapi.Command{Type: gameapi.DropIn, Character: ch})
		m, _ := c.until(gameapi.TypeAwaitingInput, func(m msg) bool { return strings.Contains(string(m.Raw), ch) })
		var aw gameapi.AwaitingInput
		m.into(t, &aw)
		if aw.Character != ch {
			t.Fatalf("awaiting_input %+v", aw)
		}
	}
	return h, id, a, b, g
}

// sync waits until c's connection has handled everything sent before:
// a refused command's error comes back after it.
func (c *client) sync() []msg {
	c.t.Helper()
	c.send(gameapi.Command{Type: gameapi.StopAutopilot})
	_, before := c.until(gameapi.TypeError, nil)
	return before
}

func TestHumansHoldOneCharacterEach(t *testing.T) {
	h, id, a, b, g := partyTable(t)

	// Dropping in was a DM turn each: controller_changed to the human.
	var page gameapi.TurnsPage
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id+"/turns", gm, nil, &page)
	held := map[string]string{}
	for _, tr := range page.Turns {
		for _, e := range decodeEffects(t, tr.Effects) {
			if cc, ok := e.(world.ControllerChanged); ok {
				held[cc.Character] = cc.To.User
			}
		}
	}
	if held["bram"] != "ann" || held["oona"] != "bob" {
		t.Fatalf("controller changes recorded: %v", held)
	}

	// A third player cannot take a held character, nor act holding none.
	c := h.dial(id, cid)
	c.state()
	c.send(gameapi.Command{Type: gameapi.DropIn, Character: "bram"})
	if e := c.errorMsg(); !e.Recoverable || !strings.Contains(e.Message, "ann") {
		t.Errorf("cid's drop_in on bram: %+v", e)
	}
	c.send(gameapi.Command{Type: gameapi.HumanAction, Content: "look around"})
	if e := c.errorMsg(); !e.Recoverable || !strings.Contains(e.Message, "drop_in") {
		t.Errorf("cid's human_action: %+v", e)
	}
	// A holder cannot take a second character.
	a.send(gameapi.Command{Type: gameapi.DropIn, Character: "pim"})
	if e := a.errorMsg(); !strings.Contains(e.Message, "bram") {
		t.Errorf("ann's second drop_in: %+v", e)
	}

	// A holder's words are their character's turn.
	a.send(gameapi.Command{Type: gameapi.HumanAction, Content: "search"})
	u, _ := b.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Input == "search" })
	if u.Agent != "bram" || u.Controller != "ann" || u.By != "ann" {
		t.Errorf("ann's turn: agent %q controller %q by %q", u.Agent, u.Controller, u.By)
	}
	// Bob sees the game through Oona: her sheet whole, Bram's not.
	st := u.State
	if st.Character != "oona" || st.View != "player" {
		t.Errorf("bob's view: %q of %q", st.View, st.Character)
	}
	if oona := st.World.Characters["oona"]; oona == nil || oona.Class != "wizard" {
		t.Errorf("bob's own sheet: %+v", oona)
	}
	if bram := st.World.Characters["bram"]; bram != nil && len(bram.Inventory) > 0 {
		t.Errorf("bob sees Bram's inventory: %v", bram.Inventory)
	}
	var own, bram *gameapi.PartySummary
	for i, p := range st.Party {
		switch p.Character {
		case "oona":
			own = &st.Party[i]
		case "bram":
			bram = &st.Party[i]
		}
	}
	if own == nil || !own.Own || bram == nil || bram.Own || bram.Class != "cleric" || bram.HP == "" || bram.Controller != "ann" {
		t.Errorf("bob's party summary: %+v", st.Party)
	}

	// The GM may take a held character over; its holder is told.
	g.send(gameapi.Command{Type: gameapi.DropIn, Character: "bram"})
	m, _ := a.until(gameapi.TypeControlReleased, nil)
	var rel gameapi.ControlReleased
	m.into(t, &rel)
	if rel.Character != "bram" {
		t.Errorf("ann was told %+v", rel)
	}
	a.send(gameapi.Command{Type: gameapi.HumanAction, Content: "wait"})
	if e := a.errorMsg(); !strings.Contains(e.Message, "drop_in") {
		t.Errorf("ann acting after the takeover: %+v", e)
	}

	// Letting go hands the character back to its agent.
	b.send(gameapi.Command{Type: gameapi.ReleaseControl})
	u, _ = g.turnUpdate(func(u gameapi.TurnUpdate) bool {
		for _, e := range u.Effects {
			if cc, ok := e.(world.ControllerChanged); ok && cc.Character == "oona" && cc.To.Kind == world.ControllerAI {
				return true
			}
		}
		return false
	})
	b.until(gameapi.TypeControlReleased, nil)
	if m := u.State.World.Member("oona"); m == nil || m.Controller.Kind != world.ControllerAI {
		t.Errorf("oona after release: %+v", m)
	}
}

func decodeEffects(t *testing.T, raw []byte) world.Effects {
	t.Helper()
	var es world.Effects
	if len(raw) > 0 {
		if err := es.UnmarshalJSON(raw); err != nil {
			t.Fatal(err)
		}
	}
	return es
}

// whisperTo reads c's messages until a whisper with content, and returns it.
func (c *client) whisper(content string) gameapi.WhisperMessage {
	c.t.Helper()
	m, _ := c.until(gameapi.TypeWhisper, func(m msg) bool { return strings.Contains(string(m.Raw), content) })
	var w gameapi.WhisperMessage
	m.into(c.t, &w)
	return w
}

// never fails when c was sent any frame holding text, up to now.
func (c *client) never(text string) {
	c.t.Helper()
	for _, m := range c.sync() {
		if strings.Contains(string(m.Raw), text) {
			c.t.Errorf("a %s frame reached the wrong reader: %s", m.Type, m.Raw)
		}
	}
}

func TestWhispersReachOnlyTheirReaders(t *testing.T) {
	h, id, a, b, g := partyTable(t)

	// GM → player: to Bram, so to ann's connection and the GM's alone.
	const toBram = "The keeper lies about the lamp."
	g.send(gameapi.Command{Type: gameapi.Whisper, To: "bram", Content: toBram})
	w := a.whisper(toBram)
	if w.From != "gm" || w.To != "bram" || w.ID == "" || w.Turn == 0 {
		t.Errorf("ann's whisper: %+v", w)
	}
	g.whisper(toBram)
	b.never(toBram)

	// Player → DM: from Bram, to the GM (and ann, who sent it).
	const toDM = "Bram pockets the silver ring."
	a.send(gameapi.Command{Type: gameapi.Whisper, To: "dm", Content: toDM})
	if w := g.whisper(toDM); w.From != "bram" || w.To != "dm" {
		t.Errorf("the GM's whisper: %+v", w)
	}
	a.whisper(toDM)
	b.never(toDM)
	// A player whispers only to the DM, and only through a character.
	b.send(gameapi.Command{Type: gameapi.Whisper, To: "bram", Content: "psst"})
	if e := b.errorMsg(); !strings.Contains(e.Message, "dm") {
		t.Errorf("bob whispering to bram: %+v", e)
	}

	// DM → PC: the game master's own whisper, a rule of a turn, to Oona.
	const omen = "a storm is coming"
	a.send(gameapi.Command{Type: gameapi.HumanAction, Content: "read the omen"})
	if w := b.whisper(omen); w.From != "gm" || w.To != "oona" {
		t.Errorf("bob's whisper: %+v", w)
	}
	g.whisper(omen)
	a.never(omen)

	// Nothing of another's whispers in bob's REST views either.
	for _, path := range []string{"/turns", "/transcript?format=json", "/transcript?format=md"} {
		if _, body, _ := h.do("GET", "/api/sessions/"+id+path, bob, nil); strings.Contains(string(body), toBram) || strings.Contains(string(body), toDM) {
			t.Errorf("bob reads another's whisper in %s", path)
		}
	}
	if _, body, _ := h.do("GET", "/api/sessions/"+id+"/turns", ann, nil); !strings.Contains(string(body), toBram) {
		t.Errorf("ann cannot read her own whisper in her turns")
	}

	// Revealed, a secret is everyone's.
	g.send(gameapi.Command{Type: gameapi.RevealSecret, ID: w.ID})
	for who, c := range map[string]*client{"ann": a, "bob": b, "gm": g} {
		m, _ := c.until(gameapi.TypeSecretRevealed, nil)
		var r gameapi.SecretRevealedMessage
		m.into(t, &r)
		if r.ID != w.ID || r.Content != toBram || r.RevealedTurn == 0 {
			t.Errorf("%s's secret_revealed: %+v", who, r)
		}
	}
	if _, body, _ := h.do("GET", "/api/sessions/"+id+"/turns", bob, nil); !strings.Contains(string(body), toBram) {
		t.Errorf("bob cannot read the revealed whisper")
	}
	// Whispers are world effects: a fork keeps them as they were.
	h.ok(http.StatusCreated, "POST", "/api/sessions/"+id+"/forks", gm, map[string]any{"name": "aside"}, nil)
	st := g.state()
	if wh := st.World.Whispers[w.ID]; wh == nil || !wh.Revealed || wh.Text != toBram {
		t.Errorf("after the fork: %+v", wh)
	}
}

// TestModelFailuresAreVisible: a narrator whose server answers 500 is
// played offline, every client is told, the transcript says so, and the
// autopilot backs off and stops.
func TestModelFailuresAreVisible(t *testing.T) {
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":{"message":"the model is down","type":"server_error"}}`)) //nolint:errcheck // the test reads the status
	}))
	t.Cleanup(failing.Close)
	h := newHarness(t, func(o *gameapi.Options) {
		o.Prepare = func(_ context.Context, s *game.Session) error {
			prov, err := openai.New(failing.URL+"/v1", "")
			if err != nil {
				return err
			}
			p, err := modelgm.New(modelgm.Config{Narrator: modelgm.Role{Provider: prov, Model: "broken"}, SummariseEvery: -1})
			if err != nil {
				return err
			}
			s.UsePipeline(p)
			return nil
		}
	})
	id := h.create(4).ID
	g, p := h.dial(id, gm), h.dial(id, player)
	g.state()
	p.state()
	g.send(gameapi.Command{Type: gameapi.StartAutopilot, Speed: "fast"})
	for who, c := range map[string]*client{"gm": g, "player": p} {
		if e := c.errorMsg(); !e.Recoverable || !strings.Contains(e.Message, "model failed") {
			t.Errorf("%s was told %+v", who, e)
		}
	}
	m, _ := p.until(gameapi.TypeAutopilotStopped, nil)
	var stopped gameapi.AutopilotStopped
	m.into(t, &stopped)
	if stopped.Reason != gameapi.StoppedError {
		t.Errorf("stopped for %q", stopped.Reason)
	}
	var in gameapi.SessionInfo
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id, gm, nil, &in)
	if in.Turn != 3 {
		t.Errorf("the autopilot played %d turns before stopping, want 3", in.Turn)
	}
	for _, user := range []string{gm, player} {
		if _, md, _ := h.do("GET", "/api/sessions/"+id+"/transcript?format=md", user, nil); strings.Count(string(md), "model failed") != 3 {
			t.Errorf("%s's transcript does not record 3 fallbacks:\n%s", user, md)
		}
	}
}
