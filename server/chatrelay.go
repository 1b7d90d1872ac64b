package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/assistant"
)

// ChatRelay carries a chat's tool result, continue or cancel to the
// server running it, when several servers share one database
// (internal/pglive.Hub is one). A chat's pending state is not data: it is
// a running agent loop, its model stream and the client's SSE stream,
// all on the server that took POST /api/chat. So a reply that arrives at
// another server is forwarded there as a call named "chat:" + the
// conversation's id, answered only by the server whose assistant has that
// conversation active; the chat's answer goes on streaming on the
// client's open stream.
type ChatRelay interface {
	// Call sends req to the process that answers name and waits for its
	// reply, until ctx ends.
	Call(ctx context.Context, name string, req []byte) ([]byte, error)
	// Answer serves the calls whose name starts with prefix with on,
	// while owns says this process holds what name names.
	Answer(prefix string, on func(ctx context.Context, name string, req []byte) ([]byte, error), owns func(name string) bool)
}

// chatPrefix names a chat's calls.
const chatPrefix = "chat:"

// relayWait bounds how long a reply looks for the server running its
// chat: the owner answers the first announcement, so only a chat that
// runs nowhere (finished, or its server stopped) waits it out, and is
// then answered as no active request.
const relayWait = 10 * time.Second

// relayed is a chat reply forwarded to the server running the chat; the
// user is the one the forwarding server authenticated.
type relayed struct {
	Op             string          `json:"op"` // tool_result, continue, cancel
	UserID         string          `json:"user_id"`
	ConversationID string          `json:"conversation_id"`
	ToolCallID     string          `json:"tool_call_id,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Action         string          `json:"action,omitempty"`
}

// relayAnswer is the running server's outcome. Kind names the assistant's
// error, so that the forwarding server words it as its own.
type relayAnswer struct {
	Kind    string             `json:"kind,omitempty"`
	Code    hearth.Code        `json:"code,omitempty"`
	Message string             `json:"message,omitempty"`
	Partial *assistant.Partial `json:"partial,omitempty"`
}

var relayKinds = map[string]error{
	"no_active":  assistant.ErrNoActive,
	"wrong_call": assistant.ErrWrongCall,
	"not_paused": assistant.ErrNotPaused,
	"busy":       assistant.ErrBusy,
}

// serveRelay answers the chat replies other servers forward for the
// chats running here.
func (s *Server) serveRelay() {
	if s.o.Chats == nil {
		return
	}
	s.o.Chats.Answer(chatPrefix, s.answerRelayed, func(name string) bool {
		return s.o.Assistant.IsActive(strings.TrimPrefix(name, chatPrefix))
	})
}

func (s *Server) answerRelayed(ctx context.Context, name string, body []byte) ([]byte, error) {
	var req relayed
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	if req.ConversationID != strings.TrimPrefix(name, chatPrefix) {
		return nil, errors.New("a chat reply for another conversation")
	}
	p, err := s.runReply(ctx, req)
	var out relayAnswer
	if req.Op == "cancel" && err == nil {
		out.Partial = &p
	}
	if err != nil {
		out.Code, out.Message = hearth.ErrorCode(err), err.Error()
		for k, e := range relayKinds {
			if errors.Is(err, e) {
				out.Kind = k
			}
		}
		var inv *assistant.InvalidError
		if errors.As(err, &inv) {
			out.Kind = "invalid"
		}
	}
	return json.Marshal(out)
}

// runReply gives a chat reply to this server's assistant.
func (s *Server) runReply(ctx context.Context, req relayed) (assistant.Partial, error) {
	as := s.o.Assistant
	switch req.Op {
	case "tool_result":
		return assistant.Partial{}, as.ToolResult(req.UserID, req.ConversationID, req.ToolCallID, req.Result)
	case "cancel":
		return as.Cancel(ctx, req.UserID, req.ConversationID)
	case "continue":
		return assistant.Partial{}, as.Continue(req.UserID, req.ConversationID, req.Action)
	}
	return assistant.Partial{}, hearth.Errorf(hearth.Invalid, "chat reply %q: use tool_result, continue or cancel", req.Op)
}

// reply runs a chat reply here, or, when the chat runs on another server
// sharing the database, there.
func (s *Server) reply(ctx context.Context, req relayed) (assistant.Partial, error) {
	p, err := s.runReply(ctx, req)
	if s.o.Chats == nil || !errors.Is(err, assistant.ErrNoActive) || s.o.Assistant.IsActive(req.ConversationID) {
		return p, err
	}
	body, err := json.Marshal(req)
	if err != nil {
		return p, err
	}
	cctx, cancel := context.WithTimeout(ctx, relayWait)
	defer cancel()
	b, err := s.o.Chats.Call(cctx, chatPrefix+req.ConversationID, body)
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			return p, assistant.ErrNoActive // no server runs it
		}
		return p, err
	}
	var out relayAnswer
	if err := json.Unmarshal(b, &out); err != nil {
		return p, err
	}
	switch {
	case relayKinds[out.Kind] != nil:
		return p, relayKinds[out.Kind]
	case out.Kind == "invalid":
		return p, &assistant.InvalidError{Msg: out.Message}
	case out.Code != "":
		return p, &hearth.Error{Code: out.Code, Message: out.Message}
	case out.Partial != nil:
		return *out.Partial, nil
	}
	return p, nil
}
