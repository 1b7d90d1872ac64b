package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/llm/openai"
)

// TestUsersAndKeys: the GM lists, creates and revokes through the API
// what `hearth user` manages; keys are shown once and revoked keys stop
// working; nobody else may touch any of it.
func TestUsersAndKeys(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	type key struct {
		ID, Prefix string
		Current    bool
		Revoked    *string
	}
	type users struct {
		Users []struct {
			Name, Role string
			Keys       []key
		}
	}
	list := decode[users](t, f.do("GET", "/api/users", f.gmKey, nil))
	if len(list.Users) != 3 {
		t.Fatalf("users %+v", list)
	}
	gm := list.Users[0]
	if gm.Name != "gm" || gm.Role != "gm_only" || len(gm.Keys) != 1 || !gm.Keys[0].Current || !strings.HasPrefix(f.gmKey, gm.Keys[0].Prefix) {
		t.Errorf("the GM as listed: %+v", gm)
	}
	raw := string(body(f.do("GET", "/api/users", f.gmKey, nil)))
	for _, k := range []string{f.gmKey, f.plKey, f.pl2Key} {
		if strings.Contains(raw, k) {
			t.Errorf("the user list holds a whole key: %s", raw)
		}
	}

	// A new user gets a key that works, shown in this answer only.
	type made struct {
		User, Role, Key string
		Info            key
	}
	resp := f.do("POST", "/api/users", f.gmKey, map[string]string{"name": "dora", "role": "trusted"})
	wantStatus(t, resp, http.StatusCreated, "")
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("a new key's answer may be cached: %q", cc)
	}
	dora := decode[made](t, resp)
	if dora.User != "dora" || dora.Role != "trusted" || !strings.HasPrefix(dora.Key, dora.Info.Prefix) {
		t.Fatalf("new user %+v", dora)
	}
	wantStatus(t, f.do("GET", "/api/documents", dora.Key, nil), http.StatusOK, "")
	second := decode[made](t, f.do("POST", "/api/users/dora/keys", f.gmKey, nil))
	if second.Key == "" || second.Key == dora.Key {
		t.Fatalf("second key %+v", second)
	}

	// Revoking the first leaves the second working.
	wantStatus(t, f.do("DELETE", "/api/keys/"+dora.Info.ID, f.gmKey, nil), http.StatusNoContent, "")
	wantStatus(t, f.do("GET", "/api/documents", dora.Key, nil), http.StatusUnauthorized, api.Unauthorized)
	wantStatus(t, f.do("GET", "/api/documents", second.Key, nil), http.StatusOK, "")
	list = decode[users](t, f.do("GET", "/api/users", f.gmKey, nil))
	for _, u := range list.Users {
		if u.Name == "dora" && (len(u.Keys) != 2 || u.Keys[0].Revoked == nil || u.Keys[1].Revoked != nil) {
			t.Errorf("dora's keys after the revocation: %+v", u.Keys)
		}
	}

	for _, c := range []struct {
		name, method, path string
		body               any
		status             int
		code               string
	}{
		{"same name", "POST", "/api/users", map[string]string{"name": "DORA", "role": "player"}, 409, "conflict"},
		{"bad role", "POST", "/api/users", map[string]string{"name": "eve", "role": "admin"}, 400, "invalid"},
		{"bad name", "POST", "/api/users", map[string]string{"name": "<b>", "role": "player"}, 400, "invalid"},
		{"key for nobody", "POST", "/api/users/nobody/keys", nil, 404, "not_found"},
		{"unknown key", "DELETE", "/api/keys/aaaaaaaaaaaaaaaa", nil, 404, "not_found"},
		{"malformed key id", "DELETE", "/api/keys/x", nil, 404, "not_found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantStatus(t, f.do(c.method, c.path, f.gmKey, c.body), c.status, hearth.Code(c.code))
		})
	}

	// Players, and a trusted user, are refused every route.
	for _, k := range []string{f.plKey, second.Key} {
		for _, r := range []struct{ method, path string }{
			{"GET", "/api/users"}, {"POST", "/api/users"}, {"POST", "/api/users/player/keys"},
			{"DELETE", "/api/keys/" + gm.Keys[0].ID}, {"GET", "/api/models/roles"}, {"POST", "/api/models/test"},
		} {
			resp := f.do(r.method, r.path, k, map[string]string{"name": "mallory", "role": "gm", "model": "m"})
			wantStatus(t, resp, http.StatusForbidden, api.Forbidden)
		}
	}
	wantStatus(t, f.do("GET", "/api/documents", f.gmKey, nil), http.StatusOK, "")
}

