package security

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
)

// TestScaleOutFanOutLeaksNothing runs two servers on one PostgreSQL
// database: the party game is owned by A, whose GM whispers to kit; bob
// (holding kit) and ann (holding wren) play on B, where the owner's
// events are cut per viewer. ann must never read a whisper to or from
// kit, nor a turn's GM-only outcomes, nor the GM's view — though every
// event reached her server whole.
func TestScaleOutFanOutLeaksNothing(t *testing.T) {
	env := []string{"HEARTH__DATABASE__URL=" + pgtest.URL(t), "HEARTH__LOG__LEVEL=warn",
		"HEARTH__LIMITS__RATE_LIMIT_RPM=100000", "HEARTH__LIMITS__RATE_LIMIT_BURST=100000", "HEARTH__LIMITS__API_RPM=1000000"}
	dir := t.TempDir()
	for name, text := range partyCampaign {
		p := filepath.Join(dir, "campaigns", "party", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	key := func(name, role string) string {
		cmd := exec.Command(hearthBin, "user", "add", name, "--role", role, "--data", dir)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		k := keyRE.FindString(string(out))
		if err != nil || k == "" {
			t.Fatalf("user add %s: %v\n%s", name, err, out)
		}
		return k
	}
	gm, ann, bob := key("gm", "gm"), key("ann", "player"), key("bob", "player")
	urlA := hearthtest.Server{Bin: hearthBin, Data: dir, Env: env}.Start(t)
	urlB := hearthtest.Server{Bin: hearthBin, Data: dir, Env: env}.Start(t)

	req, _ := http.NewRequest("POST", urlA+"/api/sessions", strings.NewReader(`{"campaign":"party","seed":3}`))
	req.Header.Set("Authorization", "Bearer "+gm)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var game struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&game)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || game.ID == "" {
		t.Fatalf("create the party game: %d", resp.StatusCode)
	}
	dial := func(url, key string) *wsClient {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws/game/"+game.ID,
			&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + key}}})
		if err != nil {
			t.Fatalf("socket: %v", err)
		}
		c.SetReadLimit(8 << 20)
		w := &wsClient{c: c, in: make(chan string, 4096)}
		go func() {
			defer close(w.in)
			for {
				_, b, err := c.Read(context.Background())
				if err != nil {
					return
				}
				w.in <- string(b)
			}
		}()
		t.Cleanup(func() { c.CloseNow() })
		if _, err := w.until(func(typ, _ string) bool { return typ == "session_state" }); err != nil {
			t.Fatalf("socket: %v", err)
		}
		return w
	}
	must := func(frames []string, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return frames
	}
	gmA := dial(urlA, gm) // A opens the game first: A owns it
	bobB, annB := dial(urlB, bob), dial(urlB, ann)
	for _, h := range []struct {
		w  *wsClient
		ch string
	}{{bobB, "kit"}, {annB, "wren"}} {
		// Forwarded to A; the drop-in's turn comes back through B.
		frames := must(h.w.command(`{"type":"drop_in","character":"` + h.ch + `"}`))
		if last := frames[len(frames)-1]; strings.Contains(last, `"type":"error"`) {
			t.Fatalf("drop_in %s on B: %s", h.ch, last)
		}
	}
	must(gmA.command(`{"type":"whisper","to":"kit","content":"The ` + gmWhisperMarker + ` sigil opens the crypt."}`))
	must(bobB.command(`{"type":"whisper","to":"dm","content":"Kit pockets the ` + bobWhisperMarker + ` ring."}`))
	if _, err := gmA.whisperOf(bobWhisperMarker); err != nil {
		t.Fatalf("the GM on A never read bob's whisper from B: %v", err)
	}
	if _, err := bobB.whisperOf(gmWhisperMarker); err != nil {
		t.Fatalf("bob on B never read the GM's whisper to kit: %v", err)
	}
	// A turn of ann's, played on A, and one the GM plays on A.
	must(annB.command(`{"type":"human_action","content":"I look around the hall."}`))
	must(gmA.command(`{"type":"next_turn"}`))
	annB.until(func(typ, f string) bool {
		return typ == "turn_update" && strings.Contains(f, `"committed":true`) && !strings.Contains(f, `"agent":"wren"`)
	}) //nolint:errcheck // what arrived is checked below
	time.Sleep(time.Second) // what else is on its way arrives, to be checked too
	annB.drain()

	sawTurn := false
	for _, f := range annB.frames {
		low := strings.ToLower(f)
		for _, m := range []string{gmWhisperMarker, bobWhisperMarker} {
			if strings.Contains(low, m) {
				t.Errorf("ann on B read the whisper marked %q: %.300s", m, f)
			}
		}
		var m struct {
			Type     string          `json:"type"`
			Outcomes json.RawMessage `json:"outcomes"`
			State    *struct {
				View string `json:"view"`
			} `json:"state"`
		}
		json.Unmarshal([]byte(f), &m)
		if m.Type == "turn_update" {
			sawTurn = true
			if len(m.Outcomes) > 0 {
				t.Errorf("ann on B was sent a turn's GM-only outcomes: %.300s", f)
			}
		}
		if m.State != nil && m.State.View != "player" {
			t.Errorf("ann on B was sent the %q view", m.State.View)
		}
	}
	if !sawTurn {
		t.Error("ann on B saw no turn: the fan-out reached nobody, so the check above proves nothing")
	}
}
