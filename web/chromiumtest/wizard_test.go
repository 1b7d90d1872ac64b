package chromiumtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hearth-rpg/hearth/imagegen/imagegentest"
)

// partyModel is a model server speaking the OpenAI wire format: it lists
// two models and answers every chat, streamed, with one action, counting
// the chats each model was asked.
type partyModel struct {
	srv *httptest.Server

	mu    sync.Mutex
	chats map[string]int
}

func newPartyModel(t *testing.T) *partyModel {
	m := &partyModel{chats: map[string]int{}}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "GET" && r.URL.Path == "/v1/models":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[{"id":"fake-a","object":"model","created":1,"owned_by":"test"},{"id":"fake-b","object":"model","created":1,"owned_by":"test"}]}`)
		case r.Method == "POST" && r.URL.Path == "/v1/chat/completions":
			var body struct {
				Model string `json:"model"`
			}
			if json.NewDecoder(r.Body).Decode(&body) != nil {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			m.mu.Lock()
			m.chats[body.Model]++
			m.mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			for _, d := range []string{`{"role":"assistant","content":"look "}`, `{"content":"around"}`} {
				fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", body.Model, d)
			}
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n", body.Model)
			io.WriteString(w, "data: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *partyModel) asked(model string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.chats[model]
}

// change sets a select's value and tells the page, as a pick would.
func change(sel, value string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %q; s.dispatchEvent(new Event("change")); return true; })()`, sel, value), nil)
}

// step waits for the wizard to show step name.
func step(name string) chromedp.Action {
	return chromedp.WaitVisible(`#wizard[data-step="`+name+`"] #step-h`, chromedp.ByQuery)
}

// tabTo presses Tab until the element sel has the focus.
func tabTo(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	for range 40 {
		var on bool
		eval(t, ctx, fmt.Sprintf(`document.activeElement === document.querySelector(%q)`, sel), &on)
		if on {
			return
		}
		run(t, ctx, "Tab", chromedp.KeyEvent(kb.Tab))
	}
	t.Fatalf("40 Tabs never reached %s", sel)
}

