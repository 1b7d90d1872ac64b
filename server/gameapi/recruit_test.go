package gameapi_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/chargen/sqlitecharacters"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/server/gameapi"
	"github.com/hearth-rpg/hearth/world"
)

// library is a real character library with a fighter and a wizard of
// gail's (the GM) and a rogue of ash's (an assistant).
func library(t *testing.T) (chargen.Store, map[string]string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitecharacters.Open(ctx, filepath.Join(t.TempDir(), "characters.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	scores := func(order ...string) map[string]int {
		m := map[string]int{}
		for i, a := range order {
			m[a] = chargen.StandardArray[i]
		}
		return m
	}
	ids := map[string]string{}
	for _, c := range []struct {
		owner string
		ch    chargen.Choices
	}{
		{"gail", chargen.Choices{Name: "Ilse", Race: "human", Class: "fighter", Background: "soldier", FightingStyle: "defense", Method: chargen.StandardArrayMethod,
			Scores: scores("strength", "constitution", "dexterity", "wisdom", "charisma", "intelligence"), Skills: []string{"perception", "survival"}}},
		{"gail", chargen.Choices{Name: "Odo", Race: "human", Class: "wizard", Background: "sage", Method: chargen.StandardArrayMethod,
			Scores: scores("intelligence", "constitution", "dexterity", "wisdom", "charisma", "strength"), Skills: []string{"investigation", "insight"}}},
		{"ash", chargen.Choices{Name: "Pim", Race: "human", Class: "rogue", Background: "criminal", Method: chargen.StandardArrayMethod,
			Scores: scores("dexterity", "constitution", "intelligence", "wisdom", "charisma", "strength"), Skills: []string{"acrobatics", "investigation", "perception", "sleight_of_hand"},
			Expertise: []string{"stealth", "perception"}}},
	} {
		ch, err := chargen.Build(c.ch)
		if err != nil {
			t.Fatalf("build %s: %v", c.ch.Name, err)
		}
		saved, err := st.Create(ctx, c.owner, ch)
		if err != nil {
			t.Fatal(err)
		}
		ids[c.ch.Name] = saved.ID
	}
	return st, ids
}

func partyHarness(t *testing.T) (*harness, map[string]string) {
	t.Helper()
	st, ids := library(t)
	h := newHarness(t, func(o *gameapi.Options) {
		o.Characters = st
		o.Users = func(context.Context) ([]string, error) { return []string{"gail", "ash", "ann", "pat"}, nil }
		o.Models = func(context.Context) (string, []string, error) { return "openai", []string{"fake", "other"}, nil }
	})
	return h, ids
}

// TestCreateGameWithLibraryParty: a GM starts a game whose party is two
// characters of the library, one an agent on a model the server knows and
// one a human player; they replace the campaign's own player character
// at its start, and the party is the game's from turn 0.
func TestCreateGameWithLibraryParty(t *testing.T) {
	h, ids := partyHarness(t)
	var in gameapi.SessionInfo
	h.ok(http.StatusCreated, "POST", "/api/sessions", gm, map[string]any{"campaign": "saltmere", "seed": 3, "party": []map[string]any{
		{"character": ids["Ilse"], "controller": "ai", "model": "fake"},
		{"character": ids["Odo"], "controller": "human", "user": "ann"},
	}}, &in)
	gs, err := game.Open(context.Background(), h.db, in.ID, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := gs.World()
	if len(w.Party) != 2 || w.Player != ids["Ilse"] {
		t.Fatalf("party %+v, acting %q", w.Party, w.Player)
	}
	if got := w.Party[0].Controller; got != (world.Controller{Kind: world.ControllerAI, Provider: "openai", Model: "fake"}) {
		t.Errorf("Ilse's controller %+v", got)
	}
	if got := w.Party[1].Controller; got != (world.Controller{Kind: world.ControllerHuman, User: "ann"}) {
		t.Errorf("Odo's controller %+v", got)
	}
	ilse := w.Characters[ids["Ilse"]]
	if ilse == nil || ilse.Name != "Ilse" || ilse.Class != "fighter" || ilse.AC == 0 || ilse.Location == "" || w.Characters["kestrel"] != nil {
		t.Errorf("Ilse in the world: %+v; kestrel still there: %v", ilse, w.Characters["kestrel"] != nil)
	}
	if odo := w.Characters[ids["Odo"]]; odo == nil || odo.Location != ilse.Location {
		t.Errorf("Odo is not where Ilse starts: %+v", odo)
	}

	// The assistant uses their own character; the GM's are not theirs.
	h.ok(http.StatusCreated, "POST", "/api/sessions", asst, map[string]any{"campaign": "saltmere", "party": []map[string]any{{"character": ids["Pim"]}}}, nil)
}

func TestCreateGameRefusesAPartyThatCannotPlay(t *testing.T) {
	h, ids := partyHarness(t)
	pick := func(name string, kv ...string) map[string]any {
		m := map[string]any{"character": ids[name]}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	seven := []map[string]any{}
	for range 7 {
		seven = append(seven, pick("Ilse"))
	}
	for _, tt := range []struct {
		name  string
		user  string
		party any
		want  string
	}{
		{"unknown character", gm, []map[string]any{{"character": "ch_nope"}}, `no character ch_nope in your library`},
		{"someone else's", asst, []map[string]any{pick("Ilse")}, "in your library"},
		{"twice", gm, []map[string]any{pick("Ilse"), pick("Ilse")}, "in the party twice"},
		{"unknown user", gm, []map[string]any{pick("Odo", "controller", "human", "user", "zed")}, "there is no user zed"},
		{"human without user", gm, []map[string]any{pick("Odo", "controller", "human")}, "needs a username"},
		{"unknown model", gm, []map[string]any{pick("Odo", "model", "gpt-9")}, "knows no model gpt-9; choose one of fake, other"},
		{"wrong provider", gm, []map[string]any{pick("Odo", "provider", "anthropic", "model", "fake")}, "knows no model fake"},
		{"bad kind", gm, []map[string]any{pick("Odo", "controller", "robot")}, "controller robot is unknown"},
		{"empty", gm, []map[string]any{}, "1 to 6 characters; 0"},
		{"seven", gm, seven, "1 to 6 characters; 7"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, b, _ := h.do("POST", "/api/sessions", tt.user, map[string]any{"campaign": "saltmere", "party": tt.party})
			if code != http.StatusBadRequest || !strings.Contains(string(b), `"code":"invalid"`) || !strings.Contains(string(b), tt.want) {
				t.Errorf("%d %s; want 400 invalid naming %q", code, b, tt.want)
			}
		})
	}
	var list struct{ Sessions []gameapi.SessionInfo }
	h.ok(http.StatusOK, "GET", "/api/sessions", gm, nil, &list)
	if len(list.Sessions) != 0 {
		t.Errorf("refused parties made %d games", len(list.Sessions))
	}

	// Without a library there is no party to draw.
	plain := newHarness(t)
	if code, b, _ := plain.do("POST", "/api/sessions", gm, map[string]any{"campaign": "saltmere", "party": []map[string]any{{"character": "ch_1"}}}); code != http.StatusBadRequest || !strings.Contains(string(b), "no character library") {
		t.Errorf("without a library: %d %s", code, b)
	}
}

// TestChangeMemberController: the GM's side changes a member's model
// during play, as a DM turn the turns list and the socket show; a player
// may not; a member a human holds is refused with Conflict until released.
func TestChangeMemberController(t *testing.T) {
	h, ids := partyHarness(t)
	var in gameapi.SessionInfo
	h.ok(http.StatusCreated, "POST", "/api/sessions", gm, map[string]any{"campaign": "saltmere", "party": []map[string]any{
		{"character": ids["Ilse"]}, {"character": ids["Odo"], "controller": "human", "user": "ann"},
	}}, &in)
	path := func(ch string) string { return "/api/sessions/" + in.ID + "/party/" + ch + "/controller" }
	watch := h.dial(in.ID, gm)
	watch.state()

	var got gameapi.MemberController
	h.ok(http.StatusOK, "PUT", path(ids["Ilse"]), asst, map[string]any{"kind": "ai", "model": "other"}, &got)
	if got.Controller != (world.Controller{Kind: world.ControllerAI, Provider: "openai", Model: "other"}) {
		t.Errorf("answer %+v", got)
	}
	u, _ := watch.turnUpdate(func(u gameapi.TurnUpdate) bool { return u.Turn == 1 })
	if u.Agent != "dm" || !strings.Contains(u.Content, "openai/other") {
		t.Errorf("the change's turn: %+v", u)
	}
	var page gameapi.TurnsPage
	h.ok(http.StatusOK, "GET", "/api/sessions/"+in.ID+"/turns", gm, nil, &page)
	if len(page.Turns) != 1 || page.Turns[0].Controller != "ash" {
		t.Errorf("turns after the change: %+v", page.Turns)
	}

	for _, tt := range []struct {
		name, user, ch string
		body           map[string]any
		status         int
		want           string
	}{
		{"player", player, ids["Ilse"], map[string]any{"kind": "ai"}, http.StatusForbidden, "forbidden"},
		{"nobody", "", ids["Ilse"], map[string]any{"kind": "ai"}, http.StatusUnauthorized, "unauthorized"},
		{"not a member", gm, "tomas", map[string]any{"kind": "ai"}, http.StatusNotFound, "not in this game's party"},
		{"unknown model", gm, ids["Ilse"], map[string]any{"kind": "ai", "model": "gpt-9"}, http.StatusBadRequest, "knows no model gpt-9"},
		{"unknown user", gm, ids["Ilse"], map[string]any{"kind": "human", "user": "zed"}, http.StatusBadRequest, "no user zed"},
		{"unknown game", gm, ids["Ilse"], map[string]any{"kind": "ai"}, http.StatusNotFound, "no game"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := path(tt.ch)
			if tt.name == "unknown game" {
				p = "/api/sessions/nope/party/" + tt.ch + "/controller"
			}
			code, b, _ := h.do("PUT", p, tt.user, tt.body)
			if code != tt.status || !strings.Contains(string(b), tt.want) {
				t.Errorf("%d %s; want %d naming %q", code, b, tt.status, tt.want)
			}
		})
	}

	// ann drops into Odo: the GM's change waits for her to let go.
	ann := h.dial(in.ID, "ann:player")
	ann.state()
	ann.send(gameapi.Command{Type: gameapi.DropIn, Character: ids["Odo"]})
	ann.until(gameapi.TypeAwaitingInput, func(msg) bool { return true })
	code, b, _ := h.do("PUT", path(ids["Odo"]), gm, map[string]any{"kind": "ai", "model": "fake"})
	if code != http.StatusConflict || !strings.Contains(string(b), "release control first") || !strings.Contains(string(b), "ann") {
		t.Errorf("change of a held member: %d %s; want 409 telling to release first", code, b)
	}
	ann.send(gameapi.Command{Type: gameapi.ReleaseControl})
	ann.until(gameapi.TypeControlReleased, func(msg) bool { return true })
	h.ok(http.StatusOK, "PUT", path(ids["Odo"]), gm, map[string]any{"kind": "ai", "model": "fake"}, nil)
	gs, err := game.Open(context.Background(), h.db, in.ID, game.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := gs.World().Member(ids["Odo"]).Controller; c.Label() != "openai/fake" {
		t.Errorf("Odo reopened is played by %q", c.Label())
	}
}
