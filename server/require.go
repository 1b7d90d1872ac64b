package server

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/internal/api"
)

// Authenticator turns an API key into the user it belongs to. *auth.Keyring
// is one; errors wrapping auth.ErrInvalidKey mean the key is not good, an
// *auth.ThrottledError that it was wrong too often lately, any other error
// that it could not be checked.
type Authenticator interface {
	Authenticate(ctx context.Context, key string) (auth.User, error)
}

var _ Authenticator = (*auth.Keyring)(nil)

// Require lets a request through to next only with a valid key in
// "Authorization: Bearer KEY", and within lim's rate for that key (nil lim:
// no limit). next finds the user with UserFrom; the role is the user's,
// whatever the request says.
//
// A missing or bad key is answered 401 with WWW-Authenticate: Bearer; a key
// over its rate, or a wrong one while its key id is throttled, 429 with
// Retry-After. Error messages come from the localizer on the request's
// context (see i18n.With). The client address failures are counted for is
// the one auth.WithClient put on the request's context (a server behind a
// trusted proxy does), else the request's peer. Refusals and failures are
// logged to log (nil: slog.Default()).
func Require(a Authenticator, lim *auth.Limiter, log *slog.Logger, next http.Handler) http.Handler {
	return Auth{Keys: a, Limit: lim, Log: log}.Require(next)
}

// Auth authenticates requests: by API key, and with Sessions also by a
// browser session cookie or, on a WebSocket upgrade (/ws/...), by a
// single-use ticket in ?ticket=.
type Auth struct {
	Keys Authenticator
	// Sessions, when set, lets a request without an Authorization header
	// in with the session cookie or a ticket. The cookie's CSRF checks are
	// the Server's (see Options.Sessions): use this inside a Server.
	Sessions *auth.Sessions
	Limit    *auth.Limiter
	Log      *slog.Logger
}

// Require is the middleware: Authorization first, then a ticket, then the
// cookie. A key, a ticket and a session all spend the rate budget of
// their key. A session puts itself on the context (auth.SessionFrom) for
// the CSRF check.
func (a Auth) Require(next http.Handler) http.Handler {
	log := a.Log
	if log == nil {
		log = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		client := auth.ClientFrom(ctx)
		if client == "" {
			client = clientHost(r.RemoteAddr)
			ctx = auth.WithClient(ctx, client)
		}
		var (
			u      auth.User
			budget string
		)
		header := r.Header.Get("Authorization")
		switch {
		case header != "" || a.Sessions == nil:
			key, ok := bearer(header)
			if !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="hearth"`)
				api.Error(w, r, api.Unauthorized, "auth.missing_key", nil)
				return
			}
			var err error
			u, err = a.Keys.Authenticate(ctx, key)
			if te := (*auth.ThrottledError)(nil); errors.As(err, &te) {
				log.InfoContext(ctx, "refused API key: throttled", "client", client, "path", r.URL.Path, "err", err)
				tooMany(w, r, "auth.throttled", te.RetryAfter)
				return
			}
			if errors.Is(err, auth.ErrInvalidKey) {
				log.InfoContext(ctx, "refused API key", "client", client, "path", r.URL.Path, "err", err)
				w.Header().Set("WWW-Authenticate", `Bearer realm="hearth", error="invalid_token"`)
				api.Error(w, r, api.Unauthorized, "auth.invalid_key", nil)
				return
			}
			if err != nil {
				api.Fail(w, r, log, err)
				return
			}
			// Budgets are per key; an Authenticator with keys of another
			// shape gets one per user.
			if budget, err = auth.KeyID(key); err != nil {
				budget = "user:" + u.ID
			}
		case isTicketUpgrade(r):
			var err error
			u, budget, err = a.Sessions.RedeemTicket(ctx, r.URL.Query().Get(TicketParam))
			if hearth.ErrorCode(err) == hearth.Unauthorized {
				// The ticket itself is never logged: it may still be
				// usable if the refusal was its key's.
				log.InfoContext(ctx, "refused WebSocket ticket", "client", client, "path", r.URL.Path, "err", err)
				api.Error(w, r, api.Unauthorized, "auth.invalid_ticket", nil)
				return
			}
			if err != nil {
				api.Fail(w, r, log, err)
				return
			}
		default:
			c, err := r.Cookie(SessionCookie)
			if err != nil {
				w.Header().Set("WWW-Authenticate", `Bearer realm="hearth"`)
				api.Error(w, r, api.Unauthorized, "auth.missing_key", nil)
				return
			}
			s, err := a.Sessions.Resume(ctx, c.Value)
			if hearth.ErrorCode(err) == hearth.Unauthorized {
				log.InfoContext(ctx, "refused session cookie", "client", client, "path", r.URL.Path, "err", err)
				clearSessionCookie(w, r)
				api.Error(w, r, api.Unauthorized, "auth.invalid_session", nil)
				return
			}
			if err != nil {
				api.Fail(w, r, log, err)
				return
			}
			u, budget = s.User, s.KeyID
			ctx = auth.WithSession(ctx, s)
		}
		if ok, wait := a.Limit.Allow(budget); !ok {
			tooMany(w, r, "auth.rate_limited", wait)
			return
		}
		ctx = withKeyID(ctx, budget)
		next.ServeHTTP(w, r.WithContext(auth.WithUser(ctx, u)))
	})
}

// tooMany answers 429 with Retry-After in whole seconds, at least one.
func tooMany(w http.ResponseWriter, r *http.Request, msg string, wait time.Duration) {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	api.Error(w, r, api.RateLimited, msg, map[string]any{"Seconds": secs})
}

// bearer returns the token of an Authorization header with the Bearer
// scheme (case-insensitive, RFC 7235).
func bearer(h string) (string, bool) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(h), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

// clientHost is the address part of a request's RemoteAddr: a client's
// port changes with every connection.
func clientHost(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}
