package security

import (
	"encoding/json"
	"net/http"
	"strings"
)

// settings attacks the GM's settings routes (users, keys, model roles,
// the model connection test) as a player: every one is refused, names no
// user, key id or key, and changes nothing. A GM positive control shows
// the routes do answer.
func (s *suite) settings() {
	gmID, annID := s.f.gm[4:20], s.f.ann[4:20]
	refused := func(name, pattern, method, path, body string) {
		s.t.Helper()
		code, b := s.player(name, pattern, method, path, body)
		if code != http.StatusForbidden {
			s.t.Errorf("%s: a player got %d, want 403: %.300s", name, code, b)
		}
		for _, bad := range []string{gmID, annID, "hth_", `"users"`, `"roles"`} {
			if strings.Contains(b, bad) {
				s.t.Errorf("%s: a player's answer holds %q: %.300s", name, bad, b)
			}
		}
	}
	for _, p := range []string{"/api/users", "/api/users?role=gm", "/api/users?user=gm"} {
		refused("list users "+p, "GET /api/users", "GET", p, "")
	}
	for _, b := range []string{`{"name":"mallory","role":"gm"}`, `{"name":"mallory","role":"player"}`, `{"name":"ann","role":"gm"}`, `{"name":"gm","role":"gm_only"}`} {
		refused("create user "+b, "POST /api/users", "POST", "/api/users", b)
	}
	for _, n := range []string{"gm", "GM", "ann", "bob", "mallory", "gm%2fkeys", "..%2fgm"} {
		refused("issue a key for "+n, "POST /api/users/{name}/keys", "POST", "/api/users/"+n+"/keys", "")
	}
	for _, id := range []string{gmID, strings.ToUpper(gmID), s.f.bob[4:20], annID} {
		refused("revoke "+id, "DELETE /api/keys/{id}", "DELETE", "/api/keys/"+id, "")
	}
	refused("model roles", "GET /api/models/roles", "GET", "/api/models/roles", "")
	refused("model roles as gm", "GET /api/models/roles", "GET", "/api/models/roles?role=gm", "")
	refused("model test", "POST /api/models/test", "POST", "/api/models/test", `{"model":"offline"}`)
	refused("model test with role", "POST /api/models/test", "POST", "/api/models/test", `{"model":"offline","user_role":4}`)

	// Nothing changed: no mallory, the GM's and ann's keys still work.
	code, body := s.get(s.f.gm, "/api/users")
	var list struct {
		Users []struct {
			Name string
			Keys []struct {
				ID      string
				Revoked *string
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil || code != http.StatusOK || len(list.Users) < 3 {
		s.t.Fatalf("GM lists users: %d %v %.300s", code, err, body)
	}
	for _, u := range list.Users {
		if u.Name == "mallory" {
			s.t.Error("a player created a user")
		}
		for _, k := range u.Keys {
			if k.Revoked != nil {
				s.t.Errorf("a player revoked %s's key %s", u.Name, k.ID)
			}
		}
	}
	if strings.Contains(body, s.f.gm) || strings.Contains(body, s.f.ann) {
		s.t.Error("the GM's user list holds a whole key")
	}
	if code, _ := s.get(s.f.ann, "/api/documents"); code != http.StatusOK {
		s.t.Errorf("ann's key stopped working after the attacks: %d", code)
	}
	if code, body := s.get(s.f.gm, "/api/models/roles"); code != http.StatusOK || !strings.Contains(body, "narrator") {
		s.t.Errorf("GM model roles: %d %.300s", code, body)
	}
}
