package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-rpg/hearth"
)

// Game is what the game tools need from the engine; an adapter over
// game.Session and the session store implements it. Every method must stop
// when ctx ends.
type Game interface {
	// Sessions lists the game sessions, most recently played first.
	Sessions(ctx context.Context) ([]SessionInfo, error)
	// State returns a session's world state as the GM sees it, as a JSON
	// object.
	State(ctx context.Context, sessionID string) (json.RawMessage, error)
	// Act takes a turn in a session with the player's input.
	Act(ctx context.Context, sessionID, input string) (TurnResult, error)
}

// SessionInfo describes one game session.
type SessionInfo struct {
	ID       string    `json:"id" jsonschema:"the session id, for game_state and game_act"`
	Campaign string    `json:"campaign" jsonschema:"the campaign being played"`
	Title    string    `json:"title,omitempty" jsonschema:"the session's title"`
	Turn     int       `json:"turn" jsonschema:"the current turn number"`
	Branch   string    `json:"branch,omitempty" jsonschema:"the branch of the story being played"`
	Updated  time.Time `json:"updated,omitzero" jsonschema:"when the last turn was played (RFC 3339)"`
}

// TurnResult is what one game_act produced.
type TurnResult struct {
	Turn      int    `json:"turn" jsonschema:"the turn committed, or the current turn when the input took none"`
	Committed bool   `json:"committed" jsonschema:"whether the input took a turn; questions and confirmation prompts do not"`
	Narrative string `json:"narrative" jsonschema:"the game master's narration of what happened"`
	// Awaiting is free_form, choice, confirmation (seed 003) or
	// clarification (seed 004: the prompt is a question to answer).
	Awaiting string   `json:"awaiting" jsonschema:"what the game waits for next: free_form, choice, confirmation or clarification (answer the question in prompt)"`
	Prompt   string   `json:"prompt,omitempty" jsonschema:"the question put to the player, if any"`
	Choices  []string `json:"choices,omitempty" jsonschema:"the options offered when awaiting a choice; answer with the text or its number (1-based)"`
	Rejected string   `json:"rejected,omitempty" jsonschema:"why the rules refused the action, if they did"`
	Notice   string   `json:"notice,omitempty" jsonschema:"a note about the game itself, such as a new branch"`
}

const (
	toolListSessions = "game_list_sessions"
	toolState        = "game_state"
	toolAct          = "game_act"
)

var gameToolNames = []string{toolListSessions, toolState, toolAct}

type listArgs struct{}

type sessionList struct {
	Sessions []SessionInfo `json:"sessions" jsonschema:"the game sessions, most recently played first"`
}

type stateArgs struct {
	SessionID string `json:"session_id" jsonschema:"the session's id, from game_list_sessions"`
}

type actArgs struct {
	SessionID string `json:"session_id" jsonschema:"the session's id, from game_list_sessions"`
	Input     string `json:"input" jsonschema:"what the player character does or says, in plain words, or the number of an offered choice"`
}

func ptr[T any](v T) *T { return &v }

func (s *Server) addGameTools(g Game) {
	sdk.AddTool(s.srv, &sdk.Tool{
		Name:  toolListSessions,
		Title: "List game sessions",
		Description: "List the game sessions (playthroughs) on this Hearth server: id, campaign, title, " +
			"current turn, branch and when each was last played, most recent first. " +
			"Use an id from here with game_state and game_act.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, _ *sdk.CallToolRequest, _ listArgs) (_ *sdk.CallToolResult, out sessionList, err error) {
		defer s.finish(ctx, toolListSessions, time.Now(), &err)
		list, err := g.Sessions(asGM(ctx))
		if err != nil {
			return nil, out, about(err, "listing game sessions")
		}
		out.Sessions = list
		if out.Sessions == nil {
			out.Sessions = []SessionInfo{}
		}
		return nil, out, nil
	})

	sdk.AddTool(s.srv, &sdk.Tool{
		Name:  toolState,
		Title: "Show game state",
		Description: "Show a game session's world state as the game master sees it, secrets included: " +
			"characters and their stats and inventory, locations, the current scene, flags, quests and " +
			"plot progress, as JSON. Read-only; use game_list_sessions to find the session id.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, _ *sdk.CallToolRequest, in stateArgs) (_ *sdk.CallToolResult, _ any, err error) {
		defer s.finish(ctx, toolState, time.Now(), &err)
		id := strings.TrimSpace(in.SessionID)
		if id == "" {
			return nil, nil, hearth.Errorf(hearth.Invalid, "session_id is empty; use game_list_sessions to find one")
		}
		state, err := g.State(asGM(ctx), id)
		if err != nil {
			return nil, nil, about(err, "reading the state of session %q", id)
		}
		if !json.Valid(state) {
			return nil, nil, fmt.Errorf("the state of session %q is not valid JSON", id)
		}
		res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(state)}}}
		if isObject(state) {
			res.StructuredContent = state
		}
		return res, nil, nil
	})

	sdk.AddTool(s.srv, &sdk.Tool{
		Name:  toolAct,
		Title: "Take a game turn",
		Description: "Take a turn in a game session as its player: say in plain words what the player " +
			"character does or says. The rules engine resolves the action, the turn is committed, and you " +
			"get the narration, the turn number and what the game awaits next: free-form input, one of " +
			"the numbered choices (answer with its number or its text), a confirmation (yes or no) or a " +
			"clarification (answer the game master's question in your own words). " +
			"This changes the game: every call that takes a turn is saved for good.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, _ *sdk.CallToolRequest, in actArgs) (_ *sdk.CallToolResult, out TurnResult, err error) {
		defer s.finish(ctx, toolAct, time.Now(), &err)
		id, input := strings.TrimSpace(in.SessionID), strings.TrimSpace(in.Input)
		if id == "" {
			return nil, out, hearth.Errorf(hearth.Invalid, "session_id is empty; use game_list_sessions to find one")
		}
		if input == "" {
			return nil, out, hearth.Errorf(hearth.Invalid, "input is empty; say what the player character does")
		}
		out, err = g.Act(asGM(ctx), id, input)
		if err != nil {
			return nil, TurnResult{}, about(err, "taking a turn in session %q", id)
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: turnText(out)}}}, out, nil
	})
}

// turnText is a turn as a client shows it or its model reads it.
func turnText(r TurnResult) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(r.Narrative))
	line := func(s string) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
	}
	if r.Rejected != "" {
		line("Refused by the rules: " + r.Rejected)
	}
	if r.Notice != "" {
		line(r.Notice)
	}
	status := fmt.Sprintf("[Turn %d", r.Turn)
	if !r.Committed {
		status += ", no turn taken"
	}
	if r.Awaiting != "" {
		status += "; awaiting " + strings.ReplaceAll(r.Awaiting, "_", "-") + " input"
	}
	line(status + "]")
	if r.Prompt != "" {
		b.WriteString("\n" + r.Prompt)
	}
	for i, c := range r.Choices {
		fmt.Fprintf(&b, "\n%d. %s", i+1, c)
	}
	return b.String()
}

func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}
