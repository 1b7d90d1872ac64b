package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
)

// runEnv runs the binary as run does, with env added.
func runEnv(t *testing.T, env []string, stdin io.Reader, args ...string) string {
	t.Helper()
	cmd := exec.Command(hearthBin, args...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(append(os.Environ(), "HEARTH_DATA="+t.TempDir()), env...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("hearth %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// The real `hearth serve` on PostgreSQL (database.url from the
// environment): a key made by the CLI, a game played over the WebSocket,
// a document uploaded and searched, all still there after a restart,
// /health naming the backend, and nothing written to the data directory's
// SQLite file. Then `hearth play` starts and resumes a game there.
func TestServeOnPostgres(t *testing.T) {
	env := []string{"HEARTH__DATABASE__URL=" + pgtest.URL(t),
		"HEARTH__LIMITS__RATE_LIMIT_RPM=100000", "HEARTH__LIMITS__RATE_LIMIT_BURST=1000"}
	dir := t.TempDir()
	writePartyCampaign(t, dir)
	key := regexp.MustCompile(`hth_[a-z0-9_]+`).FindString(runEnv(t, env, nil, "user", "add", "gm", "--role", "gm", "--data", dir))
	if key == "" {
		t.Fatal("no GM key printed")
	}
	srv := hearthtest.Server{Bin: hearthBin, Data: dir, Env: env}
	cmd, url := srv.Launch(t)
	stop := func() {
		t.Helper()
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("hearth serve did not stop cleanly: %v", err)
		}
	}
	client := &http.Client{Transport: hearthtest.Bearer{Key: key}, Timeout: 2 * time.Minute}
	call := func(method, path, contentType string, body io.Reader, want int) []byte {
		t.Helper()
		req, _ := http.NewRequest(method, url+path, body)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
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
	health := func() {
		t.Helper()
		var h struct {
			Status   string `json:"status"`
			Database struct {
				Backend string `json:"backend"`
				OK      bool   `json:"ok"`
			} `json:"database"`
		}
		json.Unmarshal(call("GET", "/health", "", nil, http.StatusOK), &h)
		if h.Status != "healthy" || h.Database.Backend != "postgres" || !h.Database.OK {
			t.Fatalf("health: %+v", h)
		}
	}
	health()

	// A game, played by the autopilot until two turns are committed.
	var game struct {
		ID string `json:"id"`
	}
	json.Unmarshal(call("POST", "/api/sessions", "application/json", strings.NewReader(`{"campaign":"party","seed":5}`), http.StatusCreated), &game)
	if game.ID == "" {
		t.Fatal("no game id")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := dialGame(t, ctx, url, key, game.ID)
	read := func(done func(typ string, committed bool, turn int) bool) {
		t.Helper()
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("socket: %v", err)
			}
			var f struct {
				Type      string `json:"type"`
				Turn      int    `json:"turn"`
				Committed bool   `json:"committed"`
				Reason    string `json:"reason"`
			}
			json.Unmarshal(b, &f)
			if done(f.Type, f.Committed, f.Turn) {
				return
			}
		}
	}
	read(func(typ string, _ bool, _ int) bool { return typ == "session_state" })
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"start_autopilot","speed":"fast"}`))
	read(func(typ string, committed bool, turn int) bool { return typ == "turn_update" && committed && turn >= 2 })
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"stop_autopilot"}`))
	read(func(typ string, _ bool, _ int) bool { return typ == "autopilot_stopped" })
	c.Close(websocket.StatusNormalClosure, "")

	// A small document, uploaded and searched.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("metadata", `{"title":"Lighthouse Notes","tags":["notes"]}`)
	fw, _ := mw.CreateFormFile("file", "lighthouse.md")
	fw.Write([]byte("# Lighthouse\n\nThe keeper of the Gull Rock lighthouse trims the wicks at dusk and hides smuggled brandy in the oil store.\n"))
	mw.Close()
	var job uploadJob
	json.Unmarshal(call("POST", "/api/documents", mw.FormDataContentType(), &body, http.StatusAccepted), &job)
	done := waitJob(t, url, key, job.ID, func(j uploadJob) bool { return j.Status == "done" })
	search := func() {
		t.Helper()
		b := call("POST", "/api/search", "application/json", strings.NewReader(`{"query":"lighthouse keeper smuggled brandy"}`), http.StatusOK)
		if !strings.Contains(string(b), "Gull Rock") {
			t.Fatalf("search: %.600s", b)
		}
	}
	search()
	turns := func() int {
		t.Helper()
		var page struct {
			Turns []struct {
				Number int `json:"number"`
			} `json:"turns"`
		}
		json.Unmarshal(call("GET", "/api/sessions/"+game.ID+"/turns?from=1&to=500", "", nil, http.StatusOK), &page)
		return len(page.Turns)
	}
	played := turns()
	if played < 2 {
		t.Fatalf("%d turns stored, want at least 2", played)
	}

	// Restarted on the same database: everything is there.
	stop()
	cmd, url = srv.Launch(t)
	defer stop()
	health()
	if n := turns(); n != played {
		t.Errorf("%d turns after the restart, want %d", n, played)
	}
	search()
	if b := call("GET", "/api/documents/"+done.DocumentID, "", nil, http.StatusOK); !strings.Contains(string(b), "Lighthouse Notes") {
		t.Errorf("document after the restart: %.400s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "hearth.db")); !os.IsNotExist(err) {
		t.Errorf("a SQLite file was made in the data directory on PostgreSQL: %v", err)
	}

	// The terminal game on the same database: started, then resumed.
	runEnv(t, env, strings.NewReader("look\n"), "play", "--new", "--seed", "3", "--data", dir)
	out := runEnv(t, env, strings.NewReader("look\n"), "play", "--data", dir)
	if !strings.Contains(out, "resuming game") || !strings.Contains(out, "at turn 1") {
		t.Errorf("hearth play did not resume the game at turn 1:\n%s", out)
	}
	if out := runEnv(t, env, nil, "sessions", "--data", dir); strings.Count(strings.TrimSpace(out), "\n") < 1 {
		t.Errorf("hearth sessions lists fewer than two games:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "hearth.db")); !os.IsNotExist(err) {
		t.Errorf("hearth play made a SQLite file on PostgreSQL: %v", err)
	}
}
