package gameapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/server/gameapi"
)

// A player flags a turn over REST: the flag names them (a body naming
// someone else is refused), the game and its branches stay as they were, and the GM's JSON
// transcript lists it.
func TestFlagTurnRoute(t *testing.T) {
	h := newHarness(t)
	id := h.create(7).ID
	p := h.dial(id, player)
	p.state()
	for _, in := range []string{"look around", "talk to nell"} {
		p.send(gameapi.Command{Type: gameapi.HumanAction, Content: in})
		p.turnUpdate(nil)
	}
	path := "/api/sessions/" + id + "/turns/2/flag"
	var f game.Flag
	h.ok(http.StatusCreated, "POST", path, player, map[string]any{"reason": "Nell forgot the lights"}, &f)
	if f.Turn != 2 || f.By != "pat" || f.Reason != "Nell forgot the lights" || f.At.IsZero() {
		t.Errorf("flag: %+v", f)
	}
	tests := []struct {
		name, path, user string
		body             any
		want             int
	}{
		{"nobody signed in", path, "", map[string]any{"reason": "x"}, http.StatusUnauthorized},
		{"no reason", path, player, map[string]any{"reason": "  "}, http.StatusBadRequest},
		{"a turn not played", "/api/sessions/" + id + "/turns/3/flag", player, map[string]any{"reason": "x"}, http.StatusBadRequest},
		{"not a turn number", "/api/sessions/" + id + "/turns/x/flag", player, map[string]any{"reason": "x"}, http.StatusBadRequest},
		{"turn zero", "/api/sessions/" + id + "/turns/0/flag", player, map[string]any{"reason": "x"}, http.StatusBadRequest},
		{"an unknown game", "/api/sessions/nope/turns/1/flag", player, map[string]any{"reason": "x"}, http.StatusNotFound},
		{"not JSON", path, player, "reason", http.StatusBadRequest},
		{"in another's name", path, player, map[string]any{"reason": "x", "by": "gail"}, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if code, b, _ := h.do("POST", tt.path, tt.user, tt.body); code != tt.want {
				t.Errorf("status %d, want %d: %s", code, tt.want, b)
			}
		})
	}
	var info gameapi.SessionInfo
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id, gm, nil, &info)
	if info.Turn != 2 || info.Branch != "main" {
		t.Errorf("flagging moved the game: %+v", info)
	}
	var forks struct {
		Forks []game.BranchInfo `json:"forks"`
	}
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id+"/forks", gm, nil, &forks)
	if len(forks.Forks) != 1 {
		t.Errorf("flagging started a branch: %+v", forks.Forks)
	}
	var tr game.Transcript
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id+"/transcript?format=json", gm, nil, &tr)
	if len(tr.Flags) != 1 || tr.Flags[0].By != "pat" || !strings.Contains(tr.Flags[0].Reason, "lights") {
		t.Errorf("the GM's transcript's flags: %+v", tr.Flags)
	}
}
