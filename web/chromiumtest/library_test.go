package chromiumtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
)

// testPDF is a small openly licensed PDF (83 pages, text only) from the
// shared test data beside the repository, as CI has it.
const testPDF = "../../../shared/testdata/pdf/minimal-opend6-srd.pdf"

// axeScript is axe-core as web/package-lock.json pins it, installed by
// (cd web && npm ci).
const axeScript = "../node_modules/axe-core/axe.min.js"

var (
	axeOnce   sync.Once
	axeSource string
)

// assertAccessible runs axe-core in the page as it is now and fails the
// test on any serious or critical violation, printing each. Without
// web/node_modules it says so and checks nothing.
func assertAccessible(t *testing.T, ctx context.Context, view string) {
	t.Helper()
	axeOnce.Do(func() {
		if b, err := os.ReadFile(axeScript); err == nil {
			axeSource = string(b)
		}
	})
	if axeSource == "" {
		t.Logf("skipping the axe-core check of %s: %s is absent; run (cd web && npm ci)", view, axeScript)
		return
	}
	// DevTools evaluation is not held to the page's CSP, so axe needs no
	// inline-script exception.
	var loaded bool
	run(t, ctx, "inject axe-core", chromedp.Evaluate(axeSource+";\ntypeof axe === 'object'", &loaded))
	if !loaded {
		t.Fatal("axe-core did not load")
	}
	type violation struct {
		ID     string   `json:"id"`
		Impact string   `json:"impact"`
		Help   string   `json:"help"`
		Nodes  []string `json:"nodes"`
	}
	var vs []violation
	eval(t, ctx, `axe.run(document, {resultTypes: ["violations"]}).then((r) => r.violations
		.filter((v) => v.impact === "serious" || v.impact === "critical")
		.map((v) => ({id: v.id, impact: v.impact, help: v.help,
			nodes: v.nodes.map((n) => n.target.join(" ") + ": " + (n.failureSummary || "").replace(/\s+/g, " "))})))`, &vs)
	for _, v := range vs {
		t.Errorf("axe-core, %s: %s %s (%s)\n\t%s", view, v.Impact, v.ID, v.Help, strings.Join(v.Nodes, "\n\t"))
	}
}

// addUser makes a user with the binary and returns its key.
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

// apiStatus calls the API with key and decodes the answer into out (may
// be nil); it returns the status.
func apiStatus(t *testing.T, h hearth, key, method, path, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, h.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Transport: hearthtest.Bearer{Key: key}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if out != nil {
		json.NewDecoder(res.Body).Decode(out)
	}
	return res.StatusCode
}

// noDialogs counts JavaScript dialogs, dismissing each.
func noDialogs(ctx context.Context) *atomic.Int32 {
	var n atomic.Int32
	chromedp.ListenTarget(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			n.Add(1)
			go chromedp.Run(ctx, page.HandleJavaScriptDialog(false))
		}
	})
	return &n
}

