package chromiumtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hearth-rpg/hearth/internal/chromeclick"
	"github.com/hearth-rpg/hearth/internal/hearthtest"
	"github.com/hearth-rpg/hearth/web"
)

const chromium = "/usr/bin/chromium"

// bound is how long one browser test may take at most on a loaded
// machine; reaching it fails the test, it never decides one.
const bound = 4 * time.Minute

var bin string

func TestMain(m *testing.M) {
	if _, err := os.Stat(chromium); err != nil {
		fmt.Printf("skipping the Chromium tests: %s is absent (apt-get install chromium)\n", chromium)
		os.Exit(m.Run()) // each test skips itself
	}
	b, remove, err := hearthtest.Build("../../cmd/hearth")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	bin = b
	code := m.Run()
	remove()
	os.Exit(code)
}

// hearth is one served data directory with a GM key.
type hearth struct {
	url, key, data string
}

// serve prepares a data directory (prep may add to it), creates a GM with
// the binary and starts `hearth serve`.
func serve(t *testing.T, prep func(data string)) hearth {
	t.Helper()
	return serveEnv(t, prep)
}

// serveEnv is serve with environment settings (HEARTH__SECTION__KEY=V)
// for the server.
func serveEnv(t *testing.T, prep func(data string), env ...string) hearth {
	t.Helper()
	if bin == "" {
		t.Skipf("%s is absent; install it with apt-get install chromium", chromium)
	}
	data := t.TempDir()
	if prep != nil {
		prep(data)
	}
	out, err := exec.Command(bin, "user", "add", "gail", "--role", "gm", "--data", data).CombinedOutput()
	if err != nil {
		t.Fatalf("hearth user add: %v\n%s", err, out)
	}
	key := regexp.MustCompile(`hth_[A-Za-z0-9_]+`).FindString(string(out))
	if key == "" {
		t.Fatalf("no key in %s", out)
	}
	// The default rate limits: a page's many requests a view fit them.
	// At debug the server logs each request, each game connection and
	// command and each turn queued and played, which a failed wait needs;
	// the log is shown only when the test fails.
	env = append([]string{"HEARTH__LOG__LEVEL=debug"}, env...)
	url, dump := hearthtest.Server{Bin: bin, Data: data, Log: func(line string) { t.Log(line) }, Env: env}.StartDump(t)
	h := hearth{url: url, key: key, data: data}
	onFailServer(t, h, dump)
	return h
}

// browse starts a headless Chromium for the test.
func browse(t *testing.T) context.Context {
	t.Helper()
	return browseAs(t, "browser")
}

// browseAs is browse with a name for the browser in the test's log. The
// page's console and uncaught exceptions go to the log as they happen,
// and a failed test logs where the page was, so that a wait that times
// out says why.
func browseAs(t *testing.T, name string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.WindowSize(1440, 900))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelB := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancelB(); cancelA() })
	// The first Run starts the browser and ties it to its context: start
	// it here, so that the bound ends the test's waits, not the browser,
	// and a failed test can still ask the page where it was.
	if err := chromedp.Run(tab); err != nil {
		t.Fatalf("start %s: %v", chromium, err)
	}
	// HEARTH_TEST_CPU_THROTTLE=N runs the page N times slower, as on a
	// loaded machine, to bring out races between the page and the server.
	if v := os.Getenv("HEARTH_TEST_CPU_THROTTLE"); v != "" {
		rate, err := strconv.ParseFloat(v, 64)
		if err != nil || rate < 1 {
			t.Fatalf("HEARTH_TEST_CPU_THROTTLE=%q: want a slowdown factor of 1 or more", v)
		}
		if err := chromedp.Run(tab, emulation.SetCPUThrottlingRate(rate)); err != nil {
			t.Fatalf("throttle %s: %v", chromium, err)
		}
	}
	ctx, cancelT := context.WithTimeout(tab, bound)
	t.Cleanup(cancelT)
	var done atomic.Bool // no t.Log once the test has ended
	t.Cleanup(func() { done.Store(true) })
	chromedp.ListenTarget(ctx, func(ev any) {
		if done.Load() {
			return
		}
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			args := make([]string, len(e.Args))
			for i, a := range e.Args {
				args[i] = string(a.Value)
				if a.Value == nil {
					args[i] = a.Description
				}
			}
			t.Logf("%s console.%s: %s", name, e.Type, strings.Join(args, " "))
		case *runtime.EventExceptionThrown:
			t.Logf("%s exception: %s", name, e.ExceptionDetails.Error())
		}
	})
	// Cleanups run last first: this one runs before the browsers close.
	onFailPage(t, func() { showPage(t, tab, name) })
	t.Cleanup(func() { diagnose(t) })
	return ctx
}

