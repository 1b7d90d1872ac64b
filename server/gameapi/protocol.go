package gameapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/dice"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// Client → server message types (seed 002, "WebSocket Message Protocol").
const (
	StartAutopilot = "start_autopilot"
	StopAutopilot  = "stop_autopilot"
	NextTurn       = "next_turn"
	DropIn         = "drop_in"
	ReleaseControl = "release_control"
	HumanAction    = "human_action"
	Nudge          = "nudge"
	SetSpeed       = "set_speed"
	// Whispers (FR71–FR75), in the seed's style.
	Whisper      = "whisper"
	RevealSecret = "reveal_secret"
)

// Server → client message types: seed 002's, then Hearth's additions.
const (
	TypeTurnUpdate       = "turn_update"
	TypeAwaitingInput    = "awaiting_input"
	TypeAutopilotStarted = "autopilot_started"
	TypeAutopilotStopped = "autopilot_stopped"
	TypeError            = "error"
	TypeSessionState     = "session_state"

	TypeTurnDelta       = "turn_delta"
	TypeControlReleased = "control_released"
	TypeWhisper         = "whisper"
	TypeSecretRevealed  = "secret_revealed"
)

// Reasons the autopilot stops, in autopilot_stopped.
const (
	StoppedByUser     = "user_request"
	StoppedDeleted    = "session_deleted"
	StoppedShutdown   = "shutdown"
	StoppedError      = "error"
	StoppedDefeated   = "character_defeated"
	maxAutopilotFails = 3
)

// MaxMessage is the largest client message read, in bytes; a larger one
// closes the connection (status 1009).
const MaxMessage = 16 << 10

// fields lists what each client message may carry besides its type.
var fields = map[string][]string{
	StartAutopilot: {"speed"},
	StopAutopilot:  nil,
	NextTurn:       nil,
	DropIn:         {"character"},
	ReleaseControl: {"character"},
	HumanAction:    {"content"},
	Nudge:          {"content"},
	SetSpeed:       {"speed"},
	Whisper:        {"to", "content"},
	RevealSecret:   {"id"},
}

// Command is a message from a client.
type Command struct {
	Type      string `json:"type"`
	Speed     string `json:"speed,omitempty"`
	Character string `json:"character,omitempty"`
	Content   string `json:"content,omitempty"`
	// To is a whisper's reader: a party member's id, or "dm".
	To string `json:"to,omitempty"`
	// ID names the whisper reveal_secret reveals.
	ID string `json:"id,omitempty"`
}

// Problem is a client message or request that cannot be done as sent. ID
// and Data name its message in the gameapi catalog; Code classifies it
// (hearth.Invalid unless said otherwise).
type Problem struct {
	ID   string
	Data map[string]any
	Code hearth.Code
}

func (p *Problem) Error() string {
	return fmt.Sprintf("%s %v", p.ID, p.Data)
}

// Unwrap gives the problem its code.
func (p *Problem) Unwrap() error {
	code := p.Code
	if code == "" {
		code = hearth.Invalid
	}
	return &hearth.Error{Code: code, Message: p.Error()}
}

// Localize names the problem's catalog message (api.Localized).
func (p *Problem) Localize() (string, map[string]any) { return p.ID, p.Data }

func problem(id string, kv ...any) *Problem {
	p := &Problem{ID: id, Data: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Data[kv[i].(string)] = kv[i+1]
	}
	return p
}

func commandTypes() string {
	ts := make([]string, 0, len(fields))
	for t := range fields {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return strings.Join(ts, ", ")
}

// DecodeCommand reads one client message: a JSON object with a known type
// and only that type's fields, all strings. human_action and nudge need
// content of at most game.MaxInput bytes. A message that does not fit is a
// *Problem saying what was wrong.
func DecodeCommand(b []byte) (Command, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		reason := "null"
		if err != nil {
			reason = err.Error()
		}
		return Command{}, problem("gameapi.msg.not_json", "Reason", reason)
	}
	var c Command
	t, ok := raw["type"]
	if !ok {
		return Command{}, problem("gameapi.msg.no_type", "Types", commandTypes())
	}
	if err := json.Unmarshal(t, &c.Type); err != nil {
		return Command{}, problem("gameapi.msg.bad_field", "Type", "?", "Field", "type")
	}
	allowed, ok := fields[c.Type]
	if !ok {
		return Command{}, problem("gameapi.msg.unknown_type", "Type", clip(c.Type), "Types", commandTypes())
	}
	for k, v := range raw {
		if k == "type" {
			continue
		}
		if !slices.Contains(allowed, k) {
			return Command{}, problem("gameapi.msg.unknown_field", "Type", c.Type, "Field", clip(k))
		}
		var s string
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) || json.Unmarshal(v, &s) != nil {
			return Command{}, problem("gameapi.msg.bad_field", "Type", c.Type, "Field", k)
		}
		switch k {
		case "speed":
			c.Speed = strings.TrimSpace(s)
		case "character":
			c.Character = strings.TrimSpace(s)
		case "content":
			c.Content = strings.TrimSpace(s)
		case "to":
			c.To = strings.TrimSpace(s)
		case "id":
			c.ID = strings.TrimSpace(s)
		}
	}
	switch c.Type {
	case Whisper:
		if c.To == "" {
			return Command{}, problem("gameapi.msg.no_field", "Type", c.Type, "Field", "to")
		}
		fallthrough
	case HumanAction, Nudge:
		if c.Content == "" {
			return Command{}, problem("gameapi.msg.empty_content", "Type", c.Type)
		}
		if len(c.Content) > game.MaxInput {
			return Command{}, problem("gameapi.msg.too_long", "Length", len(c.Content), "Limit", game.MaxInput)
		}
	case SetSpeed:
		if c.Speed == "" {
			return Command{}, problem("gameapi.msg.no_speed")
		}
	case RevealSecret:
		if c.ID == "" {
			return Command{}, problem("gameapi.msg.no_field", "Type", c.Type, "Field", "id")
		}
	}
	return c, nil
}