func TestLibraryUploadSearchPageEdit(t *testing.T) {
	pdf, err := filepath.Abs(testPDF)
	if err == nil {
		_, err = os.Stat(pdf)
	}
	if err != nil {
		t.Skipf("the test PDF is not here (%v); it lives in ../shared/testdata beside the repository", err)
	}
	h := serveEnv(t, nil)
	playerKey := addUser(t, h.data, "pia", "player")
	ctx := browse(t)
	dialogs := noDialogs(ctx)
	run(t, ctx, "open", chromedp.Navigate(h.url+"/"), chromedp.WaitVisible("#key", chromedp.ByQuery))
	assertAccessible(t, ctx, "sign-in")
	signIn(t, ctx, h)
	run(t, ctx, "games", chromedp.WaitVisible("#new-game", chromedp.ByQuery))
	assertAccessible(t, ctx, "games list")

	// The game view, for axe-core.
	run(t, ctx, "game",
		click(`#new-game button[type=submit]`),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery))
	assertAccessible(t, ctx, "game view")

	// Upload: every change of the status line is recorded, to see the
	// bytes go and the ingest run until it is done.
	run(t, ctx, "library",
		click("#nav-library"),
		chromedp.WaitVisible("#upload", chromedp.ByQuery),
		chromedp.WaitVisible("#no-documents", chromedp.ByQuery))
	assertAccessible(t, ctx, "library")
	shots(t, ctx, "library-empty")
	eval(t, ctx, `(() => {
		window.seen = [];
		const s = document.getElementById("upload-status");
		new MutationObserver(() => window.seen.push({status: s.dataset.status || "", stage: s.dataset.stage || "", text: s.textContent}))
			.observe(s, {attributes: true, childList: true, characterData: true, subtree: true});
		return true;
	})()`, nil)
	run(t, ctx, "upload",
		chromedp.SetUploadFiles("#upload-file", []string{pdf}, chromedp.ByQuery),
		chromedp.SendKeys("#upload-tags", "opend6, rules", chromedp.ByQuery),
		click("#upload-go"),
		chromedp.WaitVisible(`#upload-status[data-status="done"], #upload-status[data-status="failed"]`, chromedp.ByQuery))
	var seen []struct{ Status, Stage, Text string }
	eval(t, ctx, `window.seen`, &seen)
	t.Logf("upload progress as shown: %+v", seen)
	statuses := map[string]bool{}
	for _, s := range seen {
		statuses[s.Status] = true
	}
	last := seen[len(seen)-1]
	if last.Status != "done" || !statuses["sending"] {
		t.Fatalf("the upload did not go from sending to done: %+v", seen)
	}
	// Every poll before the last showed the job's state in words, and a
	// running job its stage, or, taken but before its first stage, that
	// it is starting (not that it waits).
	for _, s := range seen {
		if (s.Status == "running" && s.Stage == "" && !strings.Contains(s.Text, "Starting")) || strings.TrimSpace(s.Text) == "" {
			t.Errorf("a progress line without its stage or words: %+v", s)
		}
	}
	run(t, ctx, "listed", chromedp.WaitVisible(`#documents tbody tr[data-document]`, chromedp.ByQuery))
	var doc string
	run(t, ctx, "document id", chromedp.AttributeValue(`#documents tbody tr[data-document]`, "data-document", &doc, nil, chromedp.ByQuery))
	shots(t, ctx, "library")

	// A sentence from the book, as the API reads its third page.
	var pg struct{ Text string }
	if code := apiStatus(t, h, h.key, "GET", "/api/documents/"+doc+"/pages/3", "", &pg); code != 200 {
		t.Fatalf("page 3 of %s: %d", doc, code)
	}
	phrase := sentence(pg.Text)
	if phrase == "" {
		t.Fatalf("no sentence on page 3: %q", pg.Text)
	}
	run(t, ctx, "search",
		chromedp.SendKeys("#search-q", phrase, chromedp.ByQuery),
		click("#search-go"),
		chromedp.WaitVisible(`#search-results .hit`, chromedp.ByQuery))
	var hits []struct{ Text, Reasons, Href string }
	eval(t, ctx, `Array.from(document.querySelectorAll("#search-results > section > ol > .hit")).map((li) => ({
		text: li.querySelector(".text").textContent, reasons: li.querySelector(".reasons").textContent,
		href: (li.querySelector("a[data-page-link]") || {}).hash || ""}))`, &hits)
	found := -1
	for i, x := range hits {
		if strings.Contains(norm(x.Text), norm(phrase)) {
			found = i
			break
		}
	}
	if found < 0 {
		t.Fatalf("the search for %q found it nowhere in %+v", phrase, hits)
	}
	if !strings.Contains(hits[found].Reasons, "full text #") {
		t.Errorf("the hit shows no reasons: %q", hits[found].Reasons)
	}
	if !regexp.MustCompile(`^#/library/` + regexp.QuoteMeta(doc) + `/pages/[0-9]+$`).MatchString(hits[found].Href) {
		t.Errorf("the hit links to %q", hits[found].Href)
	}
	shots(t, ctx, "search")

	// The page viewer, from the hit, then the next page.
	run(t, ctx, "page viewer",
		click(fmt.Sprintf(`#search-results > section > ol > .hit:nth-child(%d) a[data-page-link]`, found+1)),
		chromedp.WaitVisible(`#page-h[data-page]`, chromedp.ByQuery))
	var hash, text, pageNo string
	eval(t, ctx, `location.hash`, &hash)
	run(t, ctx, "page text", chromedp.Text("#page-text", &text, chromedp.ByQuery),
		chromedp.AttributeValue("#page-h", "data-page", &pageNo, nil, chromedp.ByQuery))
	if hash != hits[found].Href || !strings.Contains(norm(text), norm(phrase)) {
		t.Errorf("page viewer at %s shows %.200q, want %q", hash, text, phrase)
	}
	assertAccessible(t, ctx, "page viewer")
	shots(t, ctx, "page")
	var next string
	run(t, ctx, "next page", click("#page-next"),
		chromedp.WaitVisible(`#page-h:not([data-page="`+pageNo+`"])`, chromedp.ByQuery),
		chromedp.AttributeValue("#page-h", "data-page", &next, nil, chromedp.ByQuery))
	if next != fmt.Sprint(atoi(pageNo)+1) {
		t.Errorf("after page %s the next is %s", pageNo, next)
	}
	run(t, ctx, "previous page", click("#page-prev"),
		chromedp.WaitVisible(`#page-h[data-page="`+pageNo+`"]`, chromedp.ByQuery))

	// Edit the title to hostile text: it is saved, and shown as text.
	evil := strings.Join(payloads, " ")
	run(t, ctx, "edit",
		click("#back-library"),
		chromedp.WaitVisible(`#documents [data-edit]`, chromedp.ByQuery),
		click(`#documents [data-edit]`),
		chromedp.WaitVisible("#edit-title", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("edit-title").value = ""; document.getElementById("edit-access").value = "trusted"`, nil),
		chromedp.SendKeys("#edit-title", evil, chromedp.ByQuery))
	var level string
	eval(t, ctx, `document.getElementById("edit-access").value`, &level)
	if level != "trusted" {
		t.Fatalf("the access field holds %q", level)
	}
	assertAccessible(t, ctx, "library edit form")
	shots(t, ctx, "library-edit")
	run(t, ctx, "save", click("#edit-save"),
		chromedp.WaitVisible(`#documents tbody th.doc-title`, chromedp.ByQuery),
		chromedp.WaitNotPresent("#edit-form", chromedp.ByQuery))
	var d struct {
		Title  string
		Access string `json:"access_level"`
		Tags   []string
	}
	apiStatus(t, h, h.key, "GET", "/api/documents/"+doc, "", &d)
	if d.Title != evil || d.Access != "trusted" || strings.Join(d.Tags, ",") != "opend6,rules" {
		t.Errorf("after the edit the document is %+v", d)
	}
	inert(t, ctx, "library", []string{`#documents tbody th.doc-title`})
	var shownLevel string
	run(t, ctx, "access shown", chromedp.Text(`#documents tbody td:nth-of-type(3)`, &shownLevel, chromedp.ByQuery))
	if shownLevel != "Trusted players" {
		t.Errorf("the list shows the access level as %q", shownLevel)
	}
	shots(t, ctx, "library-hostile")
	run(t, ctx, "page with hostile title", click(`#documents [data-open]`), chromedp.WaitVisible(`#page-h[data-page="1"]`, chromedp.ByQuery))
	var h1 string
	run(t, ctx, "page title", chromedp.Text("#page-h", &h1, chromedp.ByQuery))
	if h1 != evil {
		t.Errorf("page viewer title %q", h1)
	}

	// A player: the book is now for trusted readers, so the player's
	// library has none, and no upload, edit or delete.
	run(t, ctx, "sign out", click("#signout"), chromedp.WaitVisible("#key", chromedp.ByQuery))
	signIn(t, ctx, hearth{url: h.url, key: playerKey})
	run(t, ctx, "player library", click("#nav-library"), chromedp.WaitVisible("#no-documents", chromedp.ByQuery))
	var offered bool
	eval(t, ctx, `!!document.querySelector("#upload, [data-edit], [data-delete], #nav-settings")`, &offered)
	if offered {
		t.Error("the player's library offers upload, edit, delete or settings")
	}
	assertAccessible(t, ctx, "library as a player")
	run(t, ctx, "player page", chromedp.Evaluate(`location.hash = "#/library/`+doc+`/pages/1"`, nil), chromedp.WaitVisible("#page-missing", chromedp.ByQuery))
	var body string
	eval(t, ctx, `document.body.textContent`, &body)
	if strings.Contains(body, norm(phrase)) || strings.Contains(body, "alert(1)") {
		t.Errorf("the player's page viewer shows the trusted book: %.300s", body)
	}

	// Delete, as the GM, after a question.
	run(t, ctx, "sign out player", click("#signout"), chromedp.WaitVisible("#key", chromedp.ByQuery))
	signIn(t, ctx, h)
	run(t, ctx, "delete",
		click("#nav-library"),
		chromedp.WaitVisible(`#documents [data-delete]`, chromedp.ByQuery),
		click(`#documents [data-delete]`),
		chromedp.WaitVisible("#confirm-delete", chromedp.ByQuery))
	if code := apiStatus(t, h, h.key, "GET", "/api/documents/"+doc, "", nil); code != 200 {
		t.Fatalf("the document went before the delete was confirmed: %d", code)
	}
	run(t, ctx, "confirm delete", click("#confirm-delete"), chromedp.WaitVisible("#no-documents", chromedp.ByQuery))
	if code := apiStatus(t, h, h.key, "GET", "/api/documents/"+doc, "", nil); code != 404 {
		t.Errorf("after the delete the document answers %d", code)
	}
	if dialogs.Load() != 0 {
		t.Errorf("%d JavaScript dialogs opened", dialogs.Load())
	}
}