// run runs the actions in order; a failure names the step, so a wait
// that ran out says which wait it was.
func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	for i, a := range actions {
		if err := chromedp.Run(ctx, a); err != nil {
			if len(actions) == 1 {
				t.Fatalf("%s: %v", what, err)
			}
			t.Fatalf("%s, step %d of %d (%T): %v", what, i+1, len(actions), a, err)
		}
	}
}

// sendAction types text into the game view's action box and sends it
// with Enter, as a keyboard user does. A CI run once hung on its first
// turn when the action was sent with a click at the Act button's
// coordinates, read while the game view's panels (the party, the
// branches, the scene, the story) still settled: the press landed on
// the page's background. The view now holds still as it fills in
// (TestGameViewStaysPut), and every click goes through click.
func sendAction(text string) chromedp.Action {
	return chromedp.SendKeys("#action", text+kb.Enter, chromedp.ByQuery)
}

// pressAct sends what the action box holds with a real press of the
// mouse on the Act button, once it can take it.
func pressAct() chromedp.Action { return click("#send") }

// click clicks the element sel as a user does, once it can take the
// click: shown, enabled, in view, not moving and not covered (see
// internal/chromeclick). Every click of these tests goes through it: a
// click at coordinates read while the view still settles can land on
// whatever moved there.
func click(sel string) chromedp.Action { return chromeclick.Click(sel) }

// eval evaluates js in the page, awaiting a promise, into out.
func eval(t *testing.T, ctx context.Context, js string, out any) {
	t.Helper()
	run(t, ctx, "evaluate "+js, chromedp.Evaluate(js, out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams {
		return p.WithAwaitPromise(true)
	}))
}

