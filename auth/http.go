package auth

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/hearth-rpg/hearth/internal/api"
)

// Authenticator turns an API key into the user it belongs to. *Keyring is
// one; errors wrapping ErrInvalidKey mean the key is not good, any other
// error that it could not be checked.
type Authenticator interface {
	Authenticate(ctx context.Context, key string) (User, error)
}

var _ Authenticator = (*Keyring)(nil)

// Require lets a request through to next only with a valid key in
// "Authorization: Bearer KEY", and within lim's rate for that key (nil lim:
// no limit). next finds the user with UserFrom; the role is the user's,
// whatever the request says.
//
// A missing or bad key is answered 401 with WWW-Authenticate: Bearer; a key
// over its rate, 429 with Retry-After. Error messages come from the
// localizer on the request's context (see i18n.With).
func Require(a Authenticator, lim *Limiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hearth"`)
			api.Error(w, r, api.Unauthorized, "auth.missing_key", nil)
			return
		}
		u, err := a.Authenticate(WithClient(r.Context(), clientHost(r.RemoteAddr)), key)
		if errors.Is(err, ErrInvalidKey) {
			slog.InfoContext(r.Context(), "refused API key", "remote", r.RemoteAddr, "path", r.URL.Path, "err", err)
			w.Header().Set("WWW-Authenticate", `Bearer realm="hearth", error="invalid_token"`)
			api.Error(w, r, api.Unauthorized, "auth.invalid_key", nil)
			return
		}
		if err != nil {
			api.Fail(w, r, slog.Default(), err)
			return
		}
		// Budgets are per key; an Authenticator with keys of another shape
		// gets one per user.
		id, _, err := parseKey(key)
		if err != nil {
			id = "user:" + u.ID
		}
		if ok, wait := lim.Allow(id); !ok {
			secs := int(wait.Seconds())
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			api.Error(w, r, api.RateLimited, "auth.rate_limited", map[string]any{"Seconds": secs})
			return
		}
		next.ServeHTTP(w, r.WithContext(WithUser(r.Context(), u)))
	})
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