// TestCharacterWizardAndPartyGame: the GM creates two characters with the
// wizard — one by point buy, whose over-budget attempt the server refuses
// beside the scores, one by standard array with Tab and Enter only —
// starts a game with both (one an offline agent, one ann's), changes the
// agent's model from the sidebar, and the next agent turn is played by
// that model's server. The wizard speaks German too; axe-core finds no
// serious problem on any new view.
func TestCharacterWizardAndPartyGame(t *testing.T) {
	model := newPartyModel(t)
	h := serveEnv(t, func(data string) { addUser(t, data, "ann", "player") },
		"HEARTH__MODELS__ASSISTANT__PROVIDER=openai", "HEARTH__MODELS__ASSISTANT__MODEL=fake-a",
		"HEARTH__MODELS__ASSISTANT__BASE_URL="+model.srv.URL+"/v1", "HEARTH__MODELS__ASSISTANT__API_KEY=test")
	ctx := browse(t)
	signIn(t, ctx, h)

	// The first character: point buy, 29 points first.
	run(t, ctx, "open the wizard",
		chromedp.WaitVisible("#new-character", chromedp.ByQuery),
		click("#new-character"),
		step("race"))
	assertAccessible(t, ctx, "wizard-race")
	shots(t, ctx, "wizard-race")
	run(t, ctx, "race, class, background",
		click("#wizard-next"), step("class"),
		click("#wizard-next"), step("background"),
		click("#wizard-next"), step("abilities"),
		change("#method", "point_buy"),
		chromedp.WaitVisible(`#budget[data-spent="0"]`, chromedp.ByQuery))
	for a, v := range map[string]string{"strength": "15", "dexterity": "15", "constitution": "15", "intelligence": "10"} {
		run(t, ctx, "score "+a, change("#score-"+a, v))
	}
	var budget string
	run(t, ctx, "the live budget",
		chromedp.WaitVisible(`#budget[data-over="yes"][data-spent="29"]`, chromedp.ByQuery),
		chromedp.Text("#budget", &budget, chromedp.ByQuery))
	if !strings.Contains(budget, "29 of 27") {
		t.Errorf("the budget reads %q", budget)
	}
	assertAccessible(t, ctx, "wizard-point-buy")
	var refusal string
	run(t, ctx, "the server refuses 29 points",
		click("#wizard-next"),
		chromedp.WaitVisible(`#error-scores:not([hidden])`, chromedp.ByQuery),
		chromedp.Text("#error-scores", &refusal, chromedp.ByQuery),
		step("abilities"))
	if !strings.Contains(refusal, "point buy spends 29 points; the budget is 27") {
		t.Errorf("the refusal beside the scores reads %q", refusal)
	}
	var described bool
	eval(t, ctx, `document.activeElement.getAttribute("aria-describedby").includes("error-scores")`, &described)
	if !described {
		t.Error("focus is not on a field the refusal describes")
	}
	shots(t, ctx, "wizard-refused")
	run(t, ctx, "within budget",
		change("#score-intelligence", "8"),
		chromedp.WaitVisible(`#budget[data-over="no"][data-spent="27"]`, chromedp.ByQuery),
		click("#wizard-next"), step("skills"),
		click("#wizard-next"), step("story"),
		chromedp.SendKeys("#char-name", "Brienne", chromedp.ByQuery),
		click("#wizard-next"), step("review"))
	var review string
	run(t, ctx, "review", chromedp.Text("#wizard", &review, chromedp.ByQuery))
	for _, want := range []string{"Brienne", "Human Fighter", "STR 16", "DEX 16", "CON 16"} {
		if !strings.Contains(review, want) {
			t.Errorf("the review lacks %q: %q", want, review)
		}
	}
	assertAccessible(t, ctx, "wizard-review")
	shots(t, ctx, "wizard-review")
	var sheet string
	run(t, ctx, "save",
		click("#wizard-save"),
		chromedp.WaitVisible(`#character-h[data-character]`, chromedp.ByQuery),
		chromedp.Text("main", &sheet, chromedp.ByQuery))
	if !strings.Contains(sheet, "Brienne") || !strings.Contains(sheet, "Backstory") {
		t.Errorf("the saved sheet: %q", sheet)
	}
	assertAccessible(t, ctx, "character-sheet")
	shots(t, ctx, "character-sheet")

	// The wizard in German.
	run(t, ctx, "German",
		chromedp.Navigate(h.url+"/#/characters/new"), step("race"),
		change("#lang", "de"),
		chromedp.WaitVisible(`html[lang="de"] #wizard[data-step="race"]`, chromedp.ByQuery))
	var de struct{ Heading, Next, Race, Title string }
	eval(t, ctx, `({heading: document.getElementById("step-h").textContent, next: document.getElementById("wizard-next").textContent,
		race: document.querySelector('label[for="race"]').textContent, title: document.getElementById("wizard-h").textContent})`, &de)
	if de.Heading != "Schritt 1 von 7: Volk" || de.Next != "Weiter" || de.Race != "Volk" || de.Title != "Figur erschaffen" {
		t.Errorf("German wizard: %+v", de)
	}
	assertAccessible(t, ctx, "wizard-de")
	shots(t, ctx, "wizard-de")
	// The server's refusal comes in German too, beside the scores.
	run(t, ctx, "German point buy",
		click("#wizard-next"), step("class"),
		click("#wizard-next"), step("background"),
		click("#wizard-next"), step("abilities"),
		change("#method", "point_buy"),
		chromedp.WaitVisible(`#budget[data-spent="0"]`, chromedp.ByQuery))
	for a, v := range map[string]string{"strength": "15", "dexterity": "15", "constitution": "15", "intelligence": "10"} {
		run(t, ctx, "score "+a, change("#score-"+a, v))
	}
	var refusalDE string
	run(t, ctx, "the server refuses 29 points in German",
		chromedp.WaitVisible(`#budget[data-over="yes"][data-spent="29"]`, chromedp.ByQuery),
		click("#wizard-next"),
		chromedp.WaitVisible(`#error-scores:not([hidden])`, chromedp.ByQuery),
		chromedp.Text("#error-scores", &refusalDE, chromedp.ByQuery),
		step("abilities"))
	if !strings.Contains(refusalDE, "Der Punktekauf gibt 29 Punkte aus; das Budget ist 27.") {
		t.Errorf("the German refusal beside the scores reads %q", refusalDE)
	}
	shots(t, ctx, "wizard-refused-de")
	run(t, ctx, "English again", change("#lang", "en"),
		chromedp.Navigate(h.url+"/#/characters"), chromedp.WaitVisible("#new-character", chromedp.ByQuery),
		chromedp.Navigate(h.url+"/#/characters/new"),
		chromedp.WaitVisible(`html[lang="en"] #wizard[data-step="race"]`, chromedp.ByQuery))

	// The second character: the standard array, by Tab and Enter alone.
	for _, s := range []string{"race", "class", "background", "abilities", "skills"} {
		run(t, ctx, "at "+s, step(s))
		tabTo(t, ctx, "#wizard-next")
		run(t, ctx, "Enter on "+s, chromedp.KeyEvent(kb.Enter))
	}
	run(t, ctx, "at the name", step("story"))
	tabTo(t, ctx, "#char-name")
	run(t, ctx, "type the name and Enter", chromedp.KeyEvent("Cedric"), chromedp.KeyEvent(kb.Enter), step("review"))
	tabTo(t, ctx, "#wizard-save")
	run(t, ctx, "Enter saves", chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(`#character-h[data-character]`, chromedp.ByQuery))
	var cedric string
	run(t, ctx, "Cedric", chromedp.Text("#character-h", &cedric, chromedp.ByQuery))
	if cedric != "Cedric" {
		t.Errorf("the keyboard-made character is %q", cedric)
	}

	// The library lists both; a third is deleted from it.
	var third struct{ ID string }
	if code := apiStatus(t, h, h.key, "POST", "/api/characters", `{"name":"Spare","race":"human","class":"wizard","background":"sage","method":"standard_array",
		"scores":{"intelligence":15,"constitution":14,"dexterity":13,"wisdom":12,"charisma":10,"strength":8},"skills":["investigation","insight"]}`, &third); code != http.StatusCreated {
		t.Fatalf("create the spare: %d", code)
	}
	run(t, ctx, "the library",
		chromedp.Navigate(h.url+"/#/games"),
		chromedp.WaitVisible(`#characters tr[data-character="`+third.ID+`"]`, chromedp.ByQuery),
		click(`[data-delete-character="`+third.ID+`"]`),
		click("#confirm-delete-character"),
		// The list is drawn anew: two rows, the spare not among them.
		chromedp.Poll(`document.querySelectorAll("#characters tbody tr").length === 2 && !document.querySelector('#characters tr[data-character="`+third.ID+`"]')`, nil))
	var ids map[string]string
	eval(t, ctx, `Object.fromEntries(Array.from(document.querySelectorAll("#characters tbody tr")).map((tr) => [tr.querySelector("th").textContent, tr.dataset.character]))`, &ids)
	brienne, ced := ids["Brienne"], ids["Cedric"]
	if brienne == "" || ced == "" || len(ids) != 2 {
		t.Fatalf("the library lists %v", ids)
	}
	assertAccessible(t, ctx, "games-with-library")

	// A new game with both: Brienne an offline agent, Cedric ann's.
	run(t, ctx, "new party game",
		click("#pick-"+brienne),
		click("#pick-"+ced),
		change("#ctl-"+ced, "human"),
		chromedp.WaitVisible("#user-"+ced, chromedp.ByQuery),
		chromedp.SendKeys("#user-"+ced, "ann", chromedp.ByQuery))
	var models []string
	eval(t, ctx, `Array.from(document.querySelectorAll("#model-`+brienne+` option")).map((o) => o.value)`, &models)
	if strings.Join(models, ",") != ",fake-a,fake-b" {
		t.Errorf("the new game's model choices: %q", models)
	}
	shots(t, ctx, "new-party-game")
	run(t, ctx, "start",
		click(`#new-game button[type=submit]`),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#party li[data-character="`+brienne+`"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#party li[data-character="`+ced+`"]`, chromedp.ByQuery))
	var controllers map[string]string
	eval(t, ctx, `Object.fromEntries(Array.from(document.querySelectorAll("#party li")).map((li) => [li.dataset.character, li.querySelector(".controller").textContent]))`, &controllers)
	if !strings.Contains(controllers[brienne], "offline") || !strings.Contains(controllers[ced], "ann") || len(controllers) != 2 {
		t.Errorf("the party's controllers: %v", controllers)
	}
	var sceneHidden bool
	eval(t, ctx, `document.getElementById("scene").hidden`, &sceneHidden)
	if !sceneHidden {
		t.Error("the scene images show on a server that draws none")
	}

	// The GM gives Brienne a model; the autopilot's next turn is hers,
	// decided by that model's server.
	run(t, ctx, "model from the sidebar",
		chromedp.WaitVisible("#member-model-"+brienne, chromedp.ByQuery),
		change("#member-model-"+brienne, "fake-b"),
		chromedp.WaitVisible(`#party li[data-character="`+brienne+`"] #member-model-`+brienne+`:not([aria-busy])`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector('#party li[data-character="`+brienne+`"] .controller').textContent.includes("openai/fake-b")`, nil),
		chromedp.Poll(`document.getElementById("member-model-`+brienne+`").value === "fake-b"`, nil))
	assertAccessible(t, ctx, "party-game-models")
	shots(t, ctx, "party-game-models")
	if model.asked("fake-b") != 0 {
		t.Fatal("the model was asked before any agent turn")
	}
	run(t, ctx, "autopilot",
		click("#autopilot-start"),
		chromedp.WaitVisible(`#log article[data-agent="`+brienne+`"]`, chromedp.ByQuery),
		click("#autopilot-stop"))
	var by string
	run(t, ctx, "the turn's byline", chromedp.Text(`#log article[data-agent="`+brienne+`"] .byline`, &by, chromedp.ByQuery))
	if model.asked("fake-b") == 0 {
		t.Errorf("Brienne's turn (%q) was not decided by fake-b's server", by)
	}
	if !strings.Contains(by, "openai/fake-b") {
		t.Errorf("Brienne's turn is headed %q, want it played by openai/fake-b", by)
	}
}

// TestSceneImageButton: with an image provider, the game view has the GM
// generate the current scene: progress while it draws, then the image,
// its alt text the prompt (an attribute, never markup); a provider's
// refusal shows in the page. A player sees the images, not the button.
func TestSceneImageButton(t *testing.T) {
	draw := imagegentest.OpenAI(t)
	var annKey string
	h := serveEnv(t, func(data string) { annKey = addUser(t, data, "ann", "player") },
		"HEARTH__IMAGES__PROVIDER=openai", "HEARTH__IMAGES__BASE_URL="+draw.Base, "HEARTH__IMAGES__API_KEY="+imagegentest.Key)
	var game struct{ ID string }
	if code := apiStatus(t, h, h.key, "POST", "/api/sessions", `{"campaign":"saltmere","title":"Pictures"}`, &game); code != http.StatusCreated {
		t.Fatalf("create the game: %d", code)
	}
	ctx := browse(t)
	signIn(t, ctx, h)
	run(t, ctx, "open and play a turn",
		chromedp.Navigate(h.url+"/#/game/"+game.ID),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#scene-generate", chromedp.ByQuery),
		chromedp.WaitVisible("#no-images", chromedp.ByQuery),
		sendAction("look around"),
		chromedp.WaitVisible(`#status[data-turn="1"]`, chromedp.ByQuery))
	run(t, ctx, "generate",
		click("#scene-generate"),
		chromedp.WaitVisible(`#scene-status[data-state="done"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#scene-images figure[data-turn="1"] img`, chromedp.ByQuery))
	prompts := draw.Prompts()
	if len(prompts) != 1 {
		t.Fatalf("the provider was asked %d times", len(prompts))
	}
	var img struct {
		Alt      string
		Loaded   bool
		Children int
	}
	run(t, ctx, "the image loads", chromedp.Poll(`document.querySelector("#scene-images img").complete && document.querySelector("#scene-images img").naturalWidth > 0`, nil))
	eval(t, ctx, `(() => { const i = document.querySelector("#scene-images img"); return {alt: i.getAttribute("alt"), loaded: i.naturalWidth > 0, children: i.childElementCount}; })()`, &img)
	if img.Alt != prompts[0] || !img.Loaded || img.Children != 0 {
		t.Errorf("the image: alt %q (prompt %q), loaded %v", img.Alt, prompts[0], img.Loaded)
	}
	var progressHidden, enabled bool
	eval(t, ctx, `document.getElementById("scene-progress").hidden`, &progressHidden)
	eval(t, ctx, `!document.getElementById("scene-generate").disabled`, &enabled)
	if !progressHidden || !enabled {
		t.Errorf("after drawing: progress hidden %v, button enabled %v", progressHidden, enabled)
	}
	assertAccessible(t, ctx, "scene-image")
	shots(t, ctx, "scene-image")

	// The provider refuses: the page says why and the button works again.
	draw.ReplyWith(http.StatusBadRequest, `{"error":{"message":"Your request was rejected by the safety system.","type":"invalid_request_error","code":"moderation_blocked"}}`)
	var failed string
	run(t, ctx, "a refusal",
		click("#scene-generate"),
		chromedp.WaitVisible(`#scene-status[data-state="failed"]`, chromedp.ByQuery),
		chromedp.Text("#scene-status", &failed, chromedp.ByQuery),
		chromedp.WaitVisible(`#scene-generate:not([disabled])`, chromedp.ByQuery))
	if !strings.HasPrefix(failed, "No image:") || len(failed) < 12 {
		t.Errorf("the refusal reads %q", failed)
	}

	// ann, a player, sees the image and no button.
	pl := browse(t)
	signIn(t, pl, hearth{url: h.url, key: annKey})
	run(t, pl, "ann's view",
		chromedp.Navigate(h.url+"/#/game/"+game.ID),
		chromedp.WaitVisible(`#scene-images figure[data-turn="1"] img`, chromedp.ByQuery))
	var button int
	eval(t, pl, `document.querySelectorAll("#scene-generate").length`, &button)
	if button != 0 {
		t.Error("a player has the generate button")
	}
}
