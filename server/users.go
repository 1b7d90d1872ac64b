package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/internal/api"
)

// Users manages users and their keys for the GM's settings page, as
// `hearth user` does on the command line. *auth.Keyring is one.
type Users interface {
	AddUser(ctx context.Context, name string, role access.Level) (auth.User, error)
	IssueKey(ctx context.Context, userName string) (string, auth.KeyInfo, error)
	Users(ctx context.Context) ([]auth.User, error)
	Keys(ctx context.Context, userName string) ([]auth.KeyInfo, error)
	Revoke(ctx context.Context, keyID string) error
}

var _ Users = (*auth.Keyring)(nil)

// userView is a user as GET /api/users lists it: never a key's secret or
// hash, only its id (the part after hth_ a key starts with).
type userView struct {
	Name string    `json:"name"`
	Role string    `json:"role"`
	Keys []keyView `json:"keys"`
}

type keyView struct {
	ID       string     `json:"id"`
	Prefix   string     `json:"prefix"` // how the key starts: hth_ID_
	Created  time.Time  `json:"created"`
	LastUsed *time.Time `json:"last_used,omitempty"`
	Revoked  *time.Time `json:"revoked,omitempty"`
	// Current marks the key this request was made with (directly or
	// through a session signed in with it): revoking it signs the caller
	// out.
	Current bool `json:"current,omitempty"`
}

func newKeyView(k auth.KeyInfo, current string) keyView {
	v := keyView{ID: k.ID, Prefix: "hth_" + k.ID + "_", Created: k.Created, Current: k.ID == current}
	if !k.LastUsed.IsZero() {
		t := k.LastUsed
		v.LastUsed = &t
	}
	if !k.Revoked.IsZero() {
		t := k.Revoked
		v.Revoked = &t
	}
	return v
}

// usersSays words the keyring's errors.
var usersSays = []api.Say{
	{Is: auth.ErrUserExists, ID: "users.exists"},
	{Is: auth.ErrNoUser, ID: "users.no_user"},
	{Is: auth.ErrNoKey, ID: "users.no_key"},
	{Is: auth.ErrInvalidName, ID: "users.bad_name"},
	{Is: auth.ErrInvalidRole, ID: "users.bad_role"},
}

// admin returns the keyring for a GM's request, or answers 403 (any other
// role) or 503 (a server without one) and returns nil.
func (s *Server) admin(w http.ResponseWriter, r *http.Request) Users {
	if user(r).Role < access.GM {
		api.Error(w, r, api.Forbidden, "users.gm_only", nil)
		return nil
	}
	if s.o.Users == nil {
		api.Error(w, r, api.Unavailable, "users.unavailable", nil)
		return nil
	}
	return s.o.Users
}

func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) {
	us := s.admin(w, r)
	if us == nil {
		return
	}
	all, err := us.Users(r.Context())
	if err != nil {
		s.fail(w, r, err, usersSays...)
		return
	}
	current, _ := keyIDFrom(r.Context())
	out := make([]userView, 0, len(all))
	for _, u := range all {
		ks, err := us.Keys(r.Context(), u.Name)
		if err != nil {
			s.fail(w, r, err, usersSays...)
			return
		}
		v := userView{Name: u.Name, Role: u.Role.String(), Keys: make([]keyView, 0, len(ks))}
		for _, k := range ks {
			v.Keys = append(v.Keys, newKeyView(k, current))
		}
		out = append(out, v)
	}
	api.JSON(w, http.StatusOK, map[string]any{"users": out})
}

// newKey is the answer of the routes that make a key: the key itself,
// which the server never shows again.
type newKey struct {
	User string  `json:"user"`
	Role string  `json:"role"`
	Key  string  `json:"key"`
	Info keyView `json:"info"`
}

func (s *Server) createUser(w http.ResponseWriter, r *http.Request) {
	us := s.admin(w, r)
	if us == nil {
		return
	}
	var req struct {
		Name string `json:"name"`
		Role string `json:"role"`
	}
	if !api.DecodeOrError(w, r, &req, s.o.MaxBodyBytes) {
		return
	}
	level, err := access.Parse(strings.TrimSpace(req.Role))
	if err != nil {
		api.Error(w, r, api.Invalid, "users.bad_role", nil)
		return
	}
	u, err := us.AddUser(r.Context(), strings.TrimSpace(req.Name), level)
	if err != nil {
		s.fail(w, r, err, usersSays...)
		return
	}
	s.issue(w, r, us, u.Name, u.Role)
}

func (s *Server) createKey(w http.ResponseWriter, r *http.Request) {
	us := s.admin(w, r)
	if us == nil {
		return
	}
	name := r.PathValue("name")
	all, err := us.Users(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for _, u := range all {
		if strings.EqualFold(u.Name, name) {
			s.issue(w, r, us, u.Name, u.Role)
			return
		}
	}
	s.fail(w, r, fmt.Errorf("user %q: %w", name, auth.ErrNoUser), usersSays...)
}

func (s *Server) issue(w http.ResponseWriter, r *http.Request, us Users, name string, role access.Level) {
	key, info, err := us.IssueKey(r.Context(), name)
	if err != nil {
		s.fail(w, r, err, usersSays...)
		return
	}
	s.log.InfoContext(r.Context(), "issued an API key", "user", name, "key", info.ID, "by", user(r).Name)
	// The key is in this response only; it must not sit in any cache.
	w.Header().Set("Cache-Control", "no-store")
	api.JSON(w, http.StatusCreated, newKey{User: name, Role: role.String(), Key: key, Info: newKeyView(info, "")})
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) {
	us := s.admin(w, r)
	if us == nil {
		return
	}
	id := r.PathValue("id")
	if err := us.Revoke(r.Context(), id); err != nil {
		s.fail(w, r, err, usersSays...)
		return
	}
	s.log.InfoContext(r.Context(), "revoked an API key", "key", id, "by", user(r).Name)
	w.WriteHeader(http.StatusNoContent)
}
