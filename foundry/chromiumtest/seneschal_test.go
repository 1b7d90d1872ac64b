package chromiumtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hearth-rpg/hearth/internal/chromeclick"
	"github.com/hearth-rpg/hearth/internal/hearthtest"
)

const chromium = "/usr/bin/chromium"

// bound is how long the browser test may take at most on a loaded
// machine; reaching it fails the test, it never decides one.
const bound = 4 * time.Minute

var bin string

func TestMain(m *testing.M) {
	if _, err := os.Stat(chromium); err != nil {
		fmt.Printf("skipping the Seneschal Chromium tests: %s is absent (apt-get install chromium)\n", chromium)
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

// hostile is model text that must stay text in the panel and the chat log.
var hostile = []string{`<script>alert(1)</script>`, `<img src=x onerror=alert(2)>`}

// hostileLink is a Markdown link whose javascript: URL must not survive.
const hostileLink = `[click me](javascript:alert(3))`

// fakeModel speaks the OpenAI Chat Completions streaming format. For a
// question with "PANEL" in it, it reads an actor the player may not see,
// then the player's own, then rolls dice, then makes two changes to the
// player's actor in one step, then answers from what it was given; for
// "ONESHOT" it answers at once. Either answer carries hostile text.
type fakeModel struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests int
	results  map[string]string // tool_call_id → the tool message the model got
}

func newFakeModel(t *testing.T) *fakeModel {
	m := &fakeModel{results: map[string]string{}}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[{"id":"fake","object":"model"}]}`)
			return
		}
		var body struct {
			Messages []struct {
				Role       string `json:"role"`
				Content    string `json:"content"`
				ToolCallID string `json:"tool_call_id"`
			} `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&body) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		question := ""
		results := map[string]string{} // since the question
		for _, msg := range body.Messages {
			switch msg.Role {
			case "user":
				question, results = msg.Content, map[string]string{}
			case "tool":
				results[msg.ToolCallID] = msg.Content
			}
		}
		m.mu.Lock()
		m.requests++
		for k, v := range results {
			m.results[k] = v
		}
		m.mu.Unlock()

		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta any, finish string) {
			d, _ := json.Marshal(delta)
			f := "null"
			if finish != "" {
				f = `"` + finish + `"`
			}
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"fake\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", d, f)
			w.(http.Flusher).Flush()
		}
		call := func(id, name, args string) {
			chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": id, "type": "function",
				"function": map[string]any{"name": name, "arguments": args}}}}, "")
			chunk(map[string]any{}, "tool_calls")
		}
		say := func(answer string) {
			// The answer comes in pieces, as a model streams it.
			for len(answer) > 0 {
				n := min(23, len(answer))
				chunk(map[string]any{"role": "assistant", "content": answer[:n]}, "")
				answer = answer[n:]
			}
			chunk(map[string]any{}, "stop")
		}
		evil := "\n\n- " + strings.Join(hostile, "\n- ") + "\n- " + hostileLink
		switch {
		case strings.Contains(question, "ONESHOT"):
			say("Captain Reyes **knows the route**." + evil)
		case results["call_hidden"] == "":
			call("call_hidden", "fvtt_read", `{"document_type":"actor","document_id":"a-hidden"}`)
		case results["call_mine"] == "":
			call("call_mine", "fvtt_read", `{"document_type":"actor","document_id":"a-mine"}`)
		case results["call_dice"] == "":
			call("call_dice", "dice_roll", `{"formula":"2d6+1","label":"Strength check"}`)
		case results["call_write1"] == "":
			// Two changes at once; maxActionsPerRequest allows one.
			chunk(map[string]any{"role": "assistant", "tool_calls": []any{
				map[string]any{"index": 0, "id": "call_write1", "type": "function", "function": map[string]any{"name": "fvtt_write",
					"arguments": `{"document_type":"actor","operation":"update","data":{"_id":"a-mine","system.notes":"rested"}}`}},
				map[string]any{"index": 1, "id": "call_write2", "type": "function", "function": map[string]any{"name": "fvtt_write",
					"arguments": `{"document_type":"actor","operation":"update","data":{"_id":"a-mine","system.notes":"overwritten"}}`}},
			}}, "")
			chunk(map[string]any{}, "tool_calls")
		default:
			// The answer uses what the browser sent: the sheet and the roll.
			var sheet struct {
				Name   string `json:"name"`
				System struct {
					Characteristics struct {
						Strength int `json:"strength"`
					} `json:"characteristics"`
				} `json:"system"`
			}
			var roll struct {
				Total int `json:"total"`
			}
			json.Unmarshal([]byte(results["call_mine"]), &sheet)
			json.Unmarshal([]byte(results["call_dice"]), &roll)
			say(fmt.Sprintf("## %s\n\n**%s** has Strength %d; the check rolled %d.", sheet.Name, sheet.Name, sheet.System.Characteristics.Strength, roll.Total) + evil)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *fakeModel) seen() (requests int, results map[string]string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]string, len(m.results))
	for k, v := range m.results {
		out[k] = v
	}
	return m.requests, out
}

