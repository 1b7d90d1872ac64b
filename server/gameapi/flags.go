package gameapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/internal/api"
)

// FlagRequest is the body of POST /api/sessions/{id}/turns/{n}/flag.
type FlagRequest struct {
	Reason string `json:"reason"`
}

// flagTurn serves POST /api/sessions/{id}/turns/{n}/flag: any user who
// may play the game flags one of its turns as wrong, with why (seed 004's
// flagging tool). The flag names the user who made it, never one the body
// names; it is kept beside the turn, so the game, its clients and its
// branches are as they were. Answers 201 game.Flag.
func (s *Server) flagTurn(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 {
		api.Error(w, r, api.Invalid, "gameapi.flag_turn", map[string]any{"Turn": clip(r.PathValue("n"))})
		return
	}
	s.withLive(w, r, 0, func(l *live, u auth.User) {
		var req FlagRequest
		if !api.DecodeOrError(w, r, &req, maxBody) {
			return
		}
		f, err := l.session().Flag(context.WithoutCancel(r.Context()), n, u.Name, req.Reason)
		if err != nil {
			s.fail(w, r, l.id, err)
			return
		}
		api.JSON(w, http.StatusCreated, f)
	})
}
