package chromiumtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
)

// TestStaleHistoryLoadKeepsTheNewTurn holds the game page's first history
// load (the turns before the game's first) until a turn has been played
// and shown, then lets it finish. The late answer must not draw the log
// without the turn played meanwhile: on a busy machine a full-suite run
// once showed "Turn 1" in the status over an empty log.
func TestStaleHistoryLoadKeepsTheNewTurn(t *testing.T) {
	h := serve(t, nil)
	ctx := browse(t)
	signIn(t, ctx, h)
	c := &http.Client{Transport: hearthtest.Bearer{Key: h.key}}
	res, err := c.Post(h.url+"/api/sessions", "application/json", strings.NewReader(`{"campaign":"saltmere","title":"Late"}`))
	if err != nil {
		t.Fatal(err)
	}
	var g struct{ ID string }
	json.NewDecoder(res.Body).Decode(&g)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated || g.ID == "" {
		t.Fatalf("creating a game: %d %+v", res.StatusCode, g)
	}

	hd := holdRequests(t, ctx, "*/turns?*")
	run(t, ctx, "open the game",
		chromedp.Evaluate(`location.hash = "#/game/`+g.ID+`"`, nil),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery))
	hd.wait("its history")
	run(t, ctx, "play while the history is held",
		sendAction("look around"),
		chromedp.WaitVisible(`#log article[data-turn="1"]`, chromedp.ByQuery))
	t.Logf("released %d held history loads", hd.release())
	// The next turn comes after the released answers: the log must hold
	// both turns, whichever load drew last.
	run(t, ctx, "play on",
		sendAction("talk to nell"),
		chromedp.WaitVisible(`#log[data-turn="2"] article[data-turn="2"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#log article[data-turn="1"]`, chromedp.ByQuery))
}