// sentence picks words from a page to search for: the first run of
// eight plain words on one line.
func sentence(text string) string {
	word := regexp.MustCompile(`^[A-Za-z]{3,}$`)
	for _, line := range strings.Split(text, "\n") {
		var run []string
		for _, w := range strings.Fields(line) {
			if word.MatchString(w) {
				run = append(run, w)
				if len(run) == 6 {
					return strings.Join(run, " ")
				}
			} else {
				run = nil
			}
		}
	}
	return ""
}

func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// fakeOpenAI speaks OpenAI's model list and streamed chat completions on
// the wire: model "good" answers ok, any other does not exist.
func fakeOpenAI(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"object":"list","data":[{"id":"good","object":"model"},{"id":"gone","object":"model"}]}`)
		case "/v1/chat/completions":
			var req struct{ Model string }
			json.NewDecoder(r.Body).Decode(&req)
			if req.Model != "good" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprintf(w, `{"error":{"message":"The model %s does not exist","type":"invalid_request_error","code":"model_not_found"}}`, req.Model)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"good","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}`+"\n\n")
			fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"good","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
			fmt.Fprint(w, "data: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSettingsKeysAndModels(t *testing.T) {
	fake := fakeOpenAI(t)
	h := serveEnv(t, nil, "HEARTH__MODELS__ASSISTANT__PROVIDER=openai", "HEARTH__MODELS__ASSISTANT__BASE_URL="+fake.URL+"/v1",
		"HEARTH__MODELS__ASSISTANT__MODEL=good", "HEARTH__MODELS__ASSISTANT__API_KEY=sk-test-not-real")
	playerKey := addUser(t, h.data, "pia", "player")
	ctx := browse(t)
	dialogs := noDialogs(ctx)
	signIn(t, ctx, h)
	run(t, ctx, "settings",
		click("#nav-settings"),
		chromedp.WaitVisible(`#model-roles tr[data-role="assistant"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#model-list tr[data-model="good"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#users section[data-user="pia"]`, chromedp.ByQuery))
	assertAccessible(t, ctx, "settings")
	shots(t, ctx, "settings")

	// Test connection: ok for the model that answers, the provider's
	// words for the one that does not.
	var ok, failed string
	run(t, ctx, "test good",
		click(`#model-list [data-test="good"]`),
		chromedp.WaitVisible(`#model-list tr[data-model="good"] .test-result[data-ok="true"]`, chromedp.ByQuery),
		chromedp.Text(`#model-list tr[data-model="good"] .test-result`, &ok, chromedp.ByQuery),
		click(`#model-list [data-test="gone"]`),
		chromedp.WaitVisible(`#model-list tr[data-model="gone"] .test-result[data-ok="false"]`, chromedp.ByQuery),
		chromedp.Text(`#model-list tr[data-model="gone"] .test-result`, &failed, chromedp.ByQuery))
	if !regexp.MustCompile(`^OK, answered in [0-9]+ ms$`).MatchString(ok) || !strings.Contains(failed, "does not exist") {
		t.Errorf("connection tests: %q, %q", ok, failed)
	}

	// A new user's key is shown once, with a copy button.
	run(t, ctx, "new user",
		chromedp.SendKeys("#new-user-name", "quinn", chromedp.ByQuery),
		chromedp.SetValue("#new-user-role", "trusted", chromedp.ByQuery),
		click("#new-user-go"),
		chromedp.WaitVisible("#new-key", chromedp.ByQuery),
		chromedp.WaitVisible("#copy-key", chromedp.ByQuery),
		chromedp.WaitVisible(`#users section[data-user="quinn"] tr[data-key]`, chromedp.ByQuery))
	var key string
	eval(t, ctx, `document.getElementById("new-key").value`, &key)
	if !strings.HasPrefix(key, "hth_") {
		t.Fatalf("shown key %q", key)
	}
	if code := apiStatus(t, h, key, "GET", "/api/documents", "", nil); code != 200 {
		t.Fatalf("the new key does not work: %d", code)
	}
	var inMarkup bool
	eval(t, ctx, `document.documentElement.outerHTML.includes(`+jsString(key)+`) || JSON.stringify(localStorage).includes(`+jsString(key[:20])+`)`, &inMarkup)
	if inMarkup {
		t.Error("the new key is in the markup or in storage")
	}
	assertAccessible(t, ctx, "settings with a new key")
	shots(t, ctx, "settings-new-key")
	run(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(`#users section[data-user="quinn"] tr[data-key]`, chromedp.ByQuery))
	var shown bool
	eval(t, ctx, `!!document.getElementById("new-key") || document.body.textContent.includes(`+jsString(key)+`)`, &shown)
	if shown {
		t.Error("the key is shown again after a reload")
	}

	// Revoke it, after a question: the API refuses it from then on.
	id := key[4:20]
	run(t, ctx, "revoke",
		click(`#users tr[data-key="`+id+`"] [data-revoke]`),
		chromedp.WaitVisible("#confirm-revoke", chromedp.ByQuery))
	if code := apiStatus(t, h, key, "GET", "/api/documents", "", nil); code != 200 {
		t.Fatalf("the key stopped working before the revocation was confirmed: %d", code)
	}
	run(t, ctx, "confirm revoke", click("#confirm-revoke"),
		chromedp.WaitVisible(`#users tr[data-key="`+id+`"][data-revoked="true"]`, chromedp.ByQuery))
	if code := apiStatus(t, h, key, "GET", "/api/documents", "", nil); code != 401 {
		t.Errorf("the revoked key is answered %d", code)
	}

	// German, for the view's own words.
	var heading string
	run(t, ctx, "deutsch",
		chromedp.SetValue("#lang", "de", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("lang").dispatchEvent(new Event("change"))`, nil),
		chromedp.WaitVisible(`html[lang="de"] #model-roles`, chromedp.ByQuery),
		chromedp.Text("#settings-h", &heading, chromedp.ByQuery))
	if heading != "Einstellungen" {
		t.Errorf("German settings heading %q", heading)
	}
	assertAccessible(t, ctx, "settings in German")
	run(t, ctx, "english", chromedp.SetValue("#lang", "en", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("lang").dispatchEvent(new Event("change"))`, nil),
		chromedp.WaitVisible(`html[lang="en"] #model-roles`, chromedp.ByQuery))

	// A player sees no settings link, and the page gets the API's 403.
	run(t, ctx, "sign out", click("#signout"), chromedp.WaitVisible("#key", chromedp.ByQuery))
	signIn(t, ctx, hearth{url: h.url, key: playerKey})
	var link bool
	eval(t, ctx, `!!document.getElementById("nav-settings")`, &link)
	if link {
		t.Error("a player is offered the settings")
	}
	var alert string
	run(t, ctx, "player settings", chromedp.Evaluate(`location.hash = "#/settings"`, nil),
		chromedp.WaitVisible(`#alert.error`, chromedp.ByQuery), chromedp.Text("#alert", &alert, chromedp.ByQuery))
	if !strings.Contains(alert, "Only game masters") {
		t.Errorf("a player's settings page says %q", alert)
	}
	var codes []int
	eval(t, ctx, `Promise.all(["/api/users", "/api/models/roles"].map((p) => fetch(p).then((r) => r.status)))`, &codes)
	if len(codes) != 2 || codes[0] != 403 || codes[1] != 403 {
		t.Errorf("a player's browser gets %v from the settings routes", codes)
	}
	var users bool
	eval(t, ctx, `!!document.querySelector("#users section, #model-roles tbody tr")`, &users)
	if users {
		t.Error("a player's settings page shows users or models")
	}
	if dialogs.Load() != 0 {
		t.Errorf("%d JavaScript dialogs opened", dialogs.Load())
	}
}
