package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The real server signs a browser in: the cookie's attributes and life
// come from [server], the CSRF token guards a POST, a ticket and the
// cookie open the game's WebSocket, and revoking the key with the CLI
// ends the session.
func TestServeBrowserSession(t *testing.T) {
	dir, gmKey, playerKey := dataWithSecret(t)
	url := startServe(t, dir, "HEARTH__SERVER__SESSION_MAX=2h", "HEARTH__SERVER__SESSION_IDLE=30m")
	do := func(method, path, cookie, csrf, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		if csrf != "" {
			req.Header.Set("X-CSRF-Token", csrf)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := do("POST", "/api/session", "", "", `{"key":"`+playerKey+`"}`)
	var c *http.Cookie
	for _, x := range resp.Cookies() {
		if x.Name == "hearth_session" {
			c = x
		}
	}
	if resp.StatusCode != 200 || c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure {
		t.Fatalf("sign in: %d %v %s", resp.StatusCode, resp.Header["Set-Cookie"], body)
	}
	if c.MaxAge > 7200 || c.MaxAge < 7000 {
		t.Errorf("cookie Max-Age %d, want server.session_max's 2h", c.MaxAge)
	}
	var r struct {
		CSRF      string    `json:"csrf_token"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	json.Unmarshal([]byte(body), &r)
	if r.CSRF == "" || time.Until(r.ExpiresAt) > 30*time.Minute {
		t.Fatalf("reply %s: want a CSRF token and server.session_idle's 30m", body)
	}
	cookie := c.Name + "=" + c.Value

	q := `{"query":"purser Zhodani infiltrator"}`
	if resp, body := do("POST", "/api/search", cookie, "", q); resp.StatusCode != 403 {
		t.Errorf("cookie POST without CSRF: %d %s", resp.StatusCode, body)
	}
	if resp, body := do("POST", "/api/search", cookie, r.CSRF, q); resp.StatusCode != 200 || strings.Contains(body, "Karesh") {
		t.Errorf("player's cookie search: %d %s", resp.StatusCode, body)
	}

	resp, body = do("POST", "/api/sessions", "", "", `{"campaign":"saltmere","seed":1}`)
	if resp.StatusCode != 401 {
		t.Fatalf("create a game with no credentials: %d %s", resp.StatusCode, body)
	}
	req, _ := http.NewRequest("POST", url+"/api/sessions", strings.NewReader(`{"campaign":"saltmere","seed":1}`))
	req.Header.Set("Authorization", "Bearer "+gmKey)
	gresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var game struct{ ID string }
	json.NewDecoder(gresp.Body).Decode(&game)
	gresp.Body.Close()
	if gresp.StatusCode != 201 || game.ID == "" {
		t.Fatalf("create a game: %d", gresp.StatusCode)
	}
	_, body = do("POST", "/api/ws-ticket", cookie, r.CSRF, "")
	var tk struct{ Ticket string }
	json.Unmarshal([]byte(body), &tk)
	ws := "ws" + strings.TrimPrefix(url, "http") + "/ws/game/" + game.ID
	dial := func(path string, h http.Header) int {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, resp, err := websocket.Dial(ctx, path, &websocket.DialOptions{HTTPHeader: h})
		if err != nil {
			if resp == nil {
				t.Fatal(err)
			}
			return resp.StatusCode
		}
		defer conn.CloseNow()
		conn.SetReadLimit(8 << 20)
		if _, _, err := conn.Read(ctx); err != nil {
			t.Fatal(err)
		}
		return http.StatusSwitchingProtocols
	}
	if code := dial(ws+"?ticket="+tk.Ticket, nil); code != 101 {
		t.Errorf("ticket: %d", code)
	}
	if code := dial(ws+"?ticket="+tk.Ticket, nil); code != 401 {
		t.Errorf("ticket again: %d, want 401", code)
	}
	if code := dial(ws, http.Header{"Cookie": {cookie}, "Origin": {url}}); code != 101 {
		t.Errorf("cookie from this server's page: %d", code)
	}
	if code := dial(ws, http.Header{"Cookie": {cookie}, "Origin": {"https://evil.example"}}); code != 403 {
		t.Errorf("cookie from another site: %d, want 403", code)
	}

	id := playerKey[4:20]
	if out, err := exec.Command(hearthBin, "user", "revoke", id, "--data", dir).CombinedOutput(); err != nil {
		t.Fatalf("revoke: %v %s", err, out)
	}
	if resp, body := do("GET", "/api/session", cookie, "", ""); resp.StatusCode != 401 {
		t.Errorf("session after its key was revoked by the CLI: %d %s", resp.StatusCode, body)
	}
}
