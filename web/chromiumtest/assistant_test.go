package chromiumtest

import (
	"encoding/json"
	"fmt"
	"io"
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
)

// fakeModel speaks the OpenAI Chat Completions streaming format. Asked
// a question, it calls document_search; given the passages, dice_roll;
// given the roll, it answers in Markdown with a citation of the document
// the search found and hostile text.
type fakeModel struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests int
	search   string // the document_search result it was given
	dice     string // the dice_roll result it was given
	tools    []string
}

// toolResult is one tool message of a request.
type toolMessage struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
}

func newFakeModel(t *testing.T) *fakeModel {
	m := &fakeModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []toolMessage `json:"messages"`
			Tools    []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&body) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		// The tool results since the question, by call.
		results := map[string]string{}
		for _, msg := range body.Messages {
			switch msg.Role {
			case "user":
				results = map[string]string{}
			case "tool":
				results[msg.ToolCallID] = msg.Content
			}
		}
		m.mu.Lock()
		m.requests++
		m.tools = m.tools[:0]
		for _, tl := range body.Tools {
			m.tools = append(m.tools, tl.Function.Name)
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
		switch {
		case results["call_search"] == "":
			call("call_search", "document_search", `{"query":"lantern oil"}`)
		case results["call_dice"] == "":
			m.mu.Lock()
			m.search = results["call_search"]
			m.mu.Unlock()
			call("call_dice", "dice_roll", `{"formula":"2d6+1","label":"Perception"}`)
		default:
			m.mu.Lock()
			m.dice = results["call_dice"]
			m.mu.Unlock()
			doc := "unknown"
			if mm := regexp.MustCompile(`document_id ([A-Za-z0-9_.~-]+)`).FindStringSubmatch(results["call_search"]); mm != nil {
				doc = mm[1]
			}
			// The answer comes in pieces, as a model streams it.
			answer := "## Lantern oil\n\nThe keeper trims the **wick** at dusk ([the Lantern book, p. 1](#/library/" + doc + "/pages/1)).\n\n" +
				"- " + payloads[0] + "\n- " + payloads[1] + "\n- " + payloads[2] + "\n\nYou rolled well."
			for len(answer) > 0 {
				n := min(17, len(answer))
				chunk(map[string]any{"role": "assistant", "content": answer[:n]}, "")
				answer = answer[n:]
			}
			chunk(map[string]any{}, "stop")
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *fakeModel) seen() (requests int, search, dice string, tools []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests, m.search, m.dice, append([]string(nil), m.tools...)
}

// serveAssistant serves Hearth with the fake model as the assistant's
// and a one-page book, The Lantern, ingested; env adds to the server's
// environment.
func serveAssistant(t *testing.T, model *fakeModel, env ...string) hearth {
	t.Helper()
	return serveEnv(t, func(data string) {
		book := filepath.Join(t.TempDir(), "lantern.md")
		if err := os.WriteFile(book, []byte("# The Lantern\n\nThe lantern keeper trims the wick at dusk and buys lantern oil from the chandler.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bin, "ingest", book, "--title", "The Lantern", "--data", data).CombinedOutput(); err != nil {
			t.Fatalf("hearth ingest: %v\n%s", err, out)
		}
	}, append([]string{"HEARTH__MODELS__ASSISTANT__PROVIDER=openai", "HEARTH__MODELS__ASSISTANT__MODEL=fake",
		"HEARTH__MODELS__ASSISTANT__BASE_URL=" + model.srv.URL + "/v1", "HEARTH__MODELS__ASSISTANT__API_KEY=test"}, env...)...)
}

// TestAssistantChat: the assistant against a model server speaking the
// OpenAI wire format. The model searches the library (an internal tool),
// has the browser roll dice (an external tool), the server pauses after
// those two calls and Continue lets it answer; the answer streams in as
// Markdown whose hostile parts stay text and whose citation opens the page
// viewer's route.
func TestAssistantChat(t *testing.T) {
	model := newFakeModel(t)
	h := serveAssistant(t, model, "HEARTH__ASSISTANT__TOOL_CALL_PAUSE_THRESHOLD=2")
	ctx := browse(t)
	var dialogs atomic.Int32
	chromedp.ListenTarget(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dialogs.Add(1)
			go chromedp.Run(ctx, page.HandleJavaScriptDialog(false))
		}
	})
	signIn(t, ctx, h)
	run(t, ctx, "open the assistant",
		click("#nav-assistant"),
		chromedp.WaitVisible("#chat-form", chromedp.ByQuery),
		chromedp.WaitVisible("#no-convs", chromedp.ByQuery))
	shots(t, ctx, "assistant-empty")
	assertAccessible(t, ctx, "assistant (empty)")

	run(t, ctx, "ask",
		chromedp.SendKeys("#question", "Where does the keeper get lantern oil? Roll Perception for me.", chromedp.ByQuery),
		click("#ask"),
		chromedp.WaitVisible("#continue", chromedp.ByQuery))
	var lines struct {
		Status   []string `json:"status"`
		Done     []string `json:"done"`
		Roll     string   `json:"roll"`
		RollText string   `json:"rolltext"`
	}
	eval(t, ctx, `({status: Array.from(document.querySelectorAll("[data-tool-status]")).map((e) => e.textContent),
		done: Array.from(document.querySelectorAll("[data-tool-done]")).map((e) => e.dataset.toolDone),
		roll: (document.querySelector("[data-roll]") || {dataset: {}}).dataset.roll || "",
		rolltext: (document.querySelector("[data-roll]") || {}).textContent || ""})`, &lines)
	if len(lines.Status) == 0 || len(lines.Done) == 0 || lines.Done[0] != "document_search" {
		t.Errorf("tool lines: %+v", lines)
	}
	if lines.Roll == "" || !strings.Contains(lines.RollText, "2d6+1") || !strings.Contains(lines.RollText, "Perception") {
		t.Errorf("the roll is not shown: %+v", lines)
	}
	// Paused after two tool calls: the model has not been asked again yet.
	if n, _, _, tools := model.seen(); n != 2 || strings.Join(tools, ",") != "document_search,document_get,dice_roll" {
		t.Errorf("before Continue the model was asked %d times, offered %v", n, tools)
	}
	shots(t, ctx, "assistant-paused")

	run(t, ctx, "continue",
		click("#continue"),
		chromedp.WaitVisible("#chat-log article[data-done] a.cite", chromedp.ByQuery),
		chromedp.WaitNotPresent("#chat-log [data-streaming]", chromedp.ByQuery))
	var after struct {
		Status      string `json:"status"`
		PauseHidden bool   `json:"pauseHidden"`
		Order       string `json:"order"`
	}
	eval(t, ctx, `({status: document.getElementById("chat-status").textContent, pauseHidden: document.getElementById("pause").hidden &&
		getComputedStyle(document.getElementById("pause")).display === "none",
		order: Array.from(document.querySelector("#chat-log article[data-done]").children).map((e) => e.className).join(",")})`, &after)
	if after.Status != "" || !after.PauseHidden || after.Order != "steps,narration answer" {
		t.Errorf("after the answer: %+v (want no status, the pause box gone, tool lines above the answer)", after)
	}
	n, search, dice, _ := model.seen()
	if n != 3 {
		t.Errorf("the model was asked %d times, want 3", n)
	}
	if !strings.Contains(search, "lantern oil") {
		t.Errorf("the search result the model saw: %q", search)
	}
	var roll struct {
		Formula string `json:"formula"`
		Rolls   []int  `json:"rolls"`
		Total   int    `json:"total"`
		Label   string `json:"label"`
	}
	if err := json.Unmarshal([]byte(dice), &roll); err != nil || roll.Formula != "2d6+1" || len(roll.Rolls) != 2 || roll.Label != "Perception" ||
		roll.Total != roll.Rolls[0]+roll.Rolls[1]+1 || fmt.Sprint(roll.Total) != lines.Roll {
		t.Errorf("the dice result the model saw: %q (%v), the page showed %q", dice, err, lines.Roll)
	}
	for _, r := range roll.Rolls {
		if r < 1 || r > 6 {
			t.Errorf("a d6 rolled %d", r)
		}
	}

	var answer struct {
		Text  string   `json:"text"`
		Tags  []string `json:"tags"`
		Cite  string   `json:"cite"`
		Links []string `json:"links"`
	}
	eval(t, ctx, `(() => {
		const a = document.querySelector("#chat-log article[data-done] .answer");
		return {text: a.textContent, tags: Array.from(a.querySelectorAll("*")).map((e) => e.tagName.toLowerCase()),
			cite: a.querySelector("a.cite").getAttribute("href"), links: Array.from(a.querySelectorAll("a")).map((e) => e.getAttribute("href"))};
	})()`, &answer)
	for _, want := range append([]string{"Lantern oil", "wick", "You rolled well."}, payloads...) {
		if !strings.Contains(answer.Text, want) {
			t.Errorf("the answer lacks %q: %q", want, answer.Text)
		}
	}
	// "##" is an h4: the answer's headings sit under the page's h1 and h2.
	for _, want := range []string{"h4", "strong", "ul", "li", "a"} {
		if !strings.Contains(" "+strings.Join(answer.Tags, " ")+" ", " "+want+" ") {
			t.Errorf("the answer has no <%s>: %v", want, answer.Tags)
		}
	}
	if !regexp.MustCompile(`^#/library/[A-Za-z0-9_.~-]+/pages/1$`).MatchString(answer.Cite) || strings.Contains(answer.Cite, "unknown") {
		t.Errorf("citation link %q", answer.Cite)
	}
	if len(answer.Links) != 1 {
		t.Errorf("links in the answer: %v (only the citation may be one)", answer.Links)
	}
	inert(t, ctx, "assistant", []string{"#chat-log"})
	shots(t, ctx, "assistant-answer")
	assertAccessible(t, ctx, "assistant")

	// The conversation is listed and reopens with the answer.
	var hash string
	eval(t, ctx, `location.hash`, &hash)
	if !strings.HasPrefix(hash, "#/assistant/conv_") {
		t.Errorf("the address after the answer: %q", hash)
	}
	run(t, ctx, "listed", chromedp.WaitVisible(`#conversations li[data-conversation] a[aria-current]`, chromedp.ByQuery))

	// The citation opens the page viewer's route.
	run(t, ctx, "citation", click("#chat-log a.cite"))
	eval(t, ctx, `location.hash`, &hash)
	if hash != answer.Cite {
		t.Errorf("the citation opened %q, want %q", hash, answer.Cite)
	}
	if dialogs.Load() != 0 {
		t.Errorf("%d JavaScript dialogs opened", dialogs.Load())
	}
}
