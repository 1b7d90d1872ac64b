package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/internal/api"
)

// Browser sign-in: POST /api/session trades an API key for a session
// cookie, and state-changing requests made with the cookie carry the
// session's CSRF token. WebSocket clients that can send neither a header
// nor a cookie open the socket with a single-use ticket.
const (
	// SessionCookie holds the session token: HttpOnly, SameSite=Strict,
	// Path=/, Secure when the request came over HTTPS.
	SessionCookie = "hearth_session"
	// CSRFHeader carries the session's CSRF token on every request with
	// the cookie whose method is not GET, HEAD or OPTIONS.
	CSRFHeader = "X-CSRF-Token"
	// TicketParam carries a WebSocket ticket: /ws/game/ID?ticket=T.
	TicketParam = "ticket"
)

// sessionUser is a user as the session routes show it: no key, no id.
type sessionUser struct {
	Name string       `json:"name"`
	Role access.Level `json:"role"`
}

type sessionBody struct {
	User      sessionUser `json:"user"`
	CSRFToken string      `json:"csrf_token"`
	ExpiresAt time.Time   `json:"expires_at"`
}

func newSessionBody(s auth.Session) sessionBody {
	return sessionBody{User: sessionUser{Name: s.User.Name, Role: s.User.Role}, CSRFToken: s.CSRF, ExpiresAt: s.Expires.UTC()}
}

// signIn serves POST /api/session, outside authentication: the key in the
// body is checked as a Bearer key is, throttle included.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if s.o.Sessions == nil {
		api.Error(w, r, api.NotFound, "auth.sessions_off", nil)
		return
	}
	// A cross-site page must not sign a visitor in as the attacker.
	if !s.sameOriginIfPresent(w, r) {
		return
	}
	var req struct {
		Key      string `json:"key"`
		Username string `json:"username"`
	}
	if !api.DecodeOrError(w, r, &req, 4<<10) {
		return
	}
	ctx := r.Context()
	client := auth.ClientFrom(ctx)
	if client == "" {
		client = clientHost(r.RemoteAddr)
		ctx = auth.WithClient(ctx, client)
	}
	sess, err := s.o.Sessions.SignIn(ctx, strings.TrimSpace(req.Key), req.Username)
	if te := (*auth.ThrottledError)(nil); errors.As(err, &te) {
		s.log.InfoContext(ctx, "refused sign-in: throttled", "client", client, "err", err)
		tooMany(w, r, "auth.throttled", te.RetryAfter)
		return
	}
	if errors.Is(err, auth.ErrInvalidKey) {
		s.log.InfoContext(ctx, "refused sign-in", "client", client, "err", err)
		api.Error(w, r, api.Unauthorized, "auth.invalid_key", nil)
		return
	}
	if err != nil {
		api.Fail(w, r, s.log, err)
		return
	}
	s.log.InfoContext(ctx, "signed in", "user", sess.User.Name, "key", sess.KeyID, "client", client)
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: sess.Token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: isSecure(r), Expires: sess.Ends.UTC(),
		MaxAge: max(1, int(time.Until(sess.Ends).Seconds()))})
	api.JSON(w, http.StatusOK, newSessionBody(sess))
}

// getSession serves GET /api/session: who the cookie signs in, and the
// CSRF token, so a reloaded page finds it again.
func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	sess, ok := auth.SessionFrom(r.Context())
	if !ok {
		api.Error(w, r, api.NotFound, "auth.no_session", nil)
		return
	}
	api.JSON(w, http.StatusOK, newSessionBody(sess))
}

// signOut serves DELETE /api/session: the session ends on the server and
// the cookie is cleared.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	sess, ok := auth.SessionFrom(r.Context())
	if !ok {
		api.Error(w, r, api.NotFound, "auth.no_session", nil)
		return
	}
	c, err := r.Cookie(SessionCookie)
	if err != nil { // Require found it a moment ago
		api.Error(w, r, api.NotFound, "auth.no_session", nil)
		return
	}
	if err := s.o.Sessions.SignOut(r.Context(), c.Value); err != nil {
		api.Fail(w, r, s.log, err)
		return
	}
	s.log.InfoContext(r.Context(), "signed out", "user", sess.User.Name, "key", sess.KeyID)
	clearSessionCookie(w, r)
	w.WriteHeader(http.StatusNoContent)
}

