package security

import (
	"encoding/json"
	"net/http"
	"strings"
)

// browserSessions attacks browser sign-in, the session cookie's CSRF
// defence and WebSocket tickets as a player: a forged or missing CSRF
// token, a cross-site page, a planted (fixated) cookie, a replayed or
// expired ticket, a player's ticket on the GM's view of a game. The GM's
// cookie and ticket are the positive controls.
func (s *suite) browserSessions() {
	const (
		signIn  = "POST /api/session"
		getSess = "GET /api/session"
		signOut = "DELETE /api/session"
		tickets = "POST /api/ws-ticket"
		sock    = "GET /ws/game/{session_id}"
	)
	login := func(name, key string) (cookie, csrf string) {
		s.t.Helper()
		req, _ := http.NewRequest("POST", s.f.url+"/api/session", strings.NewReader(`{"key":"`+key+`","username":"`+name+`"}`))
		resp, err := s.client.Do(req)
		if err != nil {
			s.t.Fatalf("sign in as %s: %v", name, err)
		}
		defer resp.Body.Close()
		var r struct {
			CSRFToken string `json:"csrf_token"`
		}
		json.NewDecoder(resp.Body).Decode(&r)
		for _, c := range resp.Cookies() {
			if c.Name == "hearth_session" && c.HttpOnly && c.SameSite == http.SameSiteStrictMode {
				cookie = c.Name + "=" + c.Value
			}
		}
		if resp.StatusCode != http.StatusOK || cookie == "" || r.CSRFToken == "" {
			s.t.Fatalf("sign in as %s: %d, cookie %q", name, resp.StatusCode, cookie)
		}
		s.check("sign in as "+name, signIn, "")
		return cookie, r.CSRFToken
	}
	ann, annCSRF := login("ann", s.f.ann)
	gm, gmCSRF := login("gm", s.f.gm)
	with := func(cookie string, h map[string]string) map[string]string {
		out := map[string]string{"Cookie": cookie}
		for k, v := range h {
			out[k] = v
		}
		return out
	}
	refused := func(name, route, method, path, body string, h map[string]string, want int) {
		s.t.Helper()
		if code, b := s.do(request{name: name, route: route, method: method, path: path, body: body, header: h}); code != want {
			s.t.Errorf("%s: %d, want %d: %.200s", name, code, want, b)
		}
	}

	// Signing in with someone else's name, a wrong or a missing key.
	refused("sign in as the GM with ann's key", signIn, "POST", "/api/session", `{"key":"`+s.f.ann+`","username":"gm"}`, nil, 401)
	refused("sign in with a role", signIn, "POST", "/api/session", `{"key":"`+s.f.ann+`","role":"gm"}`, nil, 400)
	refused("sign in from another site", signIn, "POST", "/api/session", `{"key":"`+s.f.ann+`"}`, map[string]string{"Origin": "https://evil.example"}, 403)

	// The player's cookie reads what the player may, no more.
	if code, b := s.do(request{name: "ann's session", route: getSess, method: "GET", path: "/api/session", header: with(ann, nil)}); code != 200 || !strings.Contains(b, `"player"`) || strings.Contains(b, s.f.ann) {
		s.t.Errorf("GET /api/session with ann's cookie: %d %.200s", code, b)
	}
	s.do(request{name: "search with ann's cookie", route: "POST /api/search", method: "POST", path: "/api/search",
		body: `{"query":"harbourmaster cultist"}`, header: with(ann, map[string]string{"X-CSRF-Token": annCSRF})})

	// CSRF: forged, missing, another user's, or from another site.
	patch := `{"access_level":"player"}`
	for _, a := range []struct {
		name string
		h    map[string]string
	}{
		{"no CSRF token", nil},
		{"a forged CSRF token", map[string]string{"X-CSRF-Token": strings.Repeat("A", 43)}},
		{"the GM's CSRF token", map[string]string{"X-CSRF-Token": gmCSRF}},
		{"the right token from another site", map[string]string{"X-CSRF-Token": annCSRF, "Origin": "https://evil.example"}},
		{"the right token from a cross-site Referer", map[string]string{"X-CSRF-Token": annCSRF, "Referer": "https://evil.example/x"}},
	} {
		refused("ann's cookie with "+a.name+": search", "POST /api/search", "POST", "/api/search", `{"query":"harbourmaster"}`, with(ann, a.h), 403)
		refused("ann's cookie with "+a.name+": sign out", signOut, "DELETE", "/api/session", "", with(ann, a.h), 403)
		refused("ann's cookie with "+a.name+": ticket", tickets, "POST", "/api/ws-ticket", "", with(ann, a.h), 403)
		// Even the GM's own cookie cannot be ridden to change a book.
		h := map[string]string{}
		for k, v := range a.h {
			switch v {
			case annCSRF:
				v = gmCSRF
			case gmCSRF:
				v = annCSRF
			}
			h[k] = v
		}
		refused("the GM's cookie with "+a.name+": make the book public", "PATCH /api/documents/{id}", "PATCH", "/api/documents/"+s.f.gmDoc, patch, with(gm, h), 403)
	}
	// The player's cookie with the right token is still a player.
	refused("ann's cookie with its token: make the GM's book public", "PATCH /api/documents/{id}", "PATCH", "/api/documents/"+s.f.gmDoc, patch,
		with(ann, map[string]string{"X-CSRF-Token": annCSRF}), 403)

	// Fixation: a cookie value nobody issued is never a session.
	planted := "hearth_session=" + strings.Repeat("x", 43)
	refused("a planted session cookie", getSess, "GET", "/api/session", "", map[string]string{"Cookie": planted}, 401)
	refused("a planted session cookie: documents", "GET /api/documents", "GET", "/api/documents", "", map[string]string{"Cookie": planted}, 401)
	refused("ann's key as a cookie", getSess, "GET", "/api/session", "", map[string]string{"Cookie": "hearth_session=" + s.f.ann}, 401)

	// Tickets: one use each, for the issuer's view only.
	ticket := func(cookie, csrf string) string {
		s.t.Helper()
		code, b := s.do(request{name: "ticket", route: tickets, method: "POST", path: "/api/ws-ticket", header: with(cookie, map[string]string{"X-CSRF-Token": csrf})})
		var r struct{ Ticket string }
		json.Unmarshal([]byte(b), &r)
		if code != 200 || r.Ticket == "" {
			s.t.Fatalf("ticket: %d %.200s", code, b)
		}
		return r.Ticket
	}
	g := s.f.game
	gmTicket := ticket(gm, gmCSRF)
	frames, err := s.socketWith(nil, "/ws/game/"+g+"?ticket="+gmTicket, nil)
	if err != nil {
		s.t.Fatalf("GM ticket socket: %v", err)
	}
	s.mustHave("GM ticket socket (campaign secret)", strings.Join(frames, "\n"), campaignMarker)
	frames, _ = s.socketWith(nil, "/ws/game/"+g+"?ticket="+gmTicket, nil)
	s.check("the GM's ticket replayed", sock, "", frames...)
	if len(frames) != 2 || !strings.Contains(frames[1], "unauthorized") {
		s.t.Errorf("a replayed ticket was not refused: %.300q", frames)
	}
	annTicket := ticket(ann, annCSRF)
	frames, _ = s.socketWith(nil, "/ws/game/"+g+"?view=gm&role=gm&ticket="+annTicket, nil)
	s.check("ann's ticket on the GM's view", sock, "", frames...)
	if len(frames) == 0 || !strings.Contains(frames[0], "session_state") {
		s.t.Errorf("ann's ticket opened no socket: %.300q", frames)
	}
	frames, _ = s.socketWith(nil, "/ws/game/"+g+"?ticket="+annTicket, []string{`{"type":"session_state","view":"gm"}`})
	s.check("ann's ticket replayed", sock, "", frames...)
	frames, _ = s.socketWith(http.Header{"Authorization": {"Bearer " + s.f.bob}}, "/ws/game/"+g+"?ticket="+ticket(gm, gmCSRF), nil)
	s.check("the GM's ticket beside bob's key", sock, "", frames...)

	// The cookie on the socket: this server's page only.
	frames, _ = s.socketWith(http.Header{"Cookie": {gm}, "Origin": {s.f.url}}, "/ws/game/"+g, nil)
	s.mustHave("GM cookie socket (campaign secret)", strings.Join(frames, "\n"), campaignMarker)
	for _, o := range []string{"https://evil.example", "null", ""} {
		frames, _ := s.socketWith(http.Header{"Cookie": {gm}, "Origin": {o}}, "/ws/game/"+g, nil)
		s.check("the GM's cookie on the socket from origin "+o, sock, "", frames...)
		if len(frames) > 0 && strings.Contains(frames[0], "session_state") {
			s.t.Errorf("the GM's cookie opened the socket from origin %q", o)
		}
	}
	frames, _ = s.socketWith(http.Header{"Cookie": {ann}, "Origin": {s.f.url}}, "/ws/game/"+g+"?view=gm", []string{`{"type":"session_state","view":"gm"}`})
	s.check("ann's cookie on the socket", sock, "", frames...)

	// Signing out ends the session on the server.
	refused("sign out", signOut, "DELETE", "/api/session", "", with(ann, map[string]string{"X-CSRF-Token": annCSRF, "Origin": s.f.url}), 204)
	refused("ann's cookie after sign-out", getSess, "GET", "/api/session", "", with(ann, nil), 401)
	refused("ann's cookie after sign-out: ticket", tickets, "POST", "/api/ws-ticket", "", with(ann, map[string]string{"X-CSRF-Token": annCSRF}), 401)

	// Tickets and session tokens open doors: the log never holds one.
	log := s.f.log.String()
	for name, v := range map[string]string{"the GM's ticket": gmTicket, "ann's ticket": annTicket,
		"ann's session": strings.TrimPrefix(ann, "hearth_session="), "the GM's session": strings.TrimPrefix(gm, "hearth_session=")} {
		if strings.Contains(log, v) {
			s.t.Errorf("the server logged %s", name)
		}
	}
}
