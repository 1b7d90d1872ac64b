package gameapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/server/gameapi"
	"github.com/hearth-rpg/hearth/world"
)

// pcModel is a local server speaking the OpenAI chat wire format as one
// party member's model: it answers from its script in turn and keeps
// every request it was sent.
type pcModel struct {
	model  string
	script []string
	reply  func(prompt string) string // answers instead of script when set
	srv    *httptest.Server

	mu       sync.Mutex
	prompts  []string // each request's messages, joined
	otherErr []string // requests that named another model
}

func newPCModel(t *testing.T, model string, script ...string) *pcModel {
	m := &pcModel{model: model, script: script}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if r.URL.Path != "/chat/completions" || json.NewDecoder(r.Body).Decode(&body) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var all []string
		for _, msg := range body.Messages {
			all = append(all, msg.Content)
		}
		m.mu.Lock()
		if body.Model != m.model {
			m.otherErr = append(m.otherErr, body.Model)
		}
		m.prompts = append(m.prompts, strings.Join(all, "\n"))
		var reply string
		if m.reply != nil {
			reply = m.reply(strings.Join(all, "\n"))
		} else {
			reply = m.script[(len(m.prompts)-1)%len(m.script)]
		}
		m.mu.Unlock()
		// The Chat Completions stream: one chunk of content, the finish, the
		// usage, [DONE].
		w.Header().Set("Content-Type", "text/event-stream")
		content, _ := json.Marshal(map[string]string{"role": "assistant", "content": reply})
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", m.model, content)
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n", m.model)
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":%q,\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":3,\"total_tokens\":13}}\n\n", m.model)
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *pcModel) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.prompts)
}

// Planted secrets: a whisper to Bram, and an event only Oona sees.
const (
	whisperText = "COPPER-FOX: the harbourmaster lies."
	eventText   = "GLASS-HERON is scratched under the bar."
)

// tablePipeline plays every turn offline, and as the DM addresses a party
// member by name every fifth turn (the one who would act after next, so
// routing shows), whispers to Bram on "plant whisper" and narrates a
// sight on "plant event".
type tablePipeline struct{}

func (tablePipeline) Name() string { return "table" }

func (tablePipeline) Play(ctx context.Context, t *game.Turn) error {
	switch t.Input {
	case "plant whisper":
		if _, err := t.Resolve(ctx, rules.Whisper{To: "bram", Text: whisperText}); err != nil {
			return err
		}
		t.Emit("The fog thickens.")
		return nil
	case "plant event":
		t.Emit(eventText + " Nobody else is here to see it.")
		return nil
	}
	if err := t.Fallback(ctx); err != nil {
		return err
	}
	if t.Number%5 == 0 {
		w := t.World()
		if m, ok := addressedAfter(w); ok {
			t.Emit("\n\n" + w.Characters[m].Name + ", what do you do?")
		}
	}
	return nil
}

// addressedAfter is the member two places after the actor in the party.
func addressedAfter(w *world.State) (string, bool) {
	i := slices.IndexFunc(w.Party, func(m world.PartyMember) bool { return m.Character == w.Player })
	if i < 0 {
		return "", false
	}
	return w.Party[(i+2)%len(w.Party)].Character, true
}