// clip keeps a client's string short and valid enough to quote back.
func clip(s string) string {
	if len(s) > 40 {
		s = s[:40]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// SessionState is the whole game as one viewer may see it: sent on connect
// (session_state) and with every turn (turn_update).
type SessionState struct {
	Session  string `json:"session"`
	Title    string `json:"title"`
	Campaign string `json:"campaign"`
	Turn     int    `json:"turn"`
	Branch   string `json:"branch"`
	// View is "gm" or "player": what World was cut for.
	View string `json:"view"`
	// Character is the player character the view belongs to.
	Character string         `json:"character,omitempty"`
	Autopilot AutopilotState `json:"autopilot"`
	// Control is set while a human has dropped in: the viewer's own
	// hold, else the first; Controls lists every hold, by character.
	Control  *Control  `json:"control,omitempty"`
	Controls []Control `json:"controls,omitempty"`
	// Party is every party member as the table sees it.
	Party    []PartySummary `json:"party,omitempty"`
	Awaiting game.Awaiting  `json:"awaiting"`
	// Recap is "previously on": the summary of the last game night.
	Recap string       `json:"recap,omitempty"`
	World *world.State `json:"world"`
}

// AutopilotState says whether the game plays itself.
type AutopilotState struct {
	Running bool   `json:"running"`
	Speed   string `json:"speed"`
	// Paused is set while a human has control.
	Paused bool `json:"paused,omitempty"`
	// Nudges is how many nudges wait to be played.
	Nudges int `json:"nudges,omitempty"`
}

// Control names who dropped in.
type Control struct {
	Character string `json:"character"`
	User      string `json:"user"`
}

// PartySummary is a party member as anyone at the table sees it: not its
// sheet, but how it fares. Own marks the viewer's character, Acting the
// one acting now; Controller is who plays it (a user, or an agent).
type PartySummary struct {
	Character  string   `json:"character"`
	Name       string   `json:"name"`
	Class      string   `json:"class,omitempty"`
	HP         string   `json:"hp,omitempty"` // healthy, wounded, bloodied, critical, down
	Conditions []string `json:"conditions,omitempty"`
	Controller string   `json:"controller,omitempty"`
	Own        bool     `json:"own,omitempty"`
	Acting     bool     `json:"acting,omitempty"`
}

// WhisperMessage is a whisper, sent only to its sender's and reader's
// connections and the GM's (whisper). From and To are a character's id,
// "gm" or "dm"; Turn is the turn that recorded it.
type WhisperMessage struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	From    string `json:"from"`
	To      string `json:"to"`
	Content string `json:"content"`
	Turn    int    `json:"turn"`
}

// SecretRevealedMessage is a whisper made known to everyone
// (secret_revealed).
type SecretRevealedMessage struct {
	Type         string `json:"type"`
	ID           string `json:"id"`
	From         string `json:"from"`
	To           string `json:"to"`
	Content      string `json:"content"`
	Turn         int    `json:"turn"`
	RevealedTurn int    `json:"revealed_turn"`
}

// TurnUpdate is a played turn (turn_update). Turn, Agent, Content and State
// are seed 002's; the rest is Hearth's. Outcomes are in the GM's view only.
type TurnUpdate struct {
	Type string `json:"type"`
	Turn int    `json:"turn"`
	// Agent is who acted: a party member's character id, or "dm" for the
	// game master's own turn (and a reply that took no turn); Controller
	// is who decided it: a user's name, "autopilot", an agent's
	// "provider/model".
	Agent      string          `json:"agent"`
	Controller string          `json:"controller,omitempty"`
	Content    string          `json:"content"`
	State      *SessionState   `json:"state"`
	Input      string          `json:"input"`
	By         string          `json:"by"`
	Committed  bool            `json:"committed"`
	Effects    world.Effects   `json:"effects,omitempty"`
	Rolls      []dice.Result   `json:"rolls,omitempty"`
	Outcomes   []rules.Outcome `json:"outcomes,omitempty"`
	Awaiting   game.Awaiting   `json:"awaiting"`
	Rejected   string          `json:"rejected,omitempty"`
	Notice     string          `json:"notice,omitempty"`
}

// TurnDelta is narration as the narrator writes it (turn_delta).
type TurnDelta struct {
	Type  string `json:"type"`
	Turn  int    `json:"turn"`
	Agent string `json:"agent"`
	Text  string `json:"text"`
}

// AwaitingInput says a human has control of character (awaiting_input).
type AwaitingInput struct {
	Type      string `json:"type"`
	Character string `json:"character"`
	User      string `json:"user,omitempty"`
}

// ControlReleased says the human who dropped in let go (control_released).
type ControlReleased struct {
	Type      string `json:"type"`
	Character string `json:"character"`
}

// AutopilotStarted says the game plays itself at speed (autopilot_started).
type AutopilotStarted struct {
	Type  string `json:"type"`
	Speed string `json:"speed"`
}

// AutopilotStopped says why the autopilot stopped (autopilot_stopped).
type AutopilotStopped struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// Error reports a failure (error). Recoverable means the connection stays
// usable.
type Error struct {
	Type        string `json:"type"`
	Message     string `json:"message"`
	Recoverable bool   `json:"recoverable"`
}

// StateMessage is the full state (session_state).
type StateMessage struct {
	Type  string        `json:"type"`
	State *SessionState `json:"state"`
}
