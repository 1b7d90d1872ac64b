package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
)

// scaleEnv is two servers' shared configuration: one PostgreSQL schema,
// leases short enough that a takeover is quick to wait for yet long
// enough that a server stalled for seconds on a loaded machine keeps its
// own (a lease is renewed a third of the way through: with 4 s, a 2.7 s
// stall handed games and jobs over mid-test, and a job taken over twice
// fails the test), and a budget for the polling.
func scaleEnv(t *testing.T) []string {
	return []string{"HEARTH__DATABASE__URL=" + pgtest.URL(t),
		"HEARTH__DATABASE__LEASE_TTL=10s", "HEARTH__DATABASE__LEASE_POLL=1s",
		"HEARTH__LIMITS__RATE_LIMIT_RPM=100000", "HEARTH__LIMITS__RATE_LIMIT_BURST=1000",
		"HEARTH__LIMITS__API_RPM=100000"}
}

// frame is what the tests read of a game's WebSocket messages.
type frame struct {
	Type      string `json:"type"`
	Turn      int    `json:"turn"`
	Committed bool   `json:"committed"`
	Content   string `json:"content"`
	Reason    string `json:"reason"`
	Message   string `json:"message"`
	State     *struct {
		Turn  int `json:"turn"`
		Party []struct {
			Character string `json:"character"`
		} `json:"party"`
		Autopilot struct {
			Running bool `json:"running"`
		} `json:"autopilot"`
	} `json:"state"`
}

// watcher is a WebSocket on one server, keeping every message it reads.
type watcher struct {
	t    *testing.T
	name string
	c    *websocket.Conn
	mu   sync.Mutex
	raw  []string
	seen []frame
	when []time.Time
	gone error
	cond chan struct{}
}

func watch(t *testing.T, ctx context.Context, name, url, key, game string) *watcher {
	t.Helper()
	c := dialGame(t, ctx, url, key, game)
	w := &watcher{t: t, name: name, c: c, cond: make(chan struct{}, 1)}
	go func() {
		for {
			_, b, err := c.Read(ctx)
			w.mu.Lock()
			if err != nil {
				w.gone = err
				w.mu.Unlock()
				w.wake()
				return
			}
			var f frame
			json.Unmarshal(b, &f)
			w.raw = append(w.raw, string(b))
			w.seen = append(w.seen, f)
			w.when = append(w.when, time.Now())
			w.mu.Unlock()
			w.wake()
		}
	}()
	return w
}

func (w *watcher) wake() {
	select {
	case w.cond <- struct{}{}:
	default:
	}
}

func (w *watcher) send(msg string) {
	w.t.Helper()
	if err := w.c.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
		w.t.Fatalf("%s: send %s: %v", w.name, msg, err)
	}
}

// wait returns the first message from index from on that ok accepts, and
// its index; it fails the test after limit.
func (w *watcher) wait(from int, limit time.Duration, what string, ok func(frame) bool) (frame, int, time.Time) {
	w.t.Helper()
	deadline := time.After(limit)
	for {
		w.mu.Lock()
		for i := from; i < len(w.seen); i++ {
			if ok(w.seen[i]) {
				f, at := w.seen[i], w.when[i]
				w.mu.Unlock()
				return f, i, at
			}
		}
		from = len(w.seen)
		gone := w.gone
		w.mu.Unlock()
		if gone != nil {
			w.t.Fatalf("%s: connection ended waiting for %s: %v", w.name, what, gone)
		}
		select {
		case <-w.cond:
		case <-deadline:
			w.t.Fatalf("%s: no %s within %v", w.name, what, limit)
		}
	}
}

func (w *watcher) len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.seen)
}

func (w *watcher) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.raw, "\n")
}

func committedTurn(f frame) bool { return f.Type == "turn_update" && f.Committed }

