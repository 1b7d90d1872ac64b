package chromiumtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestUnansweredActionComesBack: an action handed to a socket that then
// closes before the game answered may never have reached the server.
// Before, the page emptied the action box at the send and reconnected
// without a word: "Live", the turn unchanged, the action gone. Now it is
// put back in the box and the page says so, and sending it again plays it.
func TestUnansweredActionComesBack(t *testing.T) {
	h := serve(t, nil)
	var game struct{ ID string }
	if code := apiStatus(t, h, h.key, "POST", "/api/sessions", `{"campaign":"saltmere","title":"Dropped"}`, &game); code != http.StatusCreated {
		t.Fatalf("create the game: %d", code)
	}
	ctx := browse(t)
	signIn(t, ctx, h)
	run(t, ctx, "open the game",
		chromedp.Evaluate(`location.hash = "#/game/`+game.ID+`"`, nil),
		chromedp.WaitVisible(`#conn[data-state="open"][data-sockets="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#status[data-turn="0"]`, chromedp.ByQuery))
	// The next message the page sends is lost with its connection: the
	// socket closes instead of sending it.
	eval(t, ctx, `(() => {
		const send = WebSocket.prototype.send;
		WebSocket.prototype.send = function () { WebSocket.prototype.send = send; this.close(); };
		return true;
	})()`, nil)
	var box, alert string
	run(t, ctx, "send into a closing socket",
		sendAction("look around"),
		chromedp.WaitVisible(`#conn[data-state="open"][data-sockets="2"]`, chromedp.ByQuery),
		chromedp.Value("#action", &box, chromedp.ByQuery),
		chromedp.Text("#alert", &alert, chromedp.ByQuery))
	if !strings.Contains(alert, "send it again") {
		t.Errorf("after the socket closed unanswered the page says %q", alert)
	}
	if box != "look around" {
		t.Fatalf("after the socket closed unanswered the action box holds %q", box)
	}
	run(t, ctx, "send it again",
		pressAct(),
		chromedp.WaitVisible(`#log[data-turn="1"] article[data-turn="1"]`, chromedp.ByQuery))
	var n int
	eval(t, ctx, `document.querySelectorAll("#log article").length`, &n)
	if n != 1 {
		t.Errorf("%d turns in the log, want the one sent again", n)
	}
}
