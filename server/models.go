package server

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/llm"
)

// ModelRole is the model one role uses, as the configuration sets it.
type ModelRole struct {
	Role     string `json:"role"`
	Provider string `json:"provider"`
	Model    string `json:"model,omitempty"`
}

// modelTestTimeout bounds a connection test: a model that takes longer to
// say "ok" is not one a person wants to wait for.
const modelTestTimeout = 60 * time.Second

// modelRoles answers GET /api/models/roles: which model each role uses.
// They are set in the configuration file and read at start, so the answer
// says they cannot be changed here.
func (s *Server) modelRoles(w http.ResponseWriter, r *http.Request) {
	if user(r).Role < access.GM {
		api.Error(w, r, api.Forbidden, "models.gm_only", nil)
		return
	}
	roles := s.o.ModelRoles
	if roles == nil {
		roles = []ModelRole{}
	}
	api.JSON(w, http.StatusOK, map[string]any{"roles": roles, "editable": false})
}

// modelTest answers POST /api/models/test {model}: one tiny completion
// through the assistant's provider, with its latency or the provider's
// error in words. It spends the caller's budget like any model call, and
// runs one at a time so a page cannot queue many.
func (s *Server) modelTest(w http.ResponseWriter, r *http.Request) {
	if user(r).Role < access.GM {
		api.Error(w, r, api.Forbidden, "models.gm_only", nil)
		return
	}
	var req struct {
		Model string `json:"model"`
	}
	if !api.DecodeOrError(w, r, &req, s.o.MaxBodyBytes) {
		return
	}
	req.Model = strings.TrimSpace(req.Model)
	if req.Model == "" || len(req.Model) > 200 {
		api.Error(w, r, api.Invalid, "models.bad_model", nil)
		return
	}
	select {
	case s.modelTests <- struct{}{}:
		defer func() { <-s.modelTests }()
	default:
		s.fail(w, r, hearth.Errorf(hearth.Conflict, "a connection test is running"), api.Say{Code: api.Conflict, ID: "models.test_busy"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), modelTestTimeout)
	defer cancel()
	p := s.o.Assistant.Provider()
	start := time.Now()
	res, err := p.Chat(ctx, llm.Request{Model: req.Model, MaxTokens: 8,
		Messages: []llm.Message{{Role: llm.User, Content: "Reply with the single word: ok"}}}, nil)
	took := time.Since(start)
	out := map[string]any{"model": req.Model, "provider": p.Name(), "latency_ms": took.Milliseconds()}
	if err != nil {
		// The provider's own words, which name the server and the cause
		// (refused, unknown model, bad key) but never the key itself.
		s.log.InfoContext(r.Context(), "model connection test failed", "model", req.Model, "err", err)
		out["ok"], out["error"] = false, err.Error()
		api.JSON(w, http.StatusOK, out)
		return
	}
	out["ok"], out["reply"] = true, clipReply(res.Message.Content)
	api.JSON(w, http.StatusOK, out)
}

func clipReply(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}
