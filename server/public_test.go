package server_test

import (
	"io"
	"net/http"
	"testing"
)

// TestPublicRoutes: what Options.Public mounts is served without a key,
// and nothing else becomes public with it.
func TestPublicRoutes(t *testing.T) {
	f := newFixture(t, fixtureOpts{public: func(mux *http.ServeMux) {
		mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "shell") })
		mux.HandleFunc("GET /assets/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "asset") })
	}})
	for _, c := range []struct {
		method, path, key string
		want              int
		body              string
	}{
		{"GET", "/", "", 200, "shell"},
		{"HEAD", "/", "", 200, ""},
		{"GET", "/assets/v/app.js", "", 200, "asset"},
		{"POST", "/", "", 401, ""},
		{"GET", "/other", "", 401, ""},
		{"GET", "/api/documents", "", 401, ""},
		{"GET", "/api/documents", f.plKey, 200, ""},
		{"GET", "/", f.plKey, 200, "shell"},
	} {
		res := f.do(c.method, c.path, c.key, nil)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.want || (c.body != "" && string(b) != c.body) {
			t.Errorf("%s %s (key %t): %d %q, want %d %q", c.method, c.path, c.key != "", res.StatusCode, b, c.want, c.body)
		}
	}
}