// wsTicket serves POST /api/ws-ticket: a ticket that opens one WebSocket
// as the caller within a minute. It is never logged.
func (s *Server) wsTicket(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if s.o.Sessions == nil {
		api.Error(w, r, api.NotFound, "auth.sessions_off", nil)
		return
	}
	id, ok := keyIDFrom(r.Context())
	if !ok {
		api.Error(w, r, api.NotFound, "auth.sessions_off", nil)
		return
	}
	t, ttl, err := s.o.Sessions.IssueTicket(r.Context(), id)
	if err != nil {
		api.Fail(w, r, s.log, err)
		return
	}
	api.JSON(w, http.StatusOK, map[string]any{"ticket": t, "expires_in": int(ttl.Seconds())})
}

// csrf guards the routes behind authentication: a request signed in with
// the session cookie whose method changes state must come from this
// server's own origin (when it names one) and carry the session's CSRF
// token. Requests with a key or a ticket carry no ambient credential and
// pass.
func (s *Server) csrf(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sess, ok := auth.SessionFrom(r.Context())
		if !ok || r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		if !s.sameOriginIfPresent(w, r) {
			return
		}
		tok := r.Header.Get(CSRFHeader)
		if tok == "" {
			api.Error(w, r, api.Forbidden, "auth.csrf_missing", nil)
			return
		}
		if subtle.ConstantTimeCompare([]byte(tok), []byte(sess.CSRF)) != 1 {
			s.log.InfoContext(r.Context(), "refused a wrong CSRF token", "user", sess.User.Name, "path", r.URL.Path)
			api.Error(w, r, api.Forbidden, "auth.csrf_invalid", nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOriginIfPresent answers 403 and reports false when the request's
// Origin (or, without one, its Referer) names another origin than this
// server's. A request naming none passes: non-browser clients send none,
// and browsers send Origin on every cross-site POST.
func (s *Server) sameOriginIfPresent(w http.ResponseWriter, r *http.Request) bool {
	from := r.Header.Get("Origin")
	if from == "" {
		if ref := r.Header.Get("Referer"); ref != "" {
			if u, err := url.Parse(ref); err == nil && u.Host != "" {
				from = u.Scheme + "://" + u.Host
			} else {
				from = ref
			}
		}
	}
	if from == "" || s.sameOrigin(r, from) {
		return true
	}
	s.log.InfoContext(r.Context(), "refused a cross-origin request with a session", "origin", from, "path", r.URL.Path)
	api.Error(w, r, api.Forbidden, "auth.cross_origin", map[string]any{"Origin": from})
	return false
}

// sameOrigin reports whether origin is this server's: the scheme and host
// the request came to, or those of server.public_url.
func (s *Server) sameOrigin(r *http.Request, origin string) bool {
	scheme := "http"
	if isSecure(r) {
		scheme = "https"
	}
	if strings.EqualFold(origin, scheme+"://"+r.Host) {
		return true
	}
	if s.o.PublicURL != "" {
		if u, err := url.Parse(s.o.PublicURL); err == nil && strings.EqualFold(origin, u.Scheme+"://"+u.Host) {
			return true
		}
	}
	return false
}

// isTicketUpgrade reports whether r is a WebSocket upgrade carrying a
// ticket: tickets open sockets and nothing else.
func isTicketUpgrade(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/ws/") && r.URL.Query().Has(TicketParam)
}

func clearSessionCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: isSecure(r), MaxAge: -1})
}

type secureKey struct{}
type keyIDKey struct{}

// scheme marks on each request's context whether it came over HTTPS: its
// own TLS, or X-Forwarded-Proto: https from a trusted proxy.
func (s *Server) scheme(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secure := r.TLS != nil
		if !secure && len(s.proxies) > 0 {
			if peer, ok := parseHop(r.RemoteAddr); ok && trusted(peer, s.proxies) {
				proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
				secure = strings.EqualFold(strings.TrimSpace(proto), "https")
			}
		}
		if secure == (r.TLS != nil) {
			// What isSecure finds without a mark: a request copied with
			// a new context costs every request about 370 bytes.
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), secureKey{}, secure)))
	})
}

// isSecure reports whether r came over HTTPS, as scheme found; a request
// that did not pass scheme (Require used alone) by its own TLS.
func isSecure(r *http.Request) bool {
	if v, ok := r.Context().Value(secureKey{}).(bool); ok {
		return v
	}
	return r.TLS != nil
}

func trusted(a netip.Addr, proxies []netip.Prefix) bool {
	for _, p := range proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// withKeyID records the id of the key a request was authenticated with,
// for the ticket route.
func withKeyID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, keyIDKey{}, id)
}

// budgetFrom is the rate budget a request was authenticated against: its
// key's id, or "user:ID" for keys of another shape.
func budgetFrom(ctx context.Context) string {
	id, _ := ctx.Value(keyIDKey{}).(string)
	return id
}

func keyIDFrom(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(keyIDKey{}).(string)
	return id, ok && !strings.HasPrefix(id, "user:")
}
