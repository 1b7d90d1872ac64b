package server

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/i18n"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/llm"
)

// keepAlive is how often a stream gets a comment line by default.
const keepAlive = 15 * time.Second

// user returns the authenticated user; the middleware guarantees one.
func user(r *http.Request) auth.User {
	u, _ := auth.UserFrom(r.Context())
	return u
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	ms, err := s.o.Assistant.Models(r.Context())
	if err != nil {
		s.log.WarnContext(r.Context(), "list models", "err", err)
		api.Error(w, r, api.Unavailable, "chat.models_unavailable", nil)
		return
	}
	if ms == nil {
		ms = []llm.Model{}
	}
	api.JSON(w, http.StatusOK, ms)
}

// chatAnswer is the non-streaming reply of /api/chat.
type chatAnswer struct {
	ConversationID string     `json:"conversation_id"`
	Content        string     `json:"content"`
	ToolCallsMade  int        `json:"tool_calls_made"`
	Usage          *llm.Usage `json:"usage,omitempty"`
	Cancelled      bool       `json:"cancelled,omitempty"`
	Stopped        string     `json:"stopped,omitempty"`
	Error          string     `json:"error,omitempty"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req assistant.Request
	if !api.DecodeOrError(w, r, &req, s.o.MaxBodyBytes) {
		return
	}
	u := user(r)
	loc := i18n.From(r.Context())
	count := func(e agent.Event) {
		switch e.Type {
		case agent.ToolCall:
			s.metrics.toolCall(e.Tool, "external")
		case agent.ToolResult:
			s.metrics.toolCall(e.Tool, "internal")
		}
	}
	if !req.Streaming() {
		s.chatOnce(w, r, u, req, count)
		return
	}
	stream := newSSE(w)
	sink := func(e agent.Event) {
		count(e)
		stream.send(localize(loc, e))
	}
	// The chat runs here, on the handler's goroutine, which would
	// otherwise only wait for it: a goroutine less a chat, and this one's
	// stack has grown already. The keep-alive comments come from a timer.
	a, run, err := s.o.Assistant.Prepare(r.Context(), u, req, sink)
	if err != nil {
		s.chatError(w, r, err)
		return
	}
	w.Header().Set("X-Conversation-ID", a.ConversationID)
	stream.start()
	stream.keepAlive(s.o.KeepAlive)
	defer stream.stop()
	run() // returns once the chat has ended and been saved
}

// chatOnce runs a chat to its end and answers with one JSON object, for
// one-shot queries (seed 000 §3.4).
func (s *Server) chatOnce(w http.ResponseWriter, r *http.Request, u auth.User, req assistant.Request, count func(agent.Event)) {
	a, run, err := s.o.Assistant.Prepare(r.Context(), u, req, count)
	if err != nil {
		s.chatError(w, r, err)
		return
	}
	run()
	out, runErr := a.Wait()
	if r.Context().Err() != nil {
		return // nobody to answer
	}
	ans := chatAnswer{ConversationID: a.ConversationID}
	if out != nil {
		ans.Content, ans.ToolCallsMade, ans.Cancelled, ans.Stopped = out.Text, out.ToolCalls, out.Cancelled, out.Stopped
		usage := out.Usage
		ans.Usage = &usage
	}
	if runErr != nil {
		s.log.WarnContext(r.Context(), "chat failed", "conversation", a.ConversationID, "err", runErr)
		ans.Error = i18n.From(r.Context()).T("chat.failed", nil)
	}
	w.Header().Set("X-Conversation-ID", a.ConversationID)
	api.JSON(w, http.StatusOK, ans)
}

// localize replaces the English texts the agent loop writes for people
// (pause questions, tool progress) with the catalog's, in the reader's
// language. Tool names and model text pass unchanged.
func localize(loc i18n.Localizer, e agent.Event) agent.Event {
	switch e.Type {
	case agent.Pause:
		id := "chat.pause_tools"
		if e.Reason == agent.TimeLimit {
			id = "chat.pause_time"
		}
		e.Message = loc.T(id, map[string]any{"Calls": e.ToolCallsMade, "Seconds": e.ElapsedSeconds})
	case agent.ToolStatus:
		e.Message = loc.T("tool."+toolOf(e), map[string]any{"Message": e.Message})
	case agent.Error:
		e.Message = loc.T("chat.error", map[string]any{"Reason": e.Message})
	}
	return e
}

// toolOf names the tool a tool_status event is about; the agent puts the
// tool's Status text in Message and the tool in Tool when it knows it.
func toolOf(e agent.Event) string {
	if e.Tool != "" {
		return e.Tool
	}
	return "running"
}

func (s *Server) chatError(w http.ResponseWriter, r *http.Request, err error) {
	s.fail(w, r, err, chatSays...)
}

type toolResultRequest struct {
	ConversationID string          `json:"conversation_id"`
	ToolCallID     string          `json:"tool_call_id"`
	Result         json.RawMessage `json:"result"`
}

// toolResult hands the client's result of a tool it ran to the chat
// waiting for it, here or, through Options.Chats, on the server running
// the chat.
func (s *Server) toolResult(w http.ResponseWriter, r *http.Request) {
	var req toolResultRequest
	if !api.DecodeOrError(w, r, &req, s.o.MaxBodyBytes) {
		return
	}
	if req.ConversationID == "" || req.ToolCallID == "" {
		api.Error(w, r, api.Invalid, "chat.tool_result_fields", nil)
		return
	}
	if len(req.Result) == 0 {
		req.Result = json.RawMessage("null")
	}
	if _, err := s.reply(r.Context(), relayed{Op: "tool_result", UserID: user(r).ID, ConversationID: req.ConversationID, ToolCallID: req.ToolCallID, Result: req.Result}); err != nil {
		s.fail(w, r, err, append([]api.Say{{Is: assistant.ErrWrongCall, ID: "chat.wrong_call", Data: map[string]any{"ID": req.ToolCallID}}}, chatSays...)...)
		return
	}
	api.JSON(w, http.StatusOK, map[string]string{"status": "accepted"})
}

// cancelAnswer is the reply to a cancel: the partial results.
type cancelAnswer struct {
	Status string `json:"status"`
	Action string `json:"action"`
	assistant.Partial
}

type continueRequest struct {
	ConversationID string `json:"conversation_id"`
	Action         string `json:"action"`
}

// continueChat answers a paused chat, here or, through Options.Chats, on
// the server running it.
func (s *Server) continueChat(w http.ResponseWriter, r *http.Request) {
	var req continueRequest
	if !api.DecodeOrError(w, r, &req, s.o.MaxBodyBytes) {
		return
	}
	if req.Action == "cancel" {
		// The run ends at once, whatever it waits for; the answer is what
		// it had gathered (seed 000 §2.4.5), and its stream ends with done.
		p, err := s.reply(r.Context(), relayed{Op: "cancel", UserID: user(r).ID, ConversationID: req.ConversationID})
		if err != nil {
			s.chatError(w, r, err)
			return
		}
		api.JSON(w, http.StatusOK, cancelAnswer{Status: "cancelled", Action: req.Action, Partial: p})
		return
	}
	if _, err := s.reply(r.Context(), relayed{Op: "continue", UserID: user(r).ID, ConversationID: req.ConversationID, Action: req.Action}); err != nil {
		s.chatError(w, r, err)
		return
	}
	api.JSON(w, http.StatusOK, map[string]string{"status": "accepted", "action": req.Action})
}

func (s *Server) listConversations(w http.ResponseWriter, r *http.Request) {
	list, err := s.o.Assistant.Conversations().List(r.Context(), user(r).ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if list == nil {
		list = []assistant.Summary{}
	}
	api.JSON(w, http.StatusOK, list)
}

func (s *Server) getConversation(w http.ResponseWriter, r *http.Request) {
	c, err := s.o.Assistant.Conversations().Get(r.Context(), user(r).ID, r.PathValue("id"))
	if err != nil {
		s.chatError(w, r, err)
		return
	}
	api.JSON(w, http.StatusOK, c)
}

func (s *Server) deleteConversation(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if s.o.Assistant.IsActive(id) {
		s.chatError(w, r, assistant.ErrBusy)
		return
	}
	if err := s.o.Assistant.Conversations().Delete(r.Context(), user(r).ID, id); err != nil {
		s.chatError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
