package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/auth/authtest"
	"github.com/hearth-rpg/hearth/auth/sqlitekeys"
	"github.com/hearth-rpg/hearth/i18n"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/server"
)

// keyring opens a keyring of cheap keys in a fresh file.
func keyring(t *testing.T, opts ...auth.Option) *auth.Keyring {
	t.Helper()
	kr, err := sqlitekeys.OpenKeyring(context.Background(), filepath.Join(t.TempDir(), "hearth.db"),
		append([]auth.Option{auth.WithParams(authtest.Cheap)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { kr.Close() })
	return kr
}

// userWithKey adds a user and issues them a key.
func userWithKey(t *testing.T, kr *auth.Keyring, name string, role access.Level) string {
	t.Helper()
	ctx := context.Background()
	if _, err := kr.AddUser(ctx, name, role); err != nil {
		t.Fatal(err)
	}
	key, _, err := kr.IssueKey(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// clock is a settable time for rate limits.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// whoami answers with the user the request was authenticated as.
var whoami = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	u, ok := auth.UserFrom(r.Context())
	if !ok {
		http.Error(w, "no user on the context", http.StatusInternalServerError)
		return
	}
	api.JSON(w, http.StatusOK, map[string]any{"name": u.Name, "role": u.Role})
})

// serve runs h behind the localizer a server puts on each request.
func serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	cat := i18n.MustLoad()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(i18n.With(r.Context(), cat.For(r.Header.Get("Accept-Language")))))
	}))
	t.Cleanup(srv.Close)
	return srv
}

type reply struct {
	status         int
	wwwAuth, retry string
	code           hearth.Code
	message, name  string
	role           access.Level
}

