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
	if log == nil {
		log = slog.Default()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hearth"`)
			api.Error(w, r, api.Unauthorized, "auth.missing_key", nil)
			return
		}
		ctx := r.Context()
		client := auth.ClientFrom(ctx)
		if client == "" {
			client = clientHost(r.RemoteAddr)
			ctx = auth.WithClient(ctx, client)
		}
		u, err := a.Authenticate(ctx, key)
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
		// Budgets are per key; an Authenticator with keys of another shape
		// gets one per user.
		id, err := auth.KeyID(key)
		if err != nil {
			id = "user:" + u.ID
		}
		if ok, wait := lim.Allow(id); !ok {
			tooMany(w, r, "auth.rate_limited", wait)
			return
		}
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