// fakeOpenAI speaks OpenAI's chat completions and model list on the
// wire: model "good" answers ok, any other is unknown.
func fakeOpenAI(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"object":"list","data":[{"id":"good","object":"model"},{"id":"gone","object":"model"}]}`)
		case "/v1/chat/completions":
			var req struct{ Model string }
			json.NewDecoder(r.Body).Decode(&req)
			if req.Model != "good" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprintf(w, `{"error":{"message":"The model %s does not exist","type":"invalid_request_error","code":"model_not_found"}}`, req.Model)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"good","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}`+"\n\n")
			fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"good","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
			fmt.Fprint(w, "data: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestModelConnectionTest(t *testing.T) {
	fake := fakeOpenAI(t)
	p, err := openai.New(fake.URL+"/v1", "sk-test")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOpts{provider: p})
	type result struct {
		OK        bool   `json:"ok"`
		Model     string `json:"model"`
		Reply     string `json:"reply"`
		Error     string `json:"error"`
		LatencyMS *int64 `json:"latency_ms"`
	}
	for _, c := range []struct {
		model, want string
		ok          bool
	}{
		{"good", "ok", true},
		{"gone", "does not exist", false},
	} {
		r := decode[result](t, f.do("POST", "/api/models/test", f.gmKey, map[string]string{"model": c.model}))
		if r.OK != c.ok || r.Model != c.model || r.LatencyMS == nil || !strings.Contains(r.Reply+r.Error, c.want) {
			t.Errorf("test of %s: %+v", c.model, r)
		}
		if strings.Contains(r.Error, "sk-test") {
			t.Errorf("the error names the provider's key: %s", r.Error)
		}
	}
	wantStatus(t, f.do("POST", "/api/models/test", f.gmKey, map[string]string{"model": " "}), http.StatusBadRequest, api.Invalid)
	roles := decode[struct {
		Roles    []struct{ Role, Provider, Model string }
		Editable bool
	}](t, f.do("GET", "/api/models/roles", f.gmKey, nil))
	if len(roles.Roles) != 1 || roles.Roles[0].Model != "narrator-1" || roles.Editable {
		t.Errorf("roles %+v", roles)
	}
}

// TestSearchExplain: explain gives each hit the rankings it came from;
// a player's explanation names nothing a player may not read, not even
// how many such passages there are.
func TestSearchExplain(t *testing.T) {
	f := newFixture(t, fixtureOpts{})
	type hit struct {
		DocumentID string `json:"document_id"`
		Explain    *struct {
			Rank    int
			Signals []struct {
				Kind  string
				Rank  int
				Score float64
			}
		}
	}
	type answer struct {
		Results  []hit
		Examined int
		Withheld *int
	}
	q := map[string]any{"query": "jump drive purser", "explain": true}
	gm := decode[answer](t, f.do("POST", "/api/search", f.gmKey, q))
	if len(gm.Results) < 2 || gm.Examined < 2 || gm.Withheld == nil || *gm.Withheld != 0 {
		t.Fatalf("GM explanation %+v", gm)
	}
	for _, h := range gm.Results {
		if h.Explain == nil || h.Explain.Rank < 1 || len(h.Explain.Signals) == 0 || h.Explain.Signals[0].Kind == "" {
			t.Errorf("hit without reasons: %+v", h)
		}
	}
	raw := body(f.do("POST", "/api/search", f.plKey, q))
	if strings.Contains(string(raw), "Karesh") || strings.Contains(string(raw), "secrets") || strings.Contains(string(raw), "withheld") {
		t.Errorf("a player's explanation leaks: %s", raw)
	}
	q["user_role"] = 1
	narrowed := decode[answer](t, f.do("POST", "/api/search", f.gmKey, q))
	if narrowed.Withheld == nil || *narrowed.Withheld < 1 {
		t.Errorf("a GM reading as a player is not told what was withheld: %+v", narrowed)
	}
	delete(q, "explain")
	if plain := string(body(f.do("POST", "/api/search", f.gmKey, q))); strings.Contains(plain, `"explain"`) {
		t.Errorf("explanations without asking: %s", plain)
	}
}