// call posts a body that claims the GM role: only the key may decide it.
func call(t *testing.T, srv *httptest.Server, authz, lang string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/chat", strings.NewReader(`{"role":"gm_only","name":"mallory"}`))
	if err != nil {
		t.Fatal(err)
	}
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	if lang != "" {
		req.Header.Set("Accept-Language", lang)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		api.ErrorBody
		Name string       `json:"name"`
		Role access.Level `json:"role"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("status %d: body: %v", resp.StatusCode, err)
	}
	return reply{resp.StatusCode, resp.Header.Get("WWW-Authenticate"), resp.Header.Get("Retry-After"),
		body.Error.Code, body.Error.Message, body.Name, body.Role}
}

func TestRequire(t *testing.T) {
	ctx := context.Background()
	kr := keyring(t)
	gmKey := userWithKey(t, kr, "gm", access.GM)
	patKey := userWithKey(t, kr, "pat", access.Player)
	revoked, info, err := kr.IssueKey(ctx, "pat")
	if err != nil {
		t.Fatal(err)
	}
	if err := kr.Revoke(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	goneKey := userWithKey(t, kr, "gone", access.GM)
	if _, err := kr.Authenticate(ctx, goneKey); err != nil { // cached before removal
		t.Fatal(err)
	}
	if err := kr.RemoveUser(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	i := strings.LastIndex(gmKey, "_")
	wrongSecret := gmKey[:i+1] + strings.Repeat("a", len(gmKey)-i-1)
	unknownID := "hth_" + strings.Repeat("a", 16) + gmKey[i:]
	srv := serve(t, server.Require(kr, nil, nil, whoami))

	tests := []struct {
		name, authz, lang string
		status            int
		wantInMessage     string
		user              string
		role              access.Level
	}{
		{"no header", "", "", 401, "hearth user add", "", 0},
		{"wrong scheme", "Basic " + gmKey, "", 401, "hearth user add", "", 0},
		{"no token", "Bearer ", "", 401, "hearth user add", "", 0},
		{"malformed key", "Bearer not-a-key", "", 401, "hearth user add", "", 0},
		{"unknown key id", "Bearer " + unknownID, "", 401, "hearth user add", "", 0},
		{"wrong secret", "Bearer " + wrongSecret, "", 401, "hearth user add", "", 0},
		{"revoked key", "Bearer " + revoked, "", 401, "hearth user add", "", 0},
		{"removed user", "Bearer " + goneKey, "", 401, "hearth user add", "", 0},
		{"in German", "Bearer " + wrongSecret, "de-DE,de;q=0.9", 401, "Schlüssel", "", 0},
		{"valid GM", "Bearer " + gmKey, "", 200, "", "gm", access.GM},
		{"valid player claiming GM", "Bearer " + patKey, "", 200, "", "pat", access.Player},
		{"scheme in lower case", "bearer " + patKey, "", 200, "", "pat", access.Player},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := call(t, srv, tt.authz, tt.lang)
			if got.status != tt.status {
				t.Fatalf("status %d, want %d (%+v)", got.status, tt.status, got)
			}
			if tt.status == 200 {
				if got.name != tt.user || got.role != tt.role {
					t.Errorf("authenticated as %s (%v), want %s (%v)", got.name, got.role, tt.user, tt.role)
				}
				return
			}
			if !strings.HasPrefix(got.wwwAuth, "Bearer") || got.code != api.Unauthorized || !strings.Contains(got.message, tt.wantInMessage) {
				t.Errorf("got %+v; want WWW-Authenticate Bearer, code unauthorized, message with %q", got, tt.wantInMessage)
			}
			if strings.Contains(got.message, "auth.") {
				t.Errorf("message is a catalog id: %q", got.message)
			}
		})
	}
}

// failing is an Authenticator whose database is down.
type failing struct{}

func (failing) Authenticate(context.Context, string) (auth.User, error) {
	return auth.User{}, errors.New("disk on fire")
}

func TestRequireInternalError(t *testing.T) {
	srv := serve(t, server.Require(failing{}, nil, nil, whoami))
	got := call(t, srv, "Bearer hth_aaaaaaaaaaaaaaaa_"+strings.Repeat("a", 48), "")
	if got.status != 500 || got.code != api.Internal || strings.Contains(got.message, "fire") {
		t.Errorf("got %+v; want 500 internal without the details", got)
	}
}

func TestRequireRateLimit(t *testing.T) {
	kr := keyring(t)
	gmKey := userWithKey(t, kr, "gm", access.GM)
	patKey := userWithKey(t, kr, "pat", access.Player)
	clk := &clock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	lim := auth.NewLimiter(6, 3) // one every 10 s, 3 at once
	lim.SetClock(clk.Now)
	srv := serve(t, server.Require(kr, lim, nil, whoami))

	for i := range 3 {
		if got := call(t, srv, "Bearer "+gmKey, ""); got.status != 200 {
			t.Fatalf("request %d within the burst: %+v", i+1, got)
		}
	}
	got := call(t, srv, "Bearer "+gmKey, "")
	if got.status != 429 || got.code != api.RateLimited || got.retry != "10" || !strings.Contains(got.message, "10") {
		t.Errorf("over the limit: %+v; want 429 rate_limited, Retry-After 10", got)
	}
	if got := call(t, srv, "Bearer "+patKey, ""); got.status != 200 {
		t.Errorf("another key shares the budget: %+v", got)
	}
	clk.Add(4 * time.Second)
	if got := call(t, srv, "Bearer "+gmKey, ""); got.status != 429 || got.retry != "6" {
		t.Errorf("4 s later: %+v; want 429, Retry-After 6", got)
	}
	clk.Add(6 * time.Second)
	if got := call(t, srv, "Bearer "+gmKey, ""); got.status != 200 {
		t.Errorf("after Retry-After: %+v", got)
	}
	if got := call(t, srv, "Bearer not-a-key", ""); got.status != 401 {
		t.Errorf("a bad key is refused before the limit: %+v", got)
	}
}

// Ten wrong secrets for a key id from one address: past the budget they
// are answered 429 with Retry-After, not a misleading 401, and the real
// key, not cached, still gets in from that same address.
func TestRequireThrottle(t *testing.T) {
	kr := keyring(t, auth.WithCacheTTL(0))
	gmKey := userWithKey(t, kr, "gm", access.GM)
	srv := serve(t, server.Require(kr, nil, nil, whoami))
	for i, w := range authtest.WrongSecrets(t, gmKey, 10) {
		got := call(t, srv, "Bearer "+w, "")
		if i < auth.FailureBurst {
			if got.status != 401 || got.retry != "" {
				t.Errorf("wrong secret %d, within the budget: %+v; want 401", i+1, got)
			}
			continue
		}
		if got.status != 429 || got.code != api.RateLimited || got.retry == "" || got.retry == "0" ||
			!strings.Contains(got.message, got.retry) || got.wwwAuth != "" {
			t.Errorf("wrong secret %d, past the budget: %+v; want 429 rate_limited with Retry-After", i+1, got)
		}
	}
	if got := call(t, srv, "Bearer "+gmKey, ""); got.status != 200 || got.name != "gm" {
		t.Errorf("the real key after 10 wrong ones from its address: %+v", got)
	}
	if got := call(t, srv, "Bearer "+gmKey, "de"); got.status != 200 {
		t.Errorf("the real key again: %+v", got)
	}
}

// A client address put on the context ahead of Require (a server behind
// a trusted proxy does) is the one failures are counted for.
func TestRequireClientFromContext(t *testing.T) {
	kr := keyring(t, auth.WithCacheTTL(0))
	gmKey := userWithKey(t, kr, "gm", access.GM)
	var client atomic.Value
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		server.Require(kr, nil, nil, whoami).ServeHTTP(w, r.WithContext(auth.WithClient(r.Context(), client.Load().(string))))
	}))
	wrong := authtest.WrongSecrets(t, gmKey, auth.FailureBurst+1)
	client.Store("203.0.113.9")
	for _, w := range wrong[:auth.FailureBurst] {
		call(t, srv, "Bearer "+w, "")
	}
	if got := call(t, srv, "Bearer "+wrong[auth.FailureBurst], ""); got.status != 429 {
		t.Fatalf("past the budget: %+v; want 429", got)
	}
	client.Store("198.51.100.7")
	if got := call(t, srv, "Bearer "+wrong[auth.FailureBurst], ""); got.status != 401 {
		t.Errorf("another client, same peer: %+v; want 401, its own budget", got)
	}
}
