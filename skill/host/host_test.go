package host_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/skill/host"
)

type memStore struct {
	mems []host.NewMemory
	rep  map[string]int
}

func (m *memStore) Recall(_ context.Context, q string, limit int) ([]host.Memory, error) {
	var out []host.Memory
	for i, x := range m.mems {
		if strings.Contains(strings.ToLower(x.Summary), strings.ToLower(q)) && len(out) < limit {
			out = append(out, host.Memory{Turn: i + 1, Summary: x.Summary, Kind: x.Kind, Relevance: 1})
		}
	}
	return out, nil
}
func (m *memStore) Remember(_ context.Context, n host.NewMemory) error {
	m.mems = append(m.mems, n)
	return nil
}
func (m *memStore) Reputation(f string) (int, bool) { v, ok := m.rep[f]; return v, ok }
func (m *memStore) Perception(n string) (int, bool) { return 0, n == "maren" }

func call(t *testing.T, method, url, token, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

func TestHostAPI(t *testing.T) {
	s, err := host.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st := &memStore{rep: map[string]int{"guild": 65}}
	env, revoke := s.Grant(st, time.Minute)
	var api, tok string
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, host.EnvAPI+"="); ok {
			api = v
		}
		if v, ok := strings.CutPrefix(e, host.EnvToken+"="); ok {
			tok = v
		}
	}
	if !strings.HasPrefix(api, "http://127.0.0.1:") || len(tok) < 32 {
		t.Fatalf("grant env: %v", env)
	}
	if code, _ := call(t, "GET", api+"/v1/reputation/guild", "", ""); code != 401 {
		t.Errorf("no token: %d", code)
	}
	if code, _ := call(t, "GET", api+"/v1/reputation/guild", "forged", ""); code != 401 {
		t.Errorf("forged token: %d", code)
	}
	if code, m := call(t, "GET", api+"/v1/reputation/guild", tok, ""); code != 200 || m["reputation"] != 65.0 || m["tier"] != "friendly" {
		t.Errorf("reputation: %d %v", code, m)
	}
	if code, m := call(t, "GET", api+"/v1/reputation/nobody", tok, ""); code != 404 || m["error"] == nil {
		t.Errorf("unknown faction: %d %v", code, m)
	}
	if code, _ := call(t, "POST", api+"/v1/memories", tok, `{"summary":"Kestrel relit the lantern.","kind":"triumph","significance":9}`); code != 200 {
		t.Errorf("remember: %d", code)
	}
	if code, m := call(t, "POST", api+"/v1/memories", tok, `{"summary":"  "}`); code != 400 || !strings.Contains(m["error"].(string), "summary") {
		t.Errorf("empty memory: %d %v", code, m)
	}
	if code, _ := call(t, "POST", api+"/v1/memories", tok, `{"summary":"`+strings.Repeat("x", host.MaxBody)+`"}`); code != 413 {
		t.Errorf("huge body: %d", code)
	}
	code, m := call(t, "POST", api+"/v1/memories/search", tok, `{"query":"lantern"}`)
	if ms, _ := m["memories"].([]any); code != 200 || len(ms) != 1 {
		t.Errorf("search: %d %v", code, m)
	}
	revoke()
	if code, _ := call(t, "GET", api+"/v1/perception/maren", tok, ""); code != 401 {
		t.Errorf("revoked token still works: %d", code)
	}
	_, revoke2 := s.Grant(st, -time.Second) // already expired
	defer revoke2()
}

func TestTier(t *testing.T) {
	for v, want := range map[int]string{100: "devoted", 60: "friendly", 30: "warm", 0: "neutral", -30: "wary", -60: "hostile", -95: "hated"} {
		if got := host.Tier(v); got != want {
			t.Errorf("Tier(%d) = %s, want %s", v, got, want)
		}
	}
}