// TestServeScaleOut runs two real `hearth serve` processes on one
// PostgreSQL schema and one data directory, behind no load balancer: a
// client on each watches one game; a turn asked for on B is played by A
// (the owner) and reaches both; a whisper to a character reaches B's GM
// but never B's player; then A is killed (SIGKILL) while its autopilot
// plays and an upload is mid-ingest, and B takes both over: the game
// plays on with no turn lost or repeated, and the upload finishes. A
// third server, C, takes the autopilot up when B is stopped with SIGTERM;
// then `hearth verify` passes.
func TestServeScaleOut(t *testing.T) {
	pdf := needFile(t, openD6PDF)
	data, err := os.ReadFile(pdf)
	if err != nil {
		t.Fatal(err)
	}
	env := scaleEnv(t)
	dir := t.TempDir()
	writePartyCampaign(t, dir)
	keyRE := regexp.MustCompile(`hth_[a-z0-9_]+`)
	gmKey := keyRE.FindString(runEnv(t, env, nil, "user", "add", "gm", "--role", "gm", "--data", dir))
	playerKey := keyRE.FindString(runEnv(t, env, nil, "user", "add", "ann", "--role", "player", "--data", dir))
	if gmKey == "" || playerKey == "" {
		t.Fatal("no keys printed")
	}
	// A holds every ingest at its classify stage, so it is mid-ingest
	// when killed; B does not.
	cmdA, urlA := hearthtest.Server{Bin: hearthBin, Data: dir, Env: append(env, servePauseEnv+"=classify")}.Launch(t)
	killed := false
	defer func() {
		if !killed {
			cmdA.Process.Kill()
			cmdA.Wait()
		}
	}()
	cmdB, urlB := hearthtest.Server{Bin: hearthBin, Data: dir, Env: env}.Launch(t)
	defer func() {
		cmdB.Process.Kill()
		cmdB.Wait()
	}()

	code, b := apiCall(t, "POST", urlA+"/api/sessions", gmKey, "application/json", strings.NewReader(`{"campaign":"party","seed":5}`))
	var game struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(b, &game); code != http.StatusCreated || game.ID == "" {
		t.Fatalf("create game: %d %s", code, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	// A's GM first: A opens the game and owns it.
	gmA := watch(t, ctx, "gm on A", urlA, gmKey, game.ID)
	st, _, _ := gmA.wait(0, time.Minute, "session_state", func(f frame) bool { return f.Type == "session_state" })
	if st.State == nil || len(st.State.Party) < 2 {
		t.Fatalf("session_state without a party: %+v", st)
	}
	member := st.State.Party[1].Character
	gmB := watch(t, ctx, "gm on B", urlB, gmKey, game.ID)
	playerB := watch(t, ctx, "player on B", urlB, playerKey, game.ID)
	gmB.wait(0, time.Minute, "session_state", func(f frame) bool { return f.Type == "session_state" })
	playerB.wait(0, time.Minute, "session_state", func(f frame) bool { return f.Type == "session_state" })

	// A turn asked for on B, played on A, seen on both.
	gmB.send(`{"type":"next_turn"}`)
	first, _, _ := gmA.wait(0, 3*time.Minute, "the turn asked for on B", committedTurn)
	gmB.wait(0, 3*time.Minute, fmt.Sprintf("turn %d", first.Turn), func(f frame) bool { return committedTurn(f) && f.Turn == first.Turn })
	playerB.wait(0, 3*time.Minute, fmt.Sprintf("turn %d", first.Turn), func(f frame) bool { return committedTurn(f) && f.Turn == first.Turn })

	// A whisper from A's GM to a party member nobody holds: B's GM reads
	// it, B's player (who holds no character) must not.
	const secret = "the cellar key is under the third flagstone"
	gmA.send(fmt.Sprintf(`{"type":"whisper","to":%q,"content":%q}`, member, secret))
	gmB.wait(0, 3*time.Minute, "the whisper", func(f frame) bool { return f.Type == "whisper" && f.Content == secret })
	whisperTurn, _, _ := gmA.wait(0, 3*time.Minute, "the whisper's turn", func(f frame) bool {
		return committedTurn(f) && f.Turn > first.Turn
	})
	playerB.wait(0, 3*time.Minute, "the whisper's turn", func(f frame) bool { return committedTurn(f) && f.Turn == whisperTurn.Turn })

	// A chat begun on A goes on on B: the conversation is the database's.
	for i, url := range []string{urlA, urlB} {
		code, b := apiCall(t, "POST", url+"/api/chat", gmKey, "application/json",
			strings.NewReader(fmt.Sprintf(`{"conversation_id":"scaleout","messages":[{"role":"user","content":"question %d: what is a saving throw?"}]}`, i+1)))
		if code != http.StatusOK || !strings.Contains(string(b), `"type":"done"`) {
			t.Fatalf("chat %d: %d %.300s", i+1, code, b)
		}
	}
	// Saved as the chat ends, just after its answer.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		code, b = apiCall(t, "GET", urlA+"/api/conversations/scaleout", gmKey, "", nil)
		if code == http.StatusOK && strings.Contains(string(b), "question 1") && strings.Contains(string(b), "question 2") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the conversation on A after a turn of it on B: %d %.300s", code, b)
		}
	}

	// An upload on A, held mid-ingest.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("metadata", `{"title":"OpenD6 Taken Over","tags":["scaleout"]}`)
	fw, _ := mw.CreateFormFile("file", "minimal-opend6-srd.pdf")
	fw.Write(data)
	mw.Close()
	code, b = apiCall(t, "POST", urlA+"/api/documents", gmKey, mw.FormDataContentType(), &body)
	var job uploadJob
	if json.Unmarshal(b, &job); code != http.StatusAccepted || job.ID == "" {
		t.Fatalf("upload: %d %s", code, b)
	}
	// B answers for the job too: its record is in the database.
	waitJob(t, urlB, gmKey, job.ID, func(j uploadJob) bool { return j.Stage == "classify" })

	// The autopilot, started from B, runs on A.
	mark := playerB.len()
	gmB.send(`{"type":"start_autopilot","speed":"fast"}`)
	_, i, _ := playerB.wait(mark, 3*time.Minute, "an autopilot turn", committedTurn)
	playerB.wait(i+1, 3*time.Minute, "a second autopilot turn", committedTurn)

	// kill -9 the owner mid-autopilot.
	mark = playerB.len()
	if err := cmdA.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killedAt := time.Now()
	cmdA.Wait()
	killed = true
	// B takes the game over and its autopilot plays on: B's clients see
	// new turns.
	_, i, at := playerB.wait(mark, 5*time.Minute, "a turn after the kill", committedTurn)
	t.Logf("takeover: the first turn after the kill reached B's player %v after it", at.Sub(killedAt).Round(10*time.Millisecond))
	playerB.wait(i+1, 3*time.Minute, "a second turn after the kill", committedTurn)
	gmB.send(`{"type":"stop_autopilot"}`)
	gmB.wait(0, 3*time.Minute, "autopilot_stopped", func(f frame) bool { return f.Type == "autopilot_stopped" && f.Reason == "user_request" })

	// The upload A was ingesting finishes on B.
	got := waitJob(t, urlB, gmKey, job.ID, func(j uploadJob) bool { return j.Status == "done" })
	if got.DocumentID == "" || got.Resumes != 1 {
		t.Errorf("the job taken over: %+v", got)
	}

	// A server stopped with SIGTERM hands its running autopilot over: C,
	// started now, plays on when B stops.
	cmdC, urlC := hearthtest.Server{Bin: hearthBin, Data: dir, Env: env}.Launch(t)
	defer func() {
		cmdC.Process.Kill()
		cmdC.Wait()
	}()
	gmC := watch(t, ctx, "gm on C", urlC, gmKey, game.ID)
	gmC.wait(0, time.Minute, "session_state", func(f frame) bool { return f.Type == "session_state" })
	gmB.send(`{"type":"start_autopilot","speed":"fast"}`)
	gmC.wait(0, 3*time.Minute, "an autopilot turn played on B", committedTurn)
	mark = gmC.len()
	if err := cmdB.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	stoppedAt := time.Now()
	if err := cmdB.Wait(); err != nil {
		t.Errorf("B did not stop cleanly: %v", err)
	}
	_, i, at = gmC.wait(mark, 3*time.Minute, "a turn on C after B stopped", committedTurn)
	t.Logf("handover: the first turn after SIGTERM reached C's GM %v after it", at.Sub(stoppedAt).Round(10*time.Millisecond))
	gmC.send(`{"type":"stop_autopilot"}`)
	gmC.wait(i, 3*time.Minute, "autopilot_stopped", func(f frame) bool { return f.Type == "autopilot_stopped" && f.Reason == "user_request" })
	urlB = urlC

	// No turn lost, none played twice: the stored turns are 1..n, and
	// every committed turn a client saw is among them.
	code, b = apiCall(t, "GET", urlB+"/api/sessions/"+game.ID+"/turns?from=1&to=500", gmKey, "", nil)
	var page struct {
		Turns []struct {
			Number int `json:"number"`
		} `json:"turns"`
	}
	if json.Unmarshal(b, &page); code != http.StatusOK || len(page.Turns) == 0 {
		t.Fatalf("turns: %d %.300s", code, b)
	}
	for i, tr := range page.Turns {
		if tr.Number != i+1 {
			t.Fatalf("stored turns are not 1..%d: turn %d at %d", len(page.Turns), tr.Number, i)
		}
	}
	for _, w := range []*watcher{gmA, gmB, playerB, gmC} {
		w.mu.Lock()
		for _, f := range w.seen {
			if committedTurn(f) && f.Turn > len(page.Turns) {
				t.Errorf("%s saw turn %d committed, but only %d are stored", w.name, f.Turn, len(page.Turns))
			}
		}
		w.mu.Unlock()
	}
	// The player on B never received the whisper, in any message.
	if strings.Contains(playerB.all(), secret) {
		t.Errorf("the player on B received the GM's whisper to %s", member)
	}
	if !strings.Contains(gmB.all(), secret) {
		t.Errorf("the GM on B never received the whisper")
	}

	cmdC.Process.Signal(os.Interrupt)
	cmdC.Wait()
	cmd := exec.Command(hearthBin, "verify", "--data", dir)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "ok") {
		t.Fatalf("hearth verify: %v\n%s", err, out)
	}
}