// harnessPage serves the harness page and the module's files from
// foundry/ on an origin of its own, as a Foundry world is.
func harnessPage(t *testing.T) *httptest.Server {
	t.Helper()
	js := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Module scripts need a JavaScript type, whatever the system's MIME table says.
			if strings.HasSuffix(r.URL.Path, ".mjs") {
				w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			}
			h.ServeHTTP(w, r)
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/module/", js(http.StripPrefix("/module/", http.FileServer(http.Dir("..")))))
	mux.Handle("/harness/", js(http.StripPrefix("/harness/", http.FileServer(http.Dir("testdata")))))
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, "testdata/harness.html") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// addUser creates a Hearth user with the binary and returns their key.
func addUser(t *testing.T, data, name, role string) string {
	t.Helper()
	out, err := exec.Command(bin, "user", "add", name, "--role", role, "--data", data).CombinedOutput()
	if err != nil {
		t.Fatalf("hearth user add %s: %v\n%s", name, err, out)
	}
	key := regexp.MustCompile(`hth_[A-Za-z0-9_]+`).FindString(string(out))
	if key == "" {
		t.Fatalf("no key in %s", out)
	}
	return key
}

func browse(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.WindowSize(1280, 900))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	ctx, cancelT := context.WithTimeout(ctx, bound)
	t.Cleanup(func() { cancelT(); cancelB(); cancelA() })
	return ctx
}

func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// click clicks the element sel with the mouse once it can take a user's
// click: shown, enabled, in view, not moving and not covered (see
// internal/chromeclick).
func click(sel string) chromedp.Action { return chromeclick.Click(sel) }

// eval evaluates js in the page, awaiting a promise, into out.
func eval(t *testing.T, ctx context.Context, js string, out any) {
	t.Helper()
	run(t, ctx, "evaluate "+js, chromedp.Evaluate(js, out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams {
		return p.WithAwaitPromise(true)
	}))
}

