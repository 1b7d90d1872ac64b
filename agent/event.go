package agent

import (
	"encoding/json"

	"github.com/hearth-rpg/hearth/llm"
)

// Event types, as the SSE stream names them.
const (
	Content    = "content"
	ToolCall   = "tool_call"
	ToolStatus = "tool_status"
	ToolResult = "tool_result"
	Pause      = "pause"
	Error      = "error"
	Done       = "done"
	// HistoryTrimmed tells the client that older turns of the conversation
	// no longer fit the model's context and were summarised (seed 000
	// §2.2: "summarized or dropped with user notification"). The loop does
	// not emit it; the assistant does, before the run.
	HistoryTrimmed = "history_trimmed"
)

// Pause reasons.
const (
	ToolLimit = "tool_limit"
	TimeLimit = "time_limit"
)

// Event is one step of a run. Which fields are set depends on Type; it
// encodes to exactly the shape of that event type in the SSE protocol.
type Event struct {
	Type string
	// content
	Text string
	// tool_call, tool_result
	ID   string
	Tool string
	Args json.RawMessage // tool_call
	// tool_result
	Summary string
	// tool_status, pause, error
	Message string
	// pause
	Reason         string
	ToolCallsMade  int
	ElapsedSeconds int
	// error
	Recoverable bool
	// done
	Usage *llm.Usage
	// history_trimmed: messages left out of the model's context (and
	// summarised), kept in it, and the context length that decided it
	Dropped, Kept, ContextLength int
}

// AppendJSON appends the event's encoding (exactly MarshalJSON's) to b.
// A content event, one for every token of every stream, is written
// without encoding/json's reflection and fresh buffer when its text needs
// no escaping: on a server streaming to many clients the garbage of each
// token is what brings the next collection, and its assists, nearer.
func (e Event) AppendJSON(b []byte) ([]byte, error) {
	if e.Type == Content && plainJSON(e.Text) {
		b = append(b, `{"type":"content","text":"`...)
		b = append(b, e.Text...)
		return append(b, `"}`...), nil
	}
	j, err := e.MarshalJSON()
	if err != nil {
		return b, err
	}
	return append(b, j...), nil
}

// plainJSON reports whether encoding/json writes s unchanged between
// quotes: printable ASCII without a quote, a backslash or the characters
// it escapes for HTML. Anything else takes encoding/json's path.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// MarshalJSON encodes the event as its SSE data.
func (e Event) MarshalJSON() ([]byte, error) {
	switch e.Type {
	case Content:
		return json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{e.Type, e.Text})
	case ToolCall:
		args := e.Args
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		return json.Marshal(struct {
			Type string          `json:"type"`
			ID   string          `json:"id"`
			Tool string          `json:"tool"`
			Args json.RawMessage `json:"args"`
		}{e.Type, e.ID, e.Tool, args})
	case ToolStatus:
		return json.Marshal(struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}{e.Type, e.Message})
	case ToolResult:
		return json.Marshal(struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Tool    string `json:"tool"`
			Summary string `json:"summary"`
		}{e.Type, e.ID, e.Tool, e.Summary})
	case Pause:
		return json.Marshal(struct {
			Type           string `json:"type"`
			Reason         string `json:"reason"`
			ToolCallsMade  int    `json:"tool_calls_made"`
			ElapsedSeconds int    `json:"elapsed_seconds"`
			Message        string `json:"message"`
		}{e.Type, e.Reason, e.ToolCallsMade, e.ElapsedSeconds, e.Message})
	case Error:
		return json.Marshal(struct {
			Type        string `json:"type"`
			Message     string `json:"message"`
			Recoverable bool   `json:"recoverable"`
		}{e.Type, e.Message, e.Recoverable})
	case HistoryTrimmed:
		return json.Marshal(struct {
			Type          string `json:"type"`
			Dropped       int    `json:"dropped_messages"`
			Kept          int    `json:"kept_messages"`
			ContextLength int    `json:"context_length,omitempty"`
			Message       string `json:"message"`
		}{e.Type, e.Dropped, e.Kept, e.ContextLength, e.Message})
	case Done:
		return json.Marshal(struct {
			Type  string     `json:"type"`
			Usage *llm.Usage `json:"usage,omitempty"`
		}{e.Type, e.Usage})
	}
	return json.Marshal(struct {
		Type string `json:"type"`
	}{e.Type})
}

// UnmarshalJSON decodes any event type.
func (e *Event) UnmarshalJSON(b []byte) error {
	var v struct {
		Type           string          `json:"type"`
		Text           string          `json:"text"`
		ID             string          `json:"id"`
		Tool           string          `json:"tool"`
		Args           json.RawMessage `json:"args"`
		Summary        string          `json:"summary"`
		Message        string          `json:"message"`
		Reason         string          `json:"reason"`
		ToolCallsMade  int             `json:"tool_calls_made"`
		ElapsedSeconds int             `json:"elapsed_seconds"`
		Recoverable    bool            `json:"recoverable"`
		Usage          *llm.Usage      `json:"usage"`
		Dropped        int             `json:"dropped_messages"`
		Kept           int             `json:"kept_messages"`
		ContextLength  int             `json:"context_length"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*e = Event{Type: v.Type, Text: v.Text, ID: v.ID, Tool: v.Tool, Args: v.Args, Summary: v.Summary, Message: v.Message,
		Reason: v.Reason, ToolCallsMade: v.ToolCallsMade, ElapsedSeconds: v.ElapsedSeconds, Recoverable: v.Recoverable, Usage: v.Usage,
		Dropped: v.Dropped, Kept: v.Kept, ContextLength: v.ContextLength}
	return nil
}
