package chromiumtest

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPortraitOfWhoIsMet plays a campaign with art through the skills
// pipeline as a player: after the first turn the portrait skill has put
// Nell's portrait (she is on the quay, where the game starts) into the
// game's state, and the game view shows it beside her with alt text;
// Maren (in the tavern, not met) and Rook (in a hidden cave) have art too,
// and neither their portraits nor their names reach the player's page.
func TestPortraitOfWhoIsMet(t *testing.T) {
	var playerKey string
	h := serve(t, func(data string) {
		camp := filepath.Join(data, "campaigns", "portraits")
		if err := os.CopyFS(camp, os.DirFS("../../campaigns/saltmere")); err != nil {
			t.Fatal(err)
		}
		yml := filepath.Join(camp, "campaign.yml")
		cy, err := os.ReadFile(yml)
		if err != nil {
			t.Fatal(err)
		}
		cy = regexp.MustCompile(`(?m)^pipeline:.*$`).ReplaceAll(cy, nil)
		if err := os.WriteFile(yml, append(cy, []byte("\npipeline: skills\n")...), 0o644); err != nil {
			t.Fatal(err)
		}
		for i, who := range []string{"nell", "maren", "rook"} {
			img := image.NewRGBA(image.Rect(0, 0, 8, 8))
			for p := range img.Pix {
				img.Pix[p] = uint8(60 * (i + 1))
			}
			img.Set(3, 3, color.White)
			var b bytes.Buffer
			if err := png.Encode(&b, img); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(camp, "art", "characters")
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(filepath.Join(dir, who+".png"), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, who+".png.keywords.txt"), []byte(who+"\nportrait\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, err := exec.Command(bin, "user", "add", "ann", "--role", "player", "--data", data).CombinedOutput()
		if err != nil {
			t.Fatalf("hearth user add ann: %v\n%s", err, out)
		}
		playerKey = regexp.MustCompile(`hth_[A-Za-z0-9_]+`).FindString(string(out))
	})
	var created struct {
		ID string `json:"id"`
	}
	if st := apiStatus(t, h, h.key, "POST", "/api/sessions", `{"campaign":"portraits","title":"Faces on the quay"}`, &created); st != http.StatusCreated || created.ID == "" {
		t.Fatalf("create the game: %d %+v", st, created)
	}
	ctx := browse(t)
	signIn(t, ctx, hearth{url: h.url, key: playerKey})
	run(t, ctx, "play a turn",
		chromedp.WaitVisible(`#games [data-resume]`, chromedp.ByQuery),
		click(`#games [data-resume]`),
		chromedp.WaitVisible(`#conn[data-state="open"]`, chromedp.ByQuery),
		sendAction("look around"),
		chromedp.WaitVisible(`#log[data-turn="1"] article[data-turn="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#here li[data-character="nell"] img.portrait`, chromedp.ByQuery))

	// The skills pipeline's turn put it into the game's state.
	var turns json.RawMessage
	if st := apiStatus(t, h, h.key, "GET", "/api/sessions/"+created.ID+"/turns", "", &turns); st != http.StatusOK {
		t.Fatalf("turns: %d %s", st, turns)
	}
	want := "/api/campaigns/portraits/assets/art/characters/nell.png"
	if !strings.Contains(string(turns), `"portraits":{"nell":"`+want+`"}`) {
		t.Errorf("the turn's state patch has no portrait of Nell: %s", turns)
	}

	var shown []struct {
		Who, Src, Alt string
		Loaded        bool
	}
	eval(t, ctx, `Array.from(document.querySelectorAll("img.portrait")).map((i) => ({Who: i.closest("li").dataset.character,
		Src: i.getAttribute("src"), Alt: i.alt, Loaded: i.complete && i.naturalWidth === 8}))`, &shown)
	if len(shown) != 1 || shown[0].Who != "nell" || shown[0].Src != want || shown[0].Alt != "Portrait of Nell Pike" {
		t.Fatalf("portraits shown: %+v", shown)
	}
	// The image is served (under the page's CSP) and decodes.
	run(t, ctx, "portrait loads", chromedp.Poll(`document.querySelector("img.portrait").complete && document.querySelector("img.portrait").naturalWidth === 8`, nil))
	var page string
	eval(t, ctx, `document.documentElement.outerHTML`, &page)
	for _, hidden := range []string{"maren.png", "rook.png", "Maren", "Rook"} {
		if strings.Contains(page, hidden) {
			t.Errorf("the player's page names %s", hidden)
		}
	}
	// Rendered inert: no inline style, no handler attributes.
	var loose int
	eval(t, ctx, `Array.from(document.querySelectorAll("#here *")).filter((e) => e.hasAttribute("style") ||
		Array.from(e.attributes).some((a) => a.name.startsWith("on"))).length`, &loose)
	if loose != 0 {
		t.Errorf("%d elements of the Here list have inline styles or handlers", loose)
	}
	shots(t, ctx, "portrait")
}