// shots writes the page at 390 and 1440 px wide.
func shots(t *testing.T, ctx context.Context, view string) {
	t.Helper()
	dir := os.Getenv("HEARTH_TEST_OUTPUT")
	if dir == "" {
		dir = t.TempDir()
	}
	dir = filepath.Join(dir, "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, w := range []int64{390, 1440} {
		var buf []byte
		run(t, ctx, "screenshot "+view, chromedp.EmulateViewport(w, 900), chromedp.FullScreenshot(&buf, 100))
		name := filepath.Join(dir, fmt.Sprintf("%s-%s-%d.png", strings.ReplaceAll(t.Name(), "/", "-"), view, w))
		if err := os.WriteFile(name, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		if len(buf) < 1000 {
			t.Errorf("screenshot %s is %d bytes", name, len(buf))
		}
	}
	run(t, ctx, "viewport back", chromedp.EmulateViewport(1440, 900))
}

// signIn signs the browser in at h with its key.
func signIn(t *testing.T, ctx context.Context, h hearth) {
	t.Helper()
	run(t, ctx, "sign in",
		chromedp.Navigate(h.url+"/"),
		chromedp.WaitVisible("#key", chromedp.ByQuery),
		chromedp.SendKeys("#key", h.key, chromedp.ByQuery),
		click(`#signin button[type=submit]`),
		chromedp.WaitVisible("#signout", chromedp.ByQuery),
		chromedp.WaitVisible("#games-h", chromedp.ByQuery))
}

// keyGone checks that the key is nowhere the page or its storage keeps.
func keyGone(t *testing.T, ctx context.Context, key string) {
	t.Helper()
	var where string
	eval(t, ctx, `JSON.stringify(localStorage) + JSON.stringify(sessionStorage) + document.documentElement.outerHTML +
		Array.from(document.querySelectorAll("input")).map((i) => i.value).join(" ") + document.cookie`, &where)
	if strings.Contains(where, key) || strings.Contains(where, key[:12]) {
		t.Error("the API key is still in the page or its storage after sign-in")
	}
}

func TestSignInPlayRestoreForkTranscript(t *testing.T) {
	h := serve(t, nil)
	ctx := browse(t)
	var dialogs atomic.Int32
	chromedp.ListenTarget(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dialogs.Add(1)
		}
	})
	run(t, ctx, "open", chromedp.Navigate(h.url+"/"), chromedp.WaitVisible("#key", chromedp.ByQuery))
	shots(t, ctx, "signin")
	signIn(t, ctx, h)
	run(t, ctx, "new game form", chromedp.WaitVisible("#new-game", chromedp.ByQuery))
	keyGone(t, ctx, h.key)
	var csrfAtRest bool
	eval(t, ctx, `document.documentElement.outerHTML.includes("csrf")`, &csrfAtRest)
	if csrfAtRest {
		t.Error("the CSRF token is in the DOM")
	}
	shots(t, ctx, "games-empty")

	// New game.
	run(t, ctx, "new game",
		chromedp.SendKeys("#game-name", "Lantern run", chromedp.ByQuery),
		click(`#new-game button[type=submit]`),
		chromedp.WaitVisible(`#status[data-turn="0"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery))
	var title string
	run(t, ctx, "title", chromedp.WaitVisible(`#game-title[data-named]`, chromedp.ByQuery), chromedp.Text("#game-title", &title, chromedp.ByQuery))
	if title != "Lantern run" {
		t.Errorf("game title %q", title)
	}

	// Five turns: typed, and one by a choice button.
	act := func(n int, input string) {
		t.Helper()
		send := sendAction(input)
		if n == 2 { // and once with the Act button
			send = chromedp.Tasks{chromedp.SendKeys("#action", input, chromedp.ByQuery), pressAct()}
		}
		run(t, ctx, fmt.Sprintf("turn %d", n),
			send,
			chromedp.WaitVisible(fmt.Sprintf(`#log[data-turn="%d"] article[data-turn="%d"]`, n, n), chromedp.ByQuery))
	}
	act(1, "look around")
	act(2, "talk to nell")
	run(t, ctx, "choose", chromedp.WaitVisible(`#choices button.choice`, chromedp.ByQuery))
	var choice string
	run(t, ctx, "turn 3 by choice",
		chromedp.Text(`#choices button.choice`, &choice, chromedp.ByQuery),
		click(`#choices button.choice`),
		chromedp.WaitVisible(`#log[data-turn="3"] article[data-turn="3"]`, chromedp.ByQuery))
	if !strings.HasPrefix(choice, "ask Nell about") {
		t.Errorf("first choice %q", choice)
	}
	act(4, "go to the tavern")
	act(5, "talk to maren")

	// Every turn's narration came as turn_delta before its turn_update.
	var turns []struct {
		Turn   string `json:"turn"`
		Deltas string `json:"deltas"`
		Text   string `json:"text"`
		Input  string `json:"input"`
	}
	eval(t, ctx, `Array.from(document.querySelectorAll("#log article")).map((a) => ({turn: a.dataset.turn,
		deltas: a.dataset.deltas || "", text: a.querySelector(".narration").textContent, input: (a.querySelector(".input") || {}).textContent || ""}))`, &turns)
	if len(turns) != 5 {
		t.Fatalf("%d turns in the log: %+v", len(turns), turns)
	}
	for i, tr := range turns {
		if tr.Turn != fmt.Sprint(i+1) || tr.Deltas == "" || tr.Deltas == "0" || strings.TrimSpace(tr.Text) == "" {
			t.Errorf("turn %d: %+v (want streamed narration)", i+1, tr)
		}
	}
	if !strings.Contains(turns[1].Text, "Nell") || !strings.Contains(turns[2].Input, choice) || !strings.Contains(turns[3].Text, "Drowned Lantern") {
		t.Errorf("the log does not tell the game: %+v", turns)
	}
	var status string
	run(t, ctx, "status", chromedp.Text("#status", &status, chromedp.ByQuery))
	if !strings.Contains(status, "Turn 5") || !strings.Contains(status, "HP 20/20") || !strings.Contains(status, "Drowned Lantern") {
		t.Errorf("status line %q", status)
	}
	var live, role string
	run(t, ctx, "live region", chromedp.AttributeValue("#log", "aria-live", &live, nil, chromedp.ByQuery),
		chromedp.AttributeValue("#log", "role", &role, nil, chromedp.ByQuery))
	if live != "polite" || role != "log" {
		t.Errorf("the log is not a live region: aria-live=%q role=%q", live, role)
	}
	shots(t, ctx, "game")

	// Restore to turn 2, then fork there.
	run(t, ctx, "restore",
		chromedp.SendKeys("#restore-turn", "2", chromedp.ByQuery),
		click("#restore-go"),
		chromedp.WaitVisible(`#log[data-turn="2"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#status[data-turn="2"]`, chromedp.ByQuery))
	var n int
	eval(t, ctx, `document.querySelectorAll("#log article").length`, &n)
	if n != 2 {
		t.Errorf("after restoring to turn 2 the log has %d turns", n)
	}
	run(t, ctx, "fork",
		chromedp.SendKeys("#fork-name", "side", chromedp.ByQuery),
		click("#fork-go"),
		chromedp.WaitVisible(`#log[data-branch="side"][data-turn="2"]`, chromedp.ByQuery))
	run(t, ctx, "status after fork", chromedp.Text("#status", &status, chromedp.ByQuery))
	if !strings.Contains(status, "branch side") {
		t.Errorf("status after fork %q", status)
	}
	act(3, "go to the tavern")

	// The autopilot plays a turn by itself, then stops when told.
	run(t, ctx, "autopilot",
		click("#autopilot-start"),
		chromedp.WaitEnabled("#autopilot-stop", chromedp.ByQuery),
		chromedp.WaitVisible(`#log[data-turn="4"] article[data-turn="4"]`, chromedp.ByQuery),
		click("#autopilot-stop"),
		chromedp.WaitEnabled("#autopilot-start", chromedp.ByQuery))

	// Transcript download: Chromium names the file by the download's
	// GUID and says when it is complete.
	dl := t.TempDir()
	done := make(chan string, 1)
	var suggested atomic.Value
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *browser.EventDownloadWillBegin:
			suggested.Store(e.SuggestedFilename)
		case *browser.EventDownloadProgress:
			if e.State == browser.DownloadProgressStateCompleted {
				done <- e.GUID
			}
		}
	})
	run(t, ctx, "allow downloads", browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorAllowAndName).
		WithDownloadPath(dl).WithEventsEnabled(true))
	var id string
	eval(t, ctx, `location.hash.split("/")[2]`, &id)
	run(t, ctx, "download", click("#transcript-md"))
	var guid string
	select {
	case guid = <-done:
	case <-ctx.Done():
		t.Fatal("the transcript download did not complete")
	}
	// The server names the file after the game and its branch.
	if got, _ := suggested.Load().(string); got != "hearth-"+id+"-side.md" {
		t.Errorf("transcript file name %q", got)
	}
	md, err := os.ReadFile(filepath.Join(dl, guid))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"talk to nell", "go to the tavern", "Drowned Lantern", "## Turn 4"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("transcript lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(md), "talk to maren") {
		t.Errorf("the transcript of branch side has turn 5 of main:\n%s", md)
	}

	// Back to the list, then sign out: the session ends on the server.
	run(t, ctx, "games list", click("#back"), chromedp.WaitVisible(`#games tr[data-game="`+id+`"]`, chromedp.ByQuery))
	shots(t, ctx, "games")
	run(t, ctx, "sign out", click("#signout"), chromedp.WaitVisible("#key", chromedp.ByQuery))
	var after int
	eval(t, ctx, `fetch("/api/sessions").then((r) => r.status)`, &after)
	if after != http.StatusUnauthorized {
		t.Errorf("after sign-out /api/sessions answers %d", after)
	}
	if dialogs.Load() != 0 {
		t.Errorf("%d JavaScript dialogs opened", dialogs.Load())
	}
}

