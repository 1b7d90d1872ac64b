package gameapi

import (
	"context"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/world"
)

// The methods below let other doors (the MCP server) play through the same
// live sessions, so a turn taken there streams to every WebSocket client.
// Each acts as the auth.User on ctx; a context without one is the GM (an MCP
// client on stdio, seed 000 §4.7).

// userOf is the user on ctx, or the GM named "mcp".
func userOf(ctx context.Context) auth.User {
	if u, ok := auth.UserFrom(ctx); ok {
		return u
	}
	return auth.User{ID: "mcp", Name: "mcp", Role: access.GM}
}

// Sessions lists the stored games, most recently played first.
func (s *Server) Sessions(ctx context.Context) ([]SessionInfo, error) {
	ms, err := s.o.Store.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]SessionInfo, 0, len(ms))
	for i := range ms {
		in, err := s.info(ctx, &ms[i])
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

// State returns a game's world as the caller's role may see it.
func (s *Server) State(ctx context.Context, id string) (*world.State, error) {
	l, err := s.acquire(ctx, id)
	if err != nil {
		return nil, err
	}
	defer s.release(l)
	return l.view(l.viewerOf(userOf(ctx))), nil
}

// Act plays a turn in a game with input, as the caller.
func (s *Server) Act(ctx context.Context, id, input string) (*game.Response, error) {
	input = strings.TrimSpace(input)
	if input == "" {
		return nil, problem("gameapi.msg.empty_content", "Type", HumanAction)
	}
	if len(input) > game.MaxInput {
		return nil, problem("gameapi.msg.too_long", "Length", len(input), "Limit", game.MaxInput)
	}
	l, err := s.acquire(ctx, id)
	if err != nil {
		return nil, err
	}
	defer s.release(l)
	u := userOf(ctx)
	j, err := l.humanPlay(u, input)
	if err != nil {
		return nil, err
	}
	return l.turn(game.Play{Input: input, Agent: j.agent, Controller: j.by})
}

// Active counts the games loaded for play.
func (s *Server) Active() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live)
}
