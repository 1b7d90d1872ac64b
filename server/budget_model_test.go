package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/server"
)

// The model budget is spent only by routes that make a model work, the
// server's own and the mounted ones named in ModelRoutes; reading is not
// refused however often, and each key has its own budget.
func TestModelBudgetOnlyOnModelRoutes(t *testing.T) {
	mount := func(mux *http.ServeMux) {
		mux.HandleFunc("POST /api/games/{id}/paint", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) })
		mux.HandleFunc("GET /api/games/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	}
	f := newFixture(t, fixtureOpts{model: &budget{perMin: 1, burst: 3}, mount: mount,
		modelRoutes: []string{"POST /api/games/{id}/paint"}})
	for i := range 100 {
		for _, path := range []string{"/api/documents", "/api/games/g1"} {
			if resp := f.do("GET", path, f.gmKey, nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s number %d: %d", path, i+1, resp.StatusCode)
			}
		}
	}
	// Three model requests of different routes spend the burst (the
	// continue of no conversation is refused by its handler, after the
	// budget), and the fourth is 429 whatever its route.
	wantStatus(t, f.do("POST", "/api/chat/continue", f.gmKey, map[string]string{"conversation_id": "none", "action": "continue"}), 404, "")
	wantStatus(t, f.do("POST", "/api/games/g1/paint", f.gmKey, nil), http.StatusAccepted, "")
	wantStatus(t, f.do("POST", "/api/search", f.gmKey, map[string]string{"query": "jump drive"}), 200, "")
	for _, path := range []string{"/api/chat", "/api/search", "/api/games/g2/paint"} {
		resp := f.do("POST", path, f.gmKey, map[string]any{"messages": userMsg("hello"), "stream": false})
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s past the model budget: %d, Retry-After %q", path, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		resp.Body.Close()
	}
	wantStatus(t, f.do("GET", "/api/documents", f.gmKey, nil), 200, "")
	wantStatus(t, f.do("POST", "/api/games/g1/paint", f.plKey, nil), http.StatusAccepted, "")
}

func TestModelRoutesMustBeRegistered(t *testing.T) {
	tests := []struct {
		name    string
		routes  []string
		wantErr bool
	}{
		{"registered", []string{"POST /api/games/{id}/paint"}, false},
		{"other method", []string{"GET /api/games/{id}/paint"}, true},
		{"not mounted", []string{"POST /api/games/{id}/sculpt"}, true},
		{"caught by the catch-all", []string{"POST /api/"}, true},
	}
	f := newFixture(t, fixtureOpts{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := f.opts
			o.Mount = func(mux *http.ServeMux) {
				mux.HandleFunc("POST /api/games/{id}/paint", func(w http.ResponseWriter, r *http.Request) {})
			}
			o.ModelRoutes = tt.routes
			_, err := server.New(o)
			if (err != nil) != tt.wantErr {
				t.Fatalf("New: %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tt.routes[0]) {
				t.Errorf("the error does not name the route: %v", err)
			}
		})
	}
}
