package server

import (
	"net/http"

	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/internal/api"
)

// fail answers a request that failed with err: the status comes from its
// code (api.Status), the words from says or the domain, and an internal
// error's details go only to the log.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error, says ...api.Say) {
	api.Fail(w, r, s.log, err, says...)
}

// chatSays words the assistant's errors for the chat routes.
var chatSays = []api.Say{
	{Is: assistant.ErrNoActive, ID: "chat.no_active"},
	{Is: assistant.ErrNotPaused, ID: "chat.not_paused"},
	{Is: assistant.ErrBusy, ID: "chat.busy"},
	{Code: api.NotFound, ID: "chat.no_conversation"},
	{Code: api.Invalid, ID: "chat.invalid"},
}