// TestReconnectsAfterRestart: a game's page survives its server
// stopping and a new one starting at the same address: it says it is
// reconnecting, backs off, reconnects with the same session cookie,
// resyncs from session_state (a turn played meanwhile shows) and plays
// on.
func TestReconnectsAfterRestart(t *testing.T) {
	if bin == "" {
		t.Skipf("%s is absent; install it with apt-get install chromium", chromium)
	}
	data := t.TempDir()
	out, err := exec.Command(bin, "user", "add", "gail", "--role", "gm", "--data", data).CombinedOutput()
	if err != nil {
		t.Fatalf("hearth user add: %v\n%s", err, out)
	}
	port := freePort(t)
	srv := hearthtest.Server{Bin: bin, Data: data, Args: []string{"--port", port}, Log: func(line string) { t.Log(line) }}
	first, url := srv.Launch(t)
	h := hearth{url: url, key: regexp.MustCompile(`hth_[A-Za-z0-9_]+`).FindString(string(out)), data: data}
	ctx := browse(t)
	signIn(t, ctx, h)
	run(t, ctx, "new game",
		click(`#new-game button[type=submit]`),
		chromedp.WaitVisible(`#status[data-turn="0"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
		sendAction("look around"),
		chromedp.WaitVisible(`#log[data-turn="1"] article[data-turn="1"]`, chromedp.ByQuery))
	var game string
	eval(t, ctx, `location.hash`, &game)

	// Stop the server: the page says it is reconnecting ...
	first.Process.Signal(syscall.SIGTERM)
	if err := first.Wait(); err != nil {
		t.Fatalf("hearth serve did not stop cleanly: %v", err)
	}
	run(t, ctx, "connection lost", chromedp.WaitVisible(`#conn[data-state="closed"]`, chromedp.ByQuery))
	shots(t, ctx, "reconnecting")
	// While the server is down the game moves on without the page: a turn
	// played in the terminal on the same data directory.
	play := exec.Command(bin, "play", "--data", data, "--session", strings.TrimPrefix(game, "#/game/"))
	play.Stdin = strings.NewReader("talk to nell\n")
	if out, err := play.CombinedOutput(); err != nil {
		t.Fatalf("hearth play: %v\n%s", err, out)
	}
	// ... and, once a new server listens at the same address, is back on
	// the same game with the same session cookie, resynced from the
	// server's state (the turn it missed included), and plays on.
	if again := srv.Start(t); again != url {
		t.Fatalf("restarted at %s, not %s", again, url)
	}
	run(t, ctx, "reconnected",
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#status[data-turn="2"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#log[data-turn="2"] article[data-turn="2"]`, chromedp.ByQuery))
	var missed string
	run(t, ctx, "the missed turn", chromedp.Text(`#log article[data-turn="2"]`, &missed, chromedp.ByQuery))
	if !strings.Contains(missed, "talk to nell") {
		t.Errorf("the turn played while the page was away reads %q", missed)
	}
	run(t, ctx, "play on",
		sendAction("go to the tavern"),
		chromedp.WaitVisible(`#log[data-turn="3"] article[data-turn="3"]`, chromedp.ByQuery))
	var n int
	eval(t, ctx, `document.querySelectorAll("#log article").length`, &n)
	if n != 3 {
		t.Errorf("%d turns in the log after the restart, want 3", n)
	}
	var now string
	eval(t, ctx, `location.hash`, &now)
	if now != game {
		t.Errorf("after the restart the page is at %s, not %s", now, game)
	}
}

// freePort returns a port that is free now, from below the kernel's
// ephemeral range where it can: a port from that range may meanwhile
// become some outgoing connection's local port, and a server restarted
// on it then fails to listen.
func freePort(t *testing.T) string {
	t.Helper()
	lo := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				lo = n
			}
		}
	}
	for i := 0; i < 100 && lo > 11000; i++ {
		p := 10000 + rand.IntN(lo-10000)
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err == nil {
			ln.Close()
			return strconv.Itoa(p)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// TestStaleGamesLoadLeavesGameAlone: signing in starts a games-page
// load (two, in fact: the sign-in's own and the hash change's); one that
// finishes after the user has opened a game must not draw the games
// list over the game. Before only the newest load drew, a slow load did
// just that, and a new game's page lost its socket's status line.
func TestStaleGamesLoadLeavesGameAlone(t *testing.T) {
	h := serve(t, nil)
	ctx := browse(t)
	// Hold every /api/models request, the last a games-page load makes,
	// until the game's page is open.
	hd := holdRequests(t, ctx, "*/api/models*")
	run(t, ctx, "sign in",
		chromedp.Navigate(h.url+"/"),
		chromedp.WaitVisible("#key", chromedp.ByQuery),
		chromedp.SendKeys("#key", h.key, chromedp.ByQuery),
		click(`#signin button[type=submit]`),
		chromedp.WaitVisible("#signout", chromedp.ByQuery))
	hd.wait("the model list")
	c := &http.Client{Transport: hearthtest.Bearer{Key: h.key}}
	res, err := c.Post(h.url+"/api/sessions", "application/json", strings.NewReader(`{"campaign":"saltmere","title":"Held"}`))
	if err != nil {
		t.Fatal(err)
	}
	var g struct{ ID string }
	json.NewDecoder(res.Body).Decode(&g)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated || g.ID == "" {
		t.Fatalf("creating a game: %d %+v", res.StatusCode, g)
	}
	run(t, ctx, "open the game",
		chromedp.Evaluate(`location.hash = "#/game/`+g.ID+`"`, nil),
		chromedp.WaitVisible(`#status[data-turn="0"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery))
	// Now the held games-page loads finish; the game must stay.
	t.Logf("released %d held model-list requests", hd.release())
	run(t, ctx, "play on",
		sendAction("look around"),
		chromedp.WaitVisible(`#log[data-turn="1"] article[data-turn="1"]`, chromedp.ByQuery))
	var list bool
	eval(t, ctx, `!!document.getElementById("games-h") || !document.getElementById("conn")`, &list)
	if list {
		t.Error("a games-page load begun before the game opened drew over the game")
	}
}

func TestDeleteAsksFirst(t *testing.T) {
	h := serve(t, nil)
	ctx := browse(t)
	signIn(t, ctx, h)
	run(t, ctx, "new game",
		click(`#new-game button[type=submit]`),
		chromedp.WaitVisible(`#status[data-turn="0"]`, chromedp.ByQuery),
		click("#back"),
		chromedp.WaitVisible(`#games button[data-delete]`, chromedp.ByQuery),
		click(`#games button[data-delete]`),
		chromedp.WaitVisible("#confirm-delete", chromedp.ByQuery))
	shots(t, ctx, "confirm-delete")
	if sessions(t, h) != 1 {
		t.Fatal("the game went before the delete was confirmed")
	}
	run(t, ctx, "confirm", click("#confirm-delete"), chromedp.WaitVisible("#no-games", chromedp.ByQuery))
	if n := sessions(t, h); n != 0 {
		t.Errorf("%d games after the delete", n)
	}
}

func sessions(t *testing.T, h hearth) int {
	t.Helper()
	c := &http.Client{Transport: hearthtest.Bearer{Key: h.key}}
	res, err := c.Get(h.url + "/api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct{ Sessions []json.RawMessage }
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return len(body.Sessions)
}

// payloads are what hostile campaign text and game names carry.
var payloads = []string{`<script>alert(1)</script>`, `<img src=x onerror=alert(1)>`, `[x](javascript:alert(1))`}

func TestHostileTextRendersInert(t *testing.T) {
	evil := strings.Join(payloads, " ")
	h := serve(t, func(data string) {
		dst := filepath.Join(data, "campaigns", "evil")
		if err := os.CopyFS(dst, os.DirFS("../../campaigns/saltmere")); err != nil {
			t.Fatal(err)
		}
		edit := func(name, old, new string) {
			p := filepath.Join(dst, name)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), old) {
				t.Fatalf("%s has no %q", name, old)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		q, _ := json.Marshal(evil)
		edit("campaign.yml", "title: The Lantern of Saltmere", "title: "+string(q))
		edit("npc_nell.md", "name: Nell Pike", "name: "+string(q))
		edit("npc_nell.md", "personality: Quick", "description: "+string(q)+"\npersonality: Quick")
	})
	ctx := browse(t)
	var dialogs atomic.Int32
	chromedp.ListenTarget(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dialogs.Add(1)
			go chromedp.Run(ctx, page.HandleJavaScriptDialog(false))
		}
	})
	signIn(t, ctx, h)
	run(t, ctx, "new hostile game",
		chromedp.SetValue("#campaign", "evil", chromedp.ByQuery),
		chromedp.SendKeys("#game-name", evil, chromedp.ByQuery),
		click(`#new-game button[type=submit]`),
		chromedp.WaitVisible(`#status[data-turn="0"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#here li`, chromedp.ByQuery),
		sendAction("talk to nell"),
		chromedp.WaitVisible(`#log[data-turn="1"] article[data-turn="1"]`, chromedp.ByQuery))
	inert(t, ctx, "game view", []string{"#game-title", "#here"})
	shots(t, ctx, "hostile-game")
	run(t, ctx, "games list", click("#back"), chromedp.WaitVisible(`#games tbody tr`, chromedp.ByQuery))
	inert(t, ctx, "games list", []string{"#games tbody th", "#campaign"})
	shots(t, ctx, "hostile-games")
	if dialogs.Load() != 0 {
		t.Errorf("%d JavaScript dialogs opened", dialogs.Load())
	}
}

// inert checks that the payloads are on the page as text in each of
// where, and that none became an element, a handler or a link.
func inert(t *testing.T, ctx context.Context, view string, where []string) {
	t.Helper()
	var r struct {
		Scripts   []string `json:"scripts"`
		Imgs      int      `json:"imgs"`
		Handlers  []string `json:"handlers"`
		JSLinks   int      `json:"jslinks"`
		Iframes   int      `json:"iframes"`
		Texts     []string `json:"texts"`
		InlineCSS int      `json:"inlinecss"`
	}
	sel, _ := json.Marshal(where)
	eval(t, ctx, `(() => {
		const all = Array.from(document.querySelectorAll("*"));
		return {
			scripts: Array.from(document.scripts).map((s) => s.src),
			imgs: document.images.length,
			handlers: all.flatMap((e) => Array.from(e.attributes).filter((a) => a.name.startsWith("on")).map((a) => e.tagName + "." + a.name)),
			jslinks: all.filter((e) => /^\s*javascript:/i.test(e.getAttribute("href") || e.getAttribute("src") || e.getAttribute("action") || "")).length,
			iframes: document.querySelectorAll("iframe, object, embed").length,
			texts: `+string(sel)+`.map((s) => (document.querySelector(s) || {}).textContent || ""),
			inlinecss: all.filter((e) => e.hasAttribute("style")).length,
		};
	})()`, &r)
	if len(r.Scripts) != 1 || !strings.Contains(r.Scripts[0], "/assets/") {
		t.Errorf("%s: scripts %v", view, r.Scripts)
	}
	if r.Imgs != 0 || len(r.Handlers) != 0 || r.JSLinks != 0 || r.Iframes != 0 || r.InlineCSS != 0 {
		t.Errorf("%s: markup from text: %+v", view, r)
	}
	for i, txt := range r.Texts {
		for _, p := range payloads {
			if !strings.Contains(txt, p) {
				t.Errorf("%s: %s does not show %q as text: %q", view, where[i], p, txt)
			}
		}
	}
}

func TestCrossSiteFormIsRefused(t *testing.T) {
	h := serve(t, nil)
	ctx := browse(t)
	signIn(t, ctx, h)
	// Another origin (another port: the same site, so the SameSite=Strict
	// cookie does go along) posts a form to Hearth as the visitor.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><form id=f method=POST action="%s/api/sessions" enctype="text/plain">
<input name='{"campaign":"saltmere","title":"forged","x":"' value='"}'></form>
<script>document.getElementById("f").submit()</script>`, h.url)
	}))
	t.Cleanup(evil.Close)
	var body string
	run(t, ctx, "cross-site post",
		chromedp.Navigate(evil.URL),
		chromedp.WaitVisible("body", chromedp.ByQuery),
		chromedp.Poll(`location.origin === `+jsString(h.url)+` && document.body.textContent.length > 0`, nil),
		chromedp.Text("body", &body, chromedp.ByQuery))
	if !strings.Contains(body, `"forbidden"`) {
		t.Errorf("the cross-site post was answered %q", body)
	}
	if n := sessions(t, h); n != 0 {
		t.Errorf("a cross-site form created %d games", n)
	}
	// The same request from Hearth's own page, with the token, works: the
	// refusal above is the CSRF check, not a broken session.
	var status int
	run(t, ctx, "back home", chromedp.Navigate(h.url+"/"), chromedp.WaitVisible("#new-game", chromedp.ByQuery))
	eval(t, ctx, `fetch("/api/session").then((r) => r.json()).then((s) => fetch("/api/sessions", {method: "POST",
		headers: {"X-CSRF-Token": s.csrf_token, "Content-Type": "application/json"}, body: JSON.stringify({campaign: "saltmere"})})).then((r) => r.status)`, &status)
	if status != http.StatusCreated {
		t.Errorf("the page's own post: %d", status)
	}
	eval(t, ctx, `fetch("/api/sessions", {method: "POST", headers: {"Content-Type": "application/json"}, body: "{\"campaign\":\"saltmere\"}"}).then((r) => r.status)`, &status)
	if status != http.StatusForbidden {
		t.Errorf("a same-origin post without the token: %d", status)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestCSPHeaders(t *testing.T) {
	h := serve(t, nil)
	res, err := http.Get(h.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := res.Header.Get("Content-Security-Policy"); got != web.CSP {
		t.Errorf("shell CSP %q", got)
	}
	ctx := browse(t)
	// The browser holds the page to it: an inline script injected by a
	// test is refused, and says so.
	var directive string
	run(t, ctx, "open", chromedp.Navigate(h.url+"/"), chromedp.WaitVisible("#key", chromedp.ByQuery))
	eval(t, ctx, `new Promise((done) => {
		document.addEventListener("securitypolicyviolation", (e) => done(window.pwned ? "ran" : e.effectiveDirective));
		const s = document.createElement("script");
		s.textContent = "window.pwned = 1";
		document.body.append(s);
	})`, &directive)
	if !strings.HasPrefix(directive, "script-src") {
		t.Errorf("an inline script was not refused by the CSP: %q", directive)
	}
}

func TestLanguageAndKeyboard(t *testing.T) {
	h := serve(t, nil)
	ctx := browse(t)
	var heading, focused string
	run(t, ctx, "open", chromedp.Navigate(h.url+"/"), chromedp.WaitVisible("#key", chromedp.ByQuery))
	// Keyboard: the first Tab reaches the skip link, which moves focus to
	// the content.
	run(t, ctx, "tab", chromedp.KeyEvent(kb.Tab))
	eval(t, ctx, `document.activeElement.id`, &focused)
	if focused != "skip" {
		t.Errorf("the first Tab focuses %q, not the skip link", focused)
	}
	run(t, ctx, "skip", chromedp.KeyEvent(kb.Enter))
	eval(t, ctx, `new Promise((done) => requestAnimationFrame(() => done(document.activeElement.id)))`, &focused)
	if focused != "main" {
		t.Errorf("the skip link leaves focus on %q", focused)
	}
	// The switcher turns the page German, and the choice outlives a reload.
	run(t, ctx, "deutsch",
		chromedp.SetValue("#lang", "de", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("lang").dispatchEvent(new Event("change"))`, nil),
		chromedp.WaitVisible(`html[lang="de"] #signin`, chromedp.ByQuery),
		chromedp.Reload(),
		chromedp.WaitVisible(`html[lang="de"] #signin`, chromedp.ByQuery),
		chromedp.Text("#signin h1", &heading, chromedp.ByQuery))
	if heading != "Anmelden" {
		t.Errorf("German sign-in heading %q", heading)
	}
	signIn(t, ctx, h)
	run(t, ctx, "games heading", chromedp.Text("#games-h", &heading, chromedp.ByQuery))
	if heading != "Spiele" {
		t.Errorf("German games heading %q", heading)
	}
	shots(t, ctx, "games-de")
}

// TestPlayerSeesWhatTheAPIAllows: a player's pages offer only what the
// API lets a player do.
func TestPlayerSeesWhatTheAPIAllows(t *testing.T) {
	var playerKey string
	h := serve(t, func(data string) {
		out, err := exec.Command(bin, "user", "add", "ann", "--role", "player", "--data", data).CombinedOutput()
		if err != nil {
			t.Fatalf("hearth user add ann: %v\n%s", err, out)
		}
		playerKey = regexp.MustCompile(`hth_[A-Za-z0-9_]+`).FindString(string(out))
	})
	c := &http.Client{Transport: hearthtest.Bearer{Key: h.key}}
	res, err := c.Post(h.url+"/api/sessions", "application/json", strings.NewReader(`{"campaign":"saltmere","title":"Ann's table"}`))
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("GM creates a game: %v %v", res, err)
	}
	res.Body.Close()
	ctx := browse(t)
	signIn(t, ctx, hearth{url: h.url, key: playerKey})
	var offered struct {
		NewGame, Delete, Autopilot, Restore, Alert bool
	}
	check := func(view string) {
		t.Helper()
		eval(t, ctx, `({NewGame: !!document.querySelector("#new-game"), Delete: !!document.querySelector("[data-delete]"),
			Autopilot: !!document.querySelector("#autopilot-start"), Restore: !!document.querySelector("#restore"),
			Alert: !document.getElementById("alert").hidden})`, &offered)
		if offered.NewGame || offered.Delete || offered.Autopilot || offered.Restore || offered.Alert {
			t.Errorf("%s offers a player %+v", view, offered)
		}
	}
	run(t, ctx, "games", chromedp.WaitVisible(`#games [data-resume]`, chromedp.ByQuery))
	check("the games list")
	shots(t, ctx, "player-games")
	run(t, ctx, "play",
		click(`#games [data-resume]`),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
		sendAction("look around"),
		chromedp.WaitVisible(`#log[data-turn="1"] article[data-turn="1"]`, chromedp.ByQuery))
	check("the game")
	shots(t, ctx, "player-game")
}
