package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
)

// writePartyCampaign copies the bundled campaign into DATA/campaigns/party
// with a party of four in place of its one player: Kestrel and three
// companions written here.
func writePartyCampaign(t *testing.T, dir string) {
	t.Helper()
	dst := filepath.Join(dir, "campaigns", "party")
	err := filepath.WalkDir(saltmere, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(saltmere, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "campaign.yml" {
			if !bytes.Contains(b, []byte("\nplayer: kestrel\n")) {
				t.Fatal("the bundled campaign no longer names player: kestrel")
			}
			b = bytes.Replace(b, []byte("\nplayer: kestrel\n"), []byte("\nparty: [kestrel, bram, oona, pim]\n"), 1)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for id, sheet := range map[string]string{
		"bram": "class: cleric\nhit_points: 16\narmor_class: 16\ninventory: {healing_potion: 1}\npersonality_traits: [Slow to anger.]",
		"oona": "class: wizard\nhit_points: 10\narmor_class: 12\npersonality_traits: [Asks one question too many.]",
		"pim":  "class: rogue\nhit_points: 13\narmor_class: 14\ninventory: {short_sword: 1}\nequipped: [short_sword]\npersonality_traits: [Pockets things.]",
	} {
		text := "---\nentity_type: player_character\nentity_id: " + id + "\nname: " + strings.ToUpper(id[:1]) + id[1:] +
			"\nrace: human\nlevel: 2\nproficiency_bonus: 2\n" +
			"abilities: {strength: 12, dexterity: 14, constitution: 12, intelligence: 12, wisdom: 12, charisma: 10}\n" +
			sheet + "\n---\nA companion of Kestrel's.\n"
		if err := os.WriteFile(filepath.Join(dst, "character_"+id+".md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// servedParty is what one `hearth serve` made of a party game.
type servedParty struct {
	turns []struct {
		Number     int             `json:"number"`
		Agent      string          `json:"agent"`
		Controller string          `json:"controller"`
		Input      string          `json:"input"`
		Intents    json.RawMessage `json:"intents"`
	}
	transcript string          // markdown, its session id replaced by "SESSION"
	world      json.RawMessage // the GM's view of the world at turn n
}

// serveParty runs `hearth serve` with no model over a fresh data
// directory, creates the party game with seed over REST as the GM, lets
// the autopilot play it over the WebSocket at fast speed until n turns are
// committed, stops it, and reads the game back at turn n.
func serveParty(t *testing.T, seed uint64, n int) servedParty {
	t.Helper()
	dir := t.TempDir()
	writePartyCampaign(t, dir)
	key := regexp.MustCompile(`hth_[a-z0-9_]+`).FindString(run(t, nil, "user", "add", "gm", "--role", "gm", "--data", dir))
	if key == "" {
		t.Fatal("no GM key printed")
	}
	url := hearthtest.Server{Bin: hearthBin, Data: dir}.Start(t)
	client := &http.Client{Transport: hearthtest.Bearer{Key: key}, Timeout: 2 * time.Minute}
	call := func(method, path, body string, want int) []byte {
		t.Helper()
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d: %.400s", method, path, resp.StatusCode, want, b)
		}
		return b
	}
	var in struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(call("POST", "/api/sessions", `{"campaign":"party","seed":`+jsonNumber(seed)+`}`, http.StatusCreated), &in); err != nil || in.ID == "" {
		t.Fatalf("create: %v %q", err, in.ID)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dial := func() *websocket.Conn {
		t.Helper()
		return dialGame(t, ctx, url, key, in.ID)
	}
	type frame struct {
		Type      string          `json:"type"`
		Turn      int             `json:"turn"`
		Committed bool            `json:"committed"`
		Reason    string          `json:"reason"`
		Message   string          `json:"message"`
		State     json.RawMessage `json:"state"`
	}
	read := func(c *websocket.Conn, done func(frame) bool) frame {
		t.Helper()
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("socket: %v", err)
			}
			var f frame
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatalf("frame: %v: %.200s", err, b)
			}
			if f.Type == "error" {
				t.Logf("error frame: %s", f.Message)
			}
			if done(f) {
				return f
			}
		}
	}
	send := func(c *websocket.Conn, msg string) {
		t.Helper()
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	c := dial()
	defer c.CloseNow()
	read(c, func(f frame) bool { return f.Type == "session_state" })
	send(c, `{"type":"start_autopilot","speed":"fast"}`)
	updates := 0
	read(c, func(f frame) bool {
		if f.Type == "autopilot_stopped" {
			t.Fatalf("the autopilot stopped after %d turns: %s", updates, f.Reason)
		}
		if f.Type == "turn_update" && f.Committed {
			updates++
		}
		return f.Type == "turn_update" && f.Committed && f.Turn >= n
	})
	send(c, `{"type":"stop_autopilot"}`)
	read(c, func(f frame) bool { return f.Type == "autopilot_stopped" })
	c.Close(websocket.StatusNormalClosure, "")

	// The autopilot may have played a turn past n before it stopped:
	// restore moves the game back to turn n without deleting anything.
	call("POST", "/api/sessions/"+in.ID+"/restore", `{"turn":`+jsonNumber(uint64(n))+`}`, http.StatusOK)

	var out servedParty
	var page struct {
		Turns json.RawMessage `json:"turns"`
	}
	if err := json.Unmarshal(call("GET", "/api/sessions/"+in.ID+"/turns?from=1&to=500", "", http.StatusOK), &page); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(page.Turns, &out.turns); err != nil {
		t.Fatal(err)
	}
	out.transcript = strings.ReplaceAll(string(call("GET", "/api/sessions/"+in.ID+"/transcript?format=md", "", http.StatusOK)), in.ID, "SESSION")
	c = dial()
	defer c.CloseNow()
	st := read(c, func(f frame) bool { return f.Type == "session_state" })
	var state struct {
		Turn  int             `json:"turn"`
		World json.RawMessage `json:"world"`
	}
	if err := json.Unmarshal(st.State, &state); err != nil || state.Turn != n {
		t.Fatalf("state after restoring turn %d: turn %d, %v", n, state.Turn, err)
	}
	out.world = state.World
	return out
}

func jsonNumber(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestServedPartyFiftyTurns: `hearth serve` with no model lets a party of
// four play the bundled campaign on autopilot for 50 turns to an outcome:
// every member plays, the quest is taken and advanced, the agents do more
// than one kind of thing, and a second server with the same seed writes
// the same transcript.
func TestServedPartyFiftyTurns(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 100 turns over two real servers")
	}
	const n, seed = 50, 9
	var runs [2]servedParty
	t.Run("servers", func(t *testing.T) {
		for i := range runs {
			t.Run(jsonNumber(uint64(i+1)), func(t *testing.T) {
				t.Parallel()
				runs[i] = serveParty(t, seed, n)
			})
		}
	})
	if t.Failed() {
		return
	}
	p := runs[0]
	if len(p.turns) != n {
		t.Fatalf("%d turns committed, want %d", len(p.turns), n)
	}
	agents := map[string]int{}
	kinds := map[string]bool{}
	for _, tr := range p.turns {
		t.Logf("%2d %-8s %-9s %s", tr.Number, tr.Agent, tr.Controller, tr.Input)
		agents[tr.Agent]++
		if tr.Controller != "offline" {
			t.Errorf("turn %d decided by %q, want the offline agent", tr.Number, tr.Controller)
		}
		var intents []struct {
			Type string `json:"type"`
		}
		json.Unmarshal(tr.Intents, &intents) //nolint:errcheck // no intents fail the count below
		for _, in := range intents {
			kinds[in.Type] = true
		}
	}
	for _, m := range []string{"kestrel", "bram", "oona", "pim"} {
		if agents[m] == 0 {
			t.Errorf("%s played no turn: %v", m, agents)
		}
	}
	if len(agents) != 4 {
		t.Errorf("turns by %v; want the four members only", agents)
	}
	if len(kinds) < 3 {
		t.Errorf("intent types used: %v; want at least 3", kinds)
	}
	var w struct {
		Quests map[string]struct {
			Status     string `json:"status"`
			Objectives []struct {
				Done bool `json:"done"`
			} `json:"objectives"`
		} `json:"quests"`
	}
	if err := json.Unmarshal(p.world, &w); err != nil {
		t.Fatal(err)
	}
	q, ok := w.Quests["relight_lantern"]
	done := 0
	for _, o := range q.Objectives {
		if o.Done {
			done++
		}
	}
	if !ok || q.Status == "available" || q.Status == "" || (done == 0 && q.Status != "completed") {
		t.Errorf("after %d turns the quest has not advanced: %+v", n, q)
	}
	if runs[0].transcript != runs[1].transcript {
		t.Errorf("two servers with seed %d wrote different transcripts:\n%s\n----\n%s", seed, runs[0].transcript, runs[1].transcript)
	}
	if !strings.Contains(p.transcript, "played by pim (offline)") {
		t.Errorf("the transcript does not attribute turns: %.600s", p.transcript)
	}
}