// inert checks that nothing under sel came from markup in model text:
// no script, image, handler attribute or javascript: URL, and the hostile
// strings shown as text.
func inert(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	var r struct {
		Found    bool     `json:"found"`
		Tags     []string `json:"tags"`
		Handlers []string `json:"handlers"`
		JSLinks  int      `json:"jslinks"`
		Text     string   `json:"text"`
	}
	eval(t, ctx, `(() => {
		const root = document.querySelector(`+jsString(sel)+`);
		if (!root) return {found: false};
		const all = Array.from(root.querySelectorAll("*"));
		return {
			found: true,
			tags: all.filter((e) => /^(script|img|iframe|object|embed|svg|style|link)$/i.test(e.tagName)).map((e) => e.tagName),
			handlers: all.flatMap((e) => Array.from(e.attributes).filter((a) => a.name.startsWith("on")).map((a) => e.tagName + "." + a.name)),
			jslinks: all.filter((e) => /^\s*javascript:/i.test(e.getAttribute("href") || e.getAttribute("src") || "")).length,
			text: root.textContent,
		};
	})()`, &r)
	if !r.Found {
		t.Fatalf("%s is not in the page", sel)
	}
	if len(r.Tags) != 0 || len(r.Handlers) != 0 || r.JSLinks != 0 {
		t.Errorf("%s: markup from model text: %+v", sel, r)
	}
	for _, p := range append(hostile, "click me") {
		if !strings.Contains(r.Text, p) {
			t.Errorf("%s does not show %q as text: %q", sel, p, r.Text)
		}
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// setUp starts the fake model, the harness page and a Hearth with a GM
// (gail) and a player (ann) whose keys it returns; the page and Hearth
// are on different origins, as Foundry and Hearth are.
func setUp(t *testing.T) (model *fakeModel, pageSrv *httptest.Server, hearth, gmKey, playerKey string) {
	t.Helper()
	if bin == "" {
		t.Skipf("%s is absent; install it with apt-get install chromium", chromium)
	}
	model = newFakeModel(t)
	pageSrv = harnessPage(t)
	data := t.TempDir()
	gmKey = addUser(t, data, "gail", "gm")
	playerKey = addUser(t, data, "ann", "player")
	hearth = hearthtest.Server{Bin: bin, Data: data, Log: func(line string) { t.Log(line) }, Env: []string{
		"HEARTH__MODELS__ASSISTANT__PROVIDER=openai", "HEARTH__MODELS__ASSISTANT__MODEL=fake",
		"HEARTH__MODELS__ASSISTANT__BASE_URL=" + model.srv.URL + "/v1", "HEARTH__MODELS__ASSISTANT__API_KEY=test",
		// A pause after three calls, never one for time on a slow machine.
		"HEARTH__ASSISTANT__TOOL_CALL_PAUSE_THRESHOLD=3", "HEARTH__ASSISTANT__TIME_PAUSE_THRESHOLD=240s",
		"HEARTH__SERVER__CORS_ORIGINS=" + pageSrv.URL,
	}}.Start(t)
	if strings.TrimPrefix(hearth, "http://") == strings.TrimPrefix(pageSrv.URL, "http://") {
		t.Fatal("the harness page and Hearth share an origin")
	}
	return model, pageSrv, hearth, gmKey, playerKey
}

// TestSeneschalInChromium: a player (enablePlayerAccess on) opens the
// panel from the chat log and asks a question. The model reads an actor
// the player may not see and gets a permission error from the browser,
// reads the player's own actor and rolls dice through the harness Roll,
// the server pauses, Continue lets the model make two changes of which
// maxActionsPerRequest (1) allows one, and the answer built from the sheet
// and the roll streams into the panel with its hostile parts inert.
// Then "/sen-ai" in the chat input posts an answer whispered to the
// player, and the same command from the GM is public. The page and the
// server are on different origins, as Foundry and Hearth are: every call
// crosses server.cors_origins.
func TestSeneschalInChromium(t *testing.T) {
	model, pageSrv, hearth, gmKey, playerKey := setUp(t)
	ctx := browse(t)
	var dialogs atomic.Int32
	var consoleErrors []string
	var consoleMu sync.Mutex
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			dialogs.Add(1)
			go chromedp.Run(ctx, page.HandleJavaScriptDialog(false))
		case *runtime.EventExceptionThrown:
			consoleMu.Lock()
			consoleErrors = append(consoleErrors, e.ExceptionDetails.Error())
			consoleMu.Unlock()
		}
	})
	run(t, ctx, "open the harness", chromedp.Navigate(pageSrv.URL+"/"), chromedp.WaitReady(`body[data-ready]`, chromedp.ByQuery))
	var booted struct {
		User    string   `json:"user"`
		Modules []string `json:"modules"`
	}
	eval(t, ctx, fmt.Sprintf(`boot({backendUrl: %s, apiKey: %s, user: "pl1", dice: [4, 5], maxActionsPerRequest: 1})`,
		jsString(hearth), jsString(playerKey)), &booted)
	if booted.User != "Ann" || len(booted.Modules) == 0 {
		t.Fatalf("boot: %+v", booted)
	}

	// ready filled the model dropdown from /api/models: a keyed
	// cross-origin GET, preflight and all.
	run(t, ctx, "model choices", chromedp.Poll(`"fake" in (harness.game.settings.settings.get("hearth-seneschal.chatModel").choices || {})`, nil,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(time.Minute)))

	// The panel opens from the button the module put above the chat log.
	run(t, ctx, "open the panel",
		click("#chat button.seneschal-open"),
		chromedp.WaitVisible("#seneschal-panel .seneschal-input", chromedp.ByQuery))
	// Count the renders of the answer: streaming renders it once per piece.
	var ok bool
	eval(t, ctx, `(() => {
		window.renders = 0;
		new MutationObserver((records) => {
			for (const r of records) if (r.target.closest && r.target.closest(".seneschal-assistant")) window.renders++;
		}).observe(document.querySelector("#seneschal-panel .seneschal-log"), {childList: true, subtree: true});
		return true;
	})()`, &ok)

	run(t, ctx, "ask",
		chromedp.SendKeys("#seneschal-panel .seneschal-input", "PANEL: how strong is my character?", chromedp.ByQuery),
		chromedp.SendKeys("#seneschal-panel .seneschal-input", kb.Enter, chromedp.ByQuery),
		chromedp.WaitVisible("#seneschal-panel .seneschal-continue", chromedp.ByQuery))

	// Paused after three tool calls (two reads and the roll, all run in
	// the browser): the model has not been asked a fourth time.
	n, results := model.seen()
	if n != 3 {
		t.Errorf("at the pause the model was asked %d times, want 3", n)
	}
	if hidden := results["call_hidden"]; !strings.Contains(hidden, "that you may see") || strings.Contains(hidden, "plot twist") || strings.Contains(hidden, "Archduke") {
		t.Errorf("reading the hidden actor, the model got %q; want the browser's permission error and nothing of the actor", hidden)
	}
	if dice := results["call_dice"]; dice != "" {
		t.Errorf("before the pause the model already had the roll: %q", dice)
	}
	var pauseText string
	eval(t, ctx, `document.querySelector("#seneschal-panel .seneschal-pause-text").textContent`, &pauseText)
	if !strings.Contains(pauseText, "3 tool calls") {
		t.Errorf("the pause says %q", pauseText)
	}

	run(t, ctx, "continue",
		click("#seneschal-panel .seneschal-continue"),
		chromedp.WaitNotPresent("#seneschal-panel .seneschal-streaming", chromedp.ByQuery))
	n, results = model.seen()
	if n != 5 {
		t.Errorf("the model was asked %d times, want 5", n)
	}
	// maxActionsPerRequest is 1: the first change is made, the second refused.
	if w1, w2 := results["call_write1"], results["call_write2"]; !strings.Contains(w1, `"operation":"update"`) || !strings.Contains(w2, "at most 1 changes") {
		t.Errorf("the two changes the model got back: %q, %q", w1, w2)
	}
	var notes string
	eval(t, ctx, `harness.docs.mine.data.system.notes`, &notes)
	if notes != "rested" {
		t.Errorf("the player's actor's notes are %q, want the first change only", notes)
	}
	if mine := results["call_mine"]; !strings.Contains(mine, "Marcus Chen") || !strings.Contains(mine, `"strength":8`) {
		t.Errorf("reading the player's actor, the model got %q", mine)
	}
	var roll struct {
		Formula string `json:"formula"`
		Label   string `json:"label"`
		Total   int    `json:"total"`
	}
	if err := json.Unmarshal([]byte(results["call_dice"]), &roll); err != nil || roll.Formula != "2d6+1" || roll.Total != 10 || roll.Label != "Strength check" {
		t.Errorf("the dice result the model got: %q (%v); want 2d6+1 = 4+5+1 = 10 from the harness Roll", results["call_dice"], err)
	}
	var rolled struct {
		Messages int    `json:"messages"`
		Flavor   string `json:"flavor"`
	}
	eval(t, ctx, `({messages: harness.Roll.messages.length, flavor: (harness.Roll.messages[0] || {}).flavor || ""})`, &rolled)
	if rolled.Messages != 1 || rolled.Flavor != "Strength check" {
		t.Errorf("Roll.toMessage: %+v", rolled)
	}

	var panel struct {
		Answer  string   `json:"answer"`
		Tags    []string `json:"tags"`
		Renders int      `json:"renders"`
		Errors  []string `json:"errors"`
		Pause   bool     `json:"pauseHidden"`
	}
	eval(t, ctx, `(() => {
		const a = Array.from(document.querySelectorAll("#seneschal-panel .seneschal-assistant")).at(-1);
		return {answer: a.textContent, tags: Array.from(a.querySelectorAll("*")).map((e) => e.tagName.toLowerCase()), renders: window.renders,
			errors: Array.from(document.querySelectorAll("#seneschal-panel .seneschal-error")).map((e) => e.textContent),
			pauseHidden: document.querySelector("#seneschal-panel .seneschal-pause").hidden};
	})()`, &panel)
	if !strings.Contains(panel.Answer, "Marcus Chen has Strength 8; the check rolled 10.") {
		t.Errorf("the panel's answer does not use the sheet and the roll: %q", panel.Answer)
	}
	if tags := " " + strings.Join(panel.Tags, " ") + " "; !strings.Contains(tags, " strong ") || !strings.Contains(tags, " li ") {
		t.Errorf("the answer is not rendered Markdown: %v", panel.Tags)
	}
	if panel.Renders < 2 {
		t.Errorf("the answer was rendered %d times; a streamed answer renders as its pieces arrive", panel.Renders)
	}
	if len(panel.Errors) != 0 || !panel.Pause {
		t.Errorf("after the answer: errors %v, pause hidden %v", panel.Errors, panel.Pause)
	}
	inert(t, ctx, "#seneschal-panel .seneschal-log")

	// The one-shot command, typed into Foundry's chat input by the player:
	// the module takes it (nothing else is posted) and whispers the answer.
	run(t, ctx, "/sen-ai as the player",
		chromedp.SendKeys("#chat-message", "/sen-ai ONESHOT where does Reyes go?", chromedp.ByQuery),
		chromedp.SendKeys("#chat-message", kb.Enter, chromedp.ByQuery),
		chromedp.Poll(`ChatMessage.created.length === 1 && ChatMessage.created[0].updates === 1`, nil, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(time.Minute)))
	type posted struct {
		Count   int      `json:"count"`
		Whisper []string `json:"whisper"`
		Content string   `json:"content"`
	}
	var one posted
	eval(t, ctx, `({count: ChatMessage.created.length, whisper: ChatMessage.created.at(-1).whisper, content: ChatMessage.created.at(-1).content})`, &one)
	if one.Count != 1 || len(one.Whisper) != 1 || one.Whisper[0] != "pl1" {
		t.Errorf("the player's /sen-ai posted %d messages whispered to %v; want one, to pl1 only", one.Count, one.Whisper)
	}
	if !strings.Contains(one.Content, "knows the route") || !strings.Contains(one.Content, "where does Reyes go?") {
		t.Errorf("the whispered answer: %q", one.Content)
	}
	inert(t, ctx, `#chat-log [data-message-id="msg1"]`)

	// The GM's own key and the same command: the answer is public.
	eval(t, ctx, fmt.Sprintf(`become("gm1", %s).then(() => true)`, jsString(gmKey)), &ok)
	run(t, ctx, "/sen-ai as the GM",
		chromedp.SendKeys("#chat-message", "/sen-ai ONESHOT and for the table?", chromedp.ByQuery),
		chromedp.SendKeys("#chat-message", kb.Enter, chromedp.ByQuery),
		chromedp.Poll(`ChatMessage.created.length === 2 && ChatMessage.created[1].updates === 1`, nil, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(time.Minute)))
	var gm posted
	eval(t, ctx, `({count: ChatMessage.created.length, whisper: ChatMessage.created.at(-1).whisper, content: ChatMessage.created.at(-1).content})`, &gm)
	if len(gm.Whisper) != 0 || !strings.Contains(gm.Content, "knows the route") {
		t.Errorf("the GM's /sen-ai: whispered to %v, content %q; want public", gm.Whisper, gm.Content)
	}

	if d := dialogs.Load(); d != 0 {
		t.Errorf("%d JavaScript dialogs opened", d)
	}
	consoleMu.Lock()
	defer consoleMu.Unlock()
	if len(consoleErrors) != 0 {
		t.Errorf("uncaught exceptions in the page: %v", consoleErrors)
	}
}
