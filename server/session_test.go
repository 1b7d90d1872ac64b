package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/authtest"
	"github.com/hearth-rpg/hearth/internal/syncbuf"
	"github.com/hearth-rpg/hearth/server"
	"github.com/hearth-rpg/hearth/server/gameapi"
	"github.com/hearth-rpg/hearth/store/sqlitestore"
)

// browser is what a page holds after signing in: the cookie (which the
// browser keeps, not the page) and the CSRF token.
type browser struct {
	cookie *http.Cookie
	csrf   string
}

type sessionReply struct {
	User struct {
		Name string `json:"name"`
		Role string `json:"role"`
	} `json:"user"`
	CSRFToken string    `json:"csrf_token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// req sends a request from a page of origin (empty: no Origin header)
// with b's cookie, and its CSRF token when csrf is set.
func (f *fixture) req(method, path string, b browser, origin, csrf string, body any) *http.Response {
	f.t.Helper()
	var r io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, f.url+path, r)
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if b.cookie != nil {
		req.AddCookie(b.cookie)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if csrf != "" {
		req.Header.Set(server.CSRFHeader, csrf)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp
}

// signIn posts key (and name) to /api/session and returns the browser it
// signs in.
func (f *fixture) signIn(key, name string) browser {
	f.t.Helper()
	resp := f.req("POST", "/api/session", browser{}, "", "", map[string]string{"key": key, "username": name})
	if resp.StatusCode != http.StatusOK {
		f.t.Fatalf("sign in: %d %s", resp.StatusCode, bodyOf(resp))
	}
	c := sessionCookie(resp)
	if c == nil {
		f.t.Fatal("no session cookie")
	}
	r := decode[sessionReply](f.t, resp)
	return browser{cookie: &http.Cookie{Name: c.Name, Value: c.Value}, csrf: r.CSRFToken}
}

func sessionCookie(resp *http.Response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == server.SessionCookie {
			return c
		}
	}
	return nil
}

func bodyOf(resp *http.Response) string {
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// errCode is the code of an error response.
func errCode(t *testing.T, resp *http.Response) string {
	t.Helper()
	return decode[struct {
		Error struct{ Code string } `json:"error"`
	}](t, resp).Error.Code
}

func TestSignIn(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	resp := f.req("POST", "/api/session", browser{}, f.url, "", map[string]string{"key": f.plKey, "username": "Player"})
	raw := bodyOf(resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("sign in: %d %s", resp.StatusCode, raw)
	}
	c := sessionCookie(resp)
	if c == nil {
		t.Fatalf("no %s cookie: %v", server.SessionCookie, resp.Header["Set-Cookie"])
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure || len(c.Value) != 43 || c.MaxAge <= 0 {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, Path=/, not Secure over http, 43 characters, a Max-Age", c)
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
	var r sessionReply
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatal(err)
	}
	if r.User.Name != "player" || r.User.Role != "player" || len(r.CSRFToken) != 43 || r.CSRFToken == c.Value || r.ExpiresAt.IsZero() {
		t.Errorf("reply %s", raw)
	}
	if strings.Contains(raw, f.plKey) || strings.Contains(raw, f.plKey[4:20]) || strings.Contains(raw, c.Value) {
		t.Errorf("the reply holds the key or the token: %s", raw)
	}

	for _, tc := range []struct {
		name string
		body any
		want int
	}{
		{"a wrong secret", map[string]string{"key": authtest.WrongSecrets(t, f.plKey, 1)[0]}, http.StatusUnauthorized},
		{"not a key", map[string]string{"key": "letmein"}, http.StatusUnauthorized},
		{"another user's name", map[string]string{"key": f.plKey, "username": "gm"}, http.StatusUnauthorized},
		{"no key", map[string]string{}, http.StatusUnauthorized},
		{"a role in the body", map[string]any{"key": f.plKey, "role": "gm"}, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := f.req("POST", "/api/session", browser{}, "", "", tc.body)
			if resp.StatusCode != tc.want || sessionCookie(resp) != nil {
				t.Errorf("%d %v %s, want %d and no cookie", resp.StatusCode, resp.Header["Set-Cookie"], bodyOf(resp), tc.want)
			}
			resp.Body.Close()
		})
	}
	// A cross-site page cannot sign a visitor in (login CSRF).
	resp = f.req("POST", "/api/session", browser{}, "https://evil.example", "", map[string]string{"key": f.plKey})
	if resp.StatusCode != http.StatusForbidden || sessionCookie(resp) != nil {
		t.Errorf("cross-site sign-in: %d %s", resp.StatusCode, bodyOf(resp))
	}
	resp.Body.Close()
}

func TestSignInThrottled(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	var last *http.Response
	for _, w := range authtest.WrongSecrets(t, f.gmKey, auth.FailureBurst+1) {
		if last != nil {
			last.Body.Close()
		}
		last = f.req("POST", "/api/session", browser{}, "", "", map[string]string{"key": w})
	}
	if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
		t.Fatalf("wrong secret past the budget: %d Retry-After %q %s", last.StatusCode, last.Header.Get("Retry-After"), bodyOf(last))
	}
	last.Body.Close()
	// The right key still signs in while its key id is throttled.
	f.signIn(f.gmKey, "")
}

// TestSecureCookie: the cookie is Secure when the request came over
// HTTPS, its own or a trusted proxy's, and only then.
func TestSecureCookie(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true, proxies: []string{"127.0.0.1"}})
	tls := httptest.NewTLSServer(f.srv)
	t.Cleanup(tls.Close)
	plain := newFixture(t, fixtureOpts{sessions: true, proxies: []string{"10.9.9.9"}})
	for _, tc := range []struct {
		name, url, proto string
		client           *http.Client
		key              string
		want             bool
	}{
		{"plain http", f.url, "", http.DefaultClient, f.plKey, false},
		{"TLS", tls.URL, "", tls.Client(), f.plKey, true},
		{"https from a trusted proxy", f.url, "https", http.DefaultClient, f.plKey, true},
		{"http from a trusted proxy", f.url, "http", http.DefaultClient, f.plKey, false},
		{"TLS, whatever a trusted proxy says", tls.URL, "http", tls.Client(), f.plKey, true},
		{"https from an untrusted peer", plain.url, "https", http.DefaultClient, plain.plKey, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", tc.url+"/api/session", strings.NewReader(`{"key":"`+tc.key+`"}`))
			if tc.proto != "" {
				req.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			resp, err := tc.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			c := sessionCookie(resp)
			if resp.StatusCode != http.StatusOK || c == nil || c.Secure != tc.want {
				t.Errorf("%d, cookie %+v; want Secure=%v", resp.StatusCode, c, tc.want)
			}
		})
	}
}

func TestSessionCookieAuthenticates(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	pl := f.signIn(f.plKey, "player")
	search := map[string]any{"query": "jump drive"}

	// Reading with the cookie: the user and role are the key's.
	resp := f.req("GET", "/api/session", pl, "", "", nil)
	if r := decode[sessionReply](t, resp); resp.StatusCode != http.StatusOK || r.User.Name != "player" || r.CSRFToken != pl.csrf {
		t.Fatalf("GET /api/session: %d %+v", resp.StatusCode, r)
	}
	resp = f.req("GET", "/api/documents", pl, "", "", nil)
	if b := bodyOf(resp); resp.StatusCode != http.StatusOK || !strings.Contains(b, "Core Rulebook") || strings.Contains(b, "Adventure Secrets") {
		t.Fatalf("GET /api/documents with a player's cookie: %d %s", resp.StatusCode, b)
	}

	for _, tc := range []struct {
		name, origin, csrf string
		want               int
		code               string
	}{
		{"no CSRF token", "", "", http.StatusForbidden, "forbidden"},
		{"a forged CSRF token", "", strings.Repeat("A", 43), http.StatusForbidden, "forbidden"},
		{"another session's CSRF token", "", "other", http.StatusForbidden, "forbidden"},
		{"from another site", "https://evil.example", "ok", http.StatusForbidden, "forbidden"},
		{"from the null origin", "null", "ok", http.StatusForbidden, "forbidden"},
		{"the right token", "", "ok", http.StatusOK, ""},
		{"the right token from this origin", "self", "ok", http.StatusOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			csrf, origin := tc.csrf, tc.origin
			switch csrf {
			case "ok":
				csrf = pl.csrf
			case "other":
				csrf = f.signIn(f.gmKey, "").csrf
			}
			if origin == "self" {
				origin = f.url
			}
			resp := f.req("POST", "/api/search", pl, origin, csrf, search)
			if resp.StatusCode != tc.want {
				t.Fatalf("%d %s, want %d", resp.StatusCode, bodyOf(resp), tc.want)
			}
			if tc.code != "" {
				if got := errCode(t, resp); got != tc.code {
					t.Errorf("code %q, want %q", got, tc.code)
				}
			} else if b := bodyOf(resp); strings.Contains(b, secret) {
				t.Errorf("a player's search with a cookie found the GM's secret: %s", b)
			}
		})
	}
	// A cross-site Referer is refused like an Origin.
	req, _ := http.NewRequest("POST", f.url+"/api/search", strings.NewReader(`{"query":"jump"}`))
	req.AddCookie(pl.cookie)
	req.Header.Set(server.CSRFHeader, pl.csrf)
	req.Header.Set("Referer", "https://evil.example/page")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site Referer: %v %v", resp.Status, err)
	}
	// A Bearer key needs no CSRF token: no ambient credential.
	resp = f.do("POST", "/api/search", f.plKey, search)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("Bearer POST without CSRF: %d %s", resp.StatusCode, bodyOf(resp))
	}
	resp.Body.Close()
	// GET /api/session needs a session, not just a key.
	resp = f.do("GET", "/api/session", f.plKey, nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /api/session with a key: %d", resp.StatusCode)
	}
	resp.Body.Close()
}

// TestSessionFixation: a cookie value nobody issued, set by an attacker in
// a victim's browser, is refused and cleared; signing in always issues a
// new one.
func TestSessionFixation(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	planted := browser{cookie: &http.Cookie{Name: server.SessionCookie, Value: strings.Repeat("x", 43)}}
	resp := f.req("GET", "/api/session", planted, "", "", nil)
	if c := sessionCookie(resp); resp.StatusCode != http.StatusUnauthorized || c == nil || c.MaxAge >= 0 {
		t.Errorf("planted cookie: %d, Set-Cookie %v; want 401 clearing it", resp.StatusCode, resp.Header["Set-Cookie"])
	}
	resp.Body.Close()
	resp = f.req("POST", "/api/session", planted, "", "", map[string]string{"key": f.plKey})
	if c := sessionCookie(resp); resp.StatusCode != http.StatusOK || c == nil || c.Value == planted.cookie.Value {
		t.Errorf("sign-in over a planted cookie kept it: %+v", c)
	}
	resp.Body.Close()
}

func TestSignOut(t *testing.T) {
	f := newFixture(t, fixtureOpts{sessions: true})
	pl := f.signIn(f.plKey, "")
	other := f.signIn(f.plKey, "")
	resp := f.req("DELETE", "/api/session", pl, "", "", nil)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("sign-out without the CSRF token: %d", resp.StatusCode)
	}
	resp.Body.Close()
	resp = f.req("DELETE", "/api/session", pl, f.url, pl.csrf, nil)
	if c := sessionCookie(resp); resp.StatusCode != http.StatusNoContent || c == nil || c.MaxAge >= 0 || c.Value != "" {
		t.Fatalf("sign-out: %d, Set-Cookie %v", resp.StatusCode, resp.Header["Set-Cookie"])
	}
	resp.Body.Close()
	resp = f.req("GET", "/api/documents", pl, "", "", nil)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("old cookie after sign-out: %d %s", resp.StatusCode, bodyOf(resp))
	}
	resp.Body.Close()
	resp = f.req("GET", "/api/documents", other, "", "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the same key's other session after sign-out: %d", resp.StatusCode)
	}
	resp.Body.Close()
}

// TestRevokeEndsSession: revoking the key signed in with, or removing its
// user, refuses the session on its next request.
func TestRevokeEndsSession(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, fixtureOpts{sessions: true})
	gm := f.signIn(f.gmKey, "gm")
	pl := f.signIn(f.plKey, "player")
	for _, b := range []browser{gm, pl} {
		if resp := f.req("GET", "/api/session", b, "", "", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("before: %d", resp.StatusCode)
		}
	}
	id, _ := auth.KeyID(f.gmKey)
	if err := f.kr.Revoke(ctx, id); err != nil {
		t.Fatal(err)
	}
	if resp := f.req("GET", "/api/session", gm, "", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("session of a revoked key: %d %s", resp.StatusCode, bodyOf(resp))
	}
	if err := f.kr.RemoveUser(ctx, "player"); err != nil {
		t.Fatal(err)
	}
	if resp := f.req("GET", "/api/session", pl, "", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("session of a removed user: %d %s", resp.StatusCode, bodyOf(resp))
	}
}

func TestSessionIdleExpiry(t *testing.T) {
	c := &clock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	f := newFixture(t, fixtureOpts{sessions: true, clock: c}) // idle 1h
	pl := f.signIn(f.plKey, "")
	c.Add(59 * time.Minute)
	if resp := f.req("GET", "/api/session", pl, "", "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("59 minutes idle: %d", resp.StatusCode)
	}
	c.Add(time.Hour)
	if resp := f.req("GET", "/api/session", pl, "", "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("an hour idle: %d", resp.StatusCode)
	}
}

// gameFixture is a server with the game API mounted, as `hearth serve`
// has it, and one game.
func gameFixture(t *testing.T, c *clock, log *syncbuf.Buffer) (*fixture, string) {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	lg := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	games := gameapi.New(gameapi.Options{Store: st, Logger: lg, OriginPatterns: []string{"vtt.example"}})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		games.Close(ctx)
	})
	f := newFixture(t, fixtureOpts{sessions: true, clock: c, log: lg, mount: games.Register})
	resp := f.do("POST", "/api/sessions", f.gmKey, map[string]any{"campaign": "saltmere", "seed": 1})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create a game: %d %s", resp.StatusCode, bodyOf(resp))
	}
	return f, decode[gameapi.SessionInfo](t, resp).ID
}

// dialGame opens the game's WebSocket with h and reads its first message;
// it returns the handshake's status when refused.
func dialGame(t *testing.T, f *fixture, path string, h http.Header) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(f.url, "http")+path, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		if resp == nil {
			t.Fatalf("dial %s: %v", path, err)
		}
		return "", resp.StatusCode
	}
	defer conn.CloseNow()
	conn.SetReadLimit(8 << 20)
	var m struct{ Type string }
	_, b, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Type, http.StatusSwitchingProtocols
}

func TestWebSocketWithCookie(t *testing.T) {
	f, game := gameFixture(t, nil, &syncbuf.Buffer{})
	pl := f.signIn(f.plKey, "")
	for _, tc := range []struct {
		name, origin string
		cookie       bool
		want         int
	}{
		{"this server's page", "self", true, http.StatusSwitchingProtocols},
		{"another site", "https://evil.example", true, http.StatusForbidden},
		{"a CORS origin (Foundry) with the cookie", "https://vtt.example", true, http.StatusForbidden},
		{"no Origin", "", true, http.StatusForbidden},
		{"no cookie", "self", false, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.cookie {
				h.Set("Cookie", pl.cookie.String())
			}
			if tc.origin == "self" {
				tc.origin = f.url
			}
			if tc.origin != "" {
				h.Set("Origin", tc.origin)
			}
			typ, code := dialGame(t, f, "/ws/game/"+game, h)
			if code != tc.want || (code == http.StatusSwitchingProtocols && typ != "session_state") {
				t.Errorf("status %d, first message %q; want %d", code, typ, tc.want)
			}
		})
	}
}

func TestWebSocketTicket(t *testing.T) {
	c := &clock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	log := &syncbuf.Buffer{}
	f, game := gameFixture(t, c, log)
	ticket := func(b browser, key string) string {
		t.Helper()
		var resp *http.Response
		if key != "" {
			resp = f.do("POST", "/api/ws-ticket", key, nil)
		} else {
			resp = f.req("POST", "/api/ws-ticket", b, "", b.csrf, nil)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("ticket: %d %s", resp.StatusCode, bodyOf(resp))
		}
		r := decode[struct {
			Ticket    string `json:"ticket"`
			ExpiresIn int    `json:"expires_in"`
		}](t, resp)
		if r.ExpiresIn != 60 || len(r.Ticket) != 43 {
			t.Fatalf("ticket reply %+v", r)
		}
		return r.Ticket
	}
	path := "/ws/game/" + game + "?ticket="
	tk := ticket(browser{}, f.plKey)
	if typ, code := dialGame(t, f, path+tk, nil); code != http.StatusSwitchingProtocols || typ != "session_state" {
		t.Fatalf("first use: %d %q", code, typ)
	}
	if _, code := dialGame(t, f, path+tk, nil); code != http.StatusUnauthorized {
		t.Errorf("second use: %d, want 401", code)
	}
	pl := f.signIn(f.plKey, "")
	if resp := f.req("POST", "/api/ws-ticket", pl, "", "", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("ticket with the cookie and no CSRF token: %d", resp.StatusCode)
	}
	fromCookie := ticket(pl, "")
	old := ticket(browser{}, f.gmKey)
	c.Add(61 * time.Second)
	if _, code := dialGame(t, f, path+old, nil); code != http.StatusUnauthorized {
		t.Errorf("expired ticket: %d, want 401", code)
	}
	if _, code := dialGame(t, f, path+fromCookie, nil); code != http.StatusUnauthorized {
		t.Errorf("expired ticket from a cookie: %d, want 401", code)
	}
	if _, code := dialGame(t, f, path+"made-up", nil); code != http.StatusUnauthorized {
		t.Errorf("made-up ticket: %d, want 401", code)
	}
	// A ticket opens WebSockets only.
	if resp := f.do("GET", "/api/documents?ticket="+ticket(browser{}, f.gmKey), "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a ticket on a REST route: %d", resp.StatusCode)
	}
	revoked := ticket(browser{}, f.plKey)
	id, _ := auth.KeyID(f.plKey)
	if err := f.kr.Revoke(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if _, code := dialGame(t, f, path+revoked, nil); code != http.StatusUnauthorized {
		t.Errorf("ticket of a key revoked since: %d, want 401", code)
	}
	logs := log.String()
	if !strings.Contains(logs, "refused WebSocket ticket") {
		t.Fatalf("the refusals are not in the log the test reads:\n%s", logs)
	}
	for _, x := range []string{tk, old, fromCookie, revoked} {
		if strings.Contains(logs, x) || strings.Contains(logs, x[:16]) {
			t.Errorf("a ticket is in the log:\n%s", logs)
		}
	}
}