// TestThreeModelParty: three party members, each on its own model (three
// local servers speaking the OpenAI wire format), play 30 turns on
// autopilot. Each model is asked only for its own member, and sees no
// other member's whisper and no event its member did not witness; the
// DM's addressing routes the turn order, else the party goes round; every
// turn is attributed to its member and model.
func TestThreeModelParty(t *testing.T) {
	const n = 30
	models := map[string]*pcModel{
		"pc-kestrel": newPCModel(t, "pc-kestrel", "search", "keep watch"),
		"pc-bram":    newPCModel(t, "pc-bram", "Action: keep watch", "search the quay"),
		"pc-oona":    newPCModel(t, "pc-oona", "\"search\"", "keep watch"),
	}
	party := "party: [{id: kestrel, provider: openai, model: pc-kestrel}, {id: bram, provider: openai, model: pc-bram}, {id: oona, provider: openai, model: pc-oona}]"
	agents := func(ctx context.Context, m world.PartyMember) (game.Agent, error) {
		pm := models[m.Controller.Model]
		if pm == nil {
			return nil, fmt.Errorf("no model %q", m.Controller.Model)
		}
		p, err := openai.New(pm.srv.URL, "")
		if err != nil {
			return nil, err
		}
		return modelgm.NewPartyAgent(modelgm.Role{Provider: p, Model: pm.model}), nil
	}
	h := newHarness(t, func(o *gameapi.Options) {
		o.Campaign = saltmereParty(t, party)
		o.Logger = slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
		o.Prepare = func(ctx context.Context, s *game.Session) error {
			s.UseAgents(agents)
			s.UsePipeline(tablePipeline{})
			return nil
		}
	})
	var in gameapi.SessionInfo
	h.ok(http.StatusCreated, "POST", "/api/sessions", gm, map[string]any{"campaign": "party", "seed": 7}, &in)

	// Before the table opens: Oona goes to the tavern alone and sees
	// something there; the DM whispers to Bram on the quay.
	ctx := context.Background()
	gs, err := game.Open(ctx, h.db, in.ID, game.Options{Pipeline: tablePipeline{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []game.Play{{Input: "go north", Agent: "oona"}, {Input: "plant event", Agent: "oona"}, {Input: "plant whisper", Agent: "kestrel"}} {
		if r, err := gs.PlayTurn(ctx, p, nil); err != nil || !r.Committed {
			t.Fatalf("%+v: %v", p, err)
		}
	}
	if w := gs.World(); w.Characters["oona"].Location == w.Characters["bram"].Location {
		t.Fatal("Oona did not leave the quay; the planted event would be witnessed by all")
	}
	planted := gs.Turn()

	c := h.dial(in.ID, gm)
	c.state()
	for i := planted + 1; i <= planted+n; i++ {
		c.send(gameapi.Command{Type: gameapi.NextTurn})
		c.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Turn == i })
	}
	var page gameapi.TurnsPage
	h.ok(http.StatusOK, "GET", fmt.Sprintf("/api/sessions/%s/turns?from=%d&to=999", in.ID, planted+1), gm, nil, &page)
	if len(page.Turns) != n {
		t.Fatalf("%d turns, want %d", len(page.Turns), n)
	}

	order := []string{"kestrel", "bram", "oona"}
	next := func(prev game.TurnRecord) string {
		i := slices.Index(order, prev.Agent)
		if prev.Number%5 == 0 {
			return order[(i+2)%3]
		}
		return order[(i+1)%3]
	}
	prev := game.TurnRecord{Number: planted, Agent: "kestrel"}
	played := map[string]int{}
	addressed := 0
	for _, tr := range page.Turns {
		want := next(prev)
		if tr.Agent != want || tr.Controller != "openai/pc-"+want {
			t.Errorf("turn %d played by %q (%q), want %q (openai/pc-%s)", tr.Number, tr.Agent, tr.Controller, want, want)
		}
		if tr.Number%5 == 0 {
			if !strings.Contains(tr.Narrative, ", what do you do?") {
				t.Errorf("turn %d: the DM addressed nobody: %q", tr.Number, tr.Narrative)
			}
			addressed++
		}
		played[tr.Agent]++
		prev = tr
	}
	if addressed < 5 {
		t.Errorf("the DM addressed a member %d times; the routing is barely tested", addressed)
	}

	for _, who := range order {
		m := models["pc-"+who]
		reqs := m.requests()
		if len(reqs) != played[who] {
			t.Errorf("%s's model got %d requests for %d turns of %s", who, len(reqs), played[who], who)
		}
		if len(m.otherErr) > 0 {
			t.Errorf("%s's model was asked for models %v", who, m.otherErr)
		}
		sawWhisper, sawEvent := false, false
		for _, p := range reqs {
			if !strings.Contains(p, "You are "+strings.ToUpper(who[:1])) {
				t.Errorf("%s's model was prompted for someone else:\n%s", who, p)
			}
			sawWhisper = sawWhisper || strings.Contains(p, "COPPER-FOX")
			sawEvent = sawEvent || strings.Contains(p, "GLASS-HERON")
		}
		// Only Bram was whispered to; only Oona saw the event. That the
		// two did see them shows the prompts carry what a member knows.
		if sawWhisper != (who == "bram") {
			t.Errorf("%s's prompts hold the whisper to Bram: %v", who, sawWhisper)
		}
		if sawEvent != (who == "oona") {
			t.Errorf("%s's prompts hold the event only Oona witnessed: %v", who, sawEvent)
		}
		if strings.Contains(strings.Join(reqs, "\n"), "[SECRET - DO NOT REVEAL DIRECTLY] COPPER-FOX") != (who == "bram") {
			t.Errorf("%s: the whisper is not marked secret in Bram's prompt alone", who)
		}
	}
}

// tlog writes the server's warnings (a model that failed) to the test's log.
type tlog struct{ t *testing.T }

func (l tlog) Write(b []byte) (int, error) { l.t.Log(string(b)); return len(b), nil }
