package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hearth-rpg/hearth/internal/hearthtest"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
)

// ownPostgres starts a PostgreSQL server of the test's own (the shared one
// must not be stopped), returning its URL and functions that stop and
// start it again on the same port.
func ownPostgres(t *testing.T) (pgURL string, stop, start func()) {
	t.Helper()
	pgtest.Skip(t)
	script, _ := filepath.Abs("../../scripts/postgres-test.sh")
	var b [4]byte
	rand.Read(b[:])
	dir := filepath.Join(os.TempDir(), "pg-dbops-"+hex.EncodeToString(b[:]))
	out, err := exec.Command(script, "start", dir).Output()
	if err != nil {
		t.Skipf("cannot start a PostgreSQL server of the test's own (%v): skipping", err)
	}
	t.Cleanup(func() { exec.Command(script, "stop", dir).Run() })
	pgURL = strings.TrimSpace(string(out))
	u, err := url.Parse(pgURL)
	if err != nil {
		t.Fatal(err)
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		t.Skip("no pg_ctl")
	}
	pgctl := bins[len(bins)-1]
	ctl := func(args ...string) {
		t.Helper()
		all := append([]string{"-u", "postgres", "--", pgctl, "-D", filepath.Join(dir, "data"), "-w", "-s"}, args...)
		cmd := exec.Command("runuser", all...)
		if os.Getuid() != 0 {
			cmd = exec.Command(all[3], all[4:]...)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pg_ctl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	stop = func() { ctl("-m", "fast", "stop") }
	start = func() {
		ctl("-l", filepath.Join(dir, "server.log"), "-o", "-p "+u.Port()+" -k "+dir+
			" -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=300", "start")
	}
	return pgURL, stop, start
}

// TestServeSurvivesPostgresRestart stops the PostgreSQL server under a
// running `hearth serve` and starts it again: the server keeps running,
// says so in its log, answers /health with 503 while the database is
// away and 200 once it is back (with the pool's state), and a game is
// played afterwards.
func TestServeSurvivesPostgresRestart(t *testing.T) {
	pgURL, stopPG, startPG := ownPostgres(t)
	env := []string{"HEARTH__DATABASE__URL=" + pgURL, "HEARTH__LIMITS__RATE_LIMIT_RPM=100000", "HEARTH__LIMITS__RATE_LIMIT_BURST=1000"}
	dir := t.TempDir()
	writePartyCampaign(t, dir)
	key := regexp.MustCompile(`hth_[a-z0-9_]+`).FindString(runEnv(t, env, nil, "user", "add", "gm", "--role", "gm", "--data", dir))
	if key == "" {
		t.Fatal("no GM key printed")
	}
	var mu sync.Mutex
	var logs strings.Builder
	srv := hearthtest.Server{Bin: hearthBin, Data: dir, Env: env, Log: func(l string) {
		mu.Lock()
		logs.WriteString(l + "\n")
		mu.Unlock()
	}}
	cmd, base := srv.Launch(t)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
		}
	}()
	logged := func(s string) bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(logs.String(), s)
	}
	client := &http.Client{Transport: hearthtest.Bearer{Key: key}, Timeout: 2 * time.Minute}
	type health struct {
		Status   string `json:"status"`
		Database struct {
			Backend string           `json:"backend"`
			OK      bool             `json:"ok"`
			Pool    map[string]int64 `json:"pool"`
		} `json:"database"`
	}
	get := func() (int, health) {
		resp, err := client.Get(base + "/health")
		if err != nil {
			t.Fatalf("/health: %v (did the server die?)", err)
		}
		defer resp.Body.Close()
		var h health
		json.NewDecoder(resp.Body).Decode(&h)
		return resp.StatusCode, h
	}
	// waitFor polls /health until it answers code, the server still up.
	waitFor := func(code int) health {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for {
			select {
			case err := <-exited:
				t.Fatalf("hearth serve exited: %v\n%s", err, logs.String())
			default:
			}
			c, h := get()
			if c == code {
				return h
			}
			if time.Now().After(deadline) {
				t.Fatalf("/health answered %d, not %d, for 3 minutes: %+v", c, code, h)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	h := waitFor(http.StatusOK)
	if h.Database.Backend != "postgres" || h.Database.Pool["max_conns"] <= 0 || h.Database.Pool["total_conns"] <= 0 {
		t.Errorf("health does not show the pool: %+v", h)
	}
	metrics := func() string {
		resp, err := client.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if m := metrics(); !strings.Contains(m, `hearth_database_info{backend="postgres"} 1`) || !strings.Contains(m, "hearth_db_pool_acquires_total") {
		t.Errorf("metrics lack the database:\n%.3000s", m)
	}

	stopPG()
	if h := waitFor(http.StatusServiceUnavailable); h.Status != "unhealthy" || h.Database.OK {
		t.Errorf("health while the database is down: %+v", h)
	}
	// A request that needs the database fails cleanly meanwhile.
	if resp, err := client.Get(base + "/api/sessions"); err != nil {
		t.Fatalf("/api/sessions while the database is down: %v", err)
	} else {
		resp.Body.Close()
		if resp.StatusCode < 500 {
			t.Errorf("/api/sessions while the database is down: %d", resp.StatusCode)
		}
	}
	for deadline := time.Now().Add(2 * time.Minute); !logged("PostgreSQL does not answer"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no log line says the database is down:\n%s", logs.String())
		}
	}

	startPG()
	waitFor(http.StatusOK)
	for deadline := time.Now().Add(2 * time.Minute); !logged("PostgreSQL answers again"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no log line says the database is back:\n%s", logs.String())
		}
	}

	// A game, played after the outage.
	req, _ := http.NewRequest("POST", base+"/api/sessions", strings.NewReader(`{"campaign":"party","seed":5}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var game struct {
		ID string `json:"id"`
	}
	json.NewDecoder(resp.Body).Decode(&game)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || game.ID == "" {
		t.Fatalf("new game after the outage: %d %+v", resp.StatusCode, game)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := dialGame(t, ctx, base, key, game.ID)
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"start_autopilot","speed":"fast"}`))
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("socket: %v", err)
		}
		var f struct {
			Type      string `json:"type"`
			Turn      int    `json:"turn"`
			Committed bool   `json:"committed"`
		}
		json.Unmarshal(b, &f)
		if f.Type == "turn_update" && f.Committed && f.Turn >= 1 {
			break
		}
	}
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"stop_autopilot"}`))
	c.Close(websocket.StatusNormalClosure, "")
}
