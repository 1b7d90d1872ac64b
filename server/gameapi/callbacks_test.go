package gameapi_test

import (
	"net/http"
	"testing"

	"github.com/hearth-rpg/hearth/server/gameapi"
)

// The callbacks route gives the GM every element with suggestions, a
// player those of their view without suggestions, both with the callback
// rate counted over the turns as they saw them.
func TestCallbacksRoute(t *testing.T) {
	h := newHarness(t)
	id := h.create(7).ID
	p := h.dial(id, player)
	p.state()
	for _, in := range []string{"look around", "talk to nell", "look around", "look around"} {
		p.send(gameapi.Command{Type: gameapi.HumanAction, Content: in})
		p.turnUpdate(nil)
	}
	var g, pl gameapi.Callbacks
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id+"/callbacks", gm, nil, &g)
	h.ok(http.StatusOK, "GET", "/api/sessions/"+id+"/callbacks", player, nil, &pl)
	if g.Turn != 4 || len(g.Elements) == 0 || g.Eligible != 3 || g.Referencing == 0 || g.CallbackRate <= 0 || g.CallbackRate > 1 {
		t.Fatalf("GM's callbacks: %+v", g)
	}
	if pl.Turn != 4 || len(pl.Elements) == 0 || pl.Suggestions != nil || pl.Eligible != g.Eligible {
		t.Fatalf("player's callbacks: %+v", pl)
	}
	gmIDs := map[string]bool{}
	for _, e := range g.Elements {
		gmIDs[e.ID] = true
	}
	for _, e := range pl.Elements {
		if e.Private || !gmIDs[e.ID] {
			t.Errorf("the player was shown %+v", e)
		}
	}
	if code, _, _ := h.do("GET", "/api/sessions/nope/callbacks", gm, nil); code != http.StatusNotFound {
		t.Errorf("an unknown game answered %d", code)
	}
}
