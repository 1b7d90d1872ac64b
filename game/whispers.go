package game

import (
	"context"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/world"
)

// Whisper parties: the game master's side of a whisper, by the name
// world.Whisper records ("gm", as the rules' whisper intent does).
const (
	WhisperGM = "gm"
	WhisperDM = DM // a player character's whisper to the game master
)

// Whisper sends a private message from one side of the table to the
// other (FR71–FR75): from the game master ("gm") to a party member, or
// from a party member to the game master ("dm"). It is a turn of the DM's
// with a whisper_sent effect and no narrative, so restore and fork keep it
// as it was; World().View shows it only to its sender and recipient until
// it is revealed.
func (s *Session) Whisper(ctx context.Context, from, to, text, by string) (*Response, *world.Whisper, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil, hearth.Errorf(hearth.Invalid, "whisper what?")
	}
	if len(text) > MaxInput {
		return nil, nil, hearth.Errorf(hearth.Invalid, "a whisper of %d bytes is longer than %d", len(text), MaxInput)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case from == WhisperGM && s.w.InParty(to):
	case to == WhisperDM && s.w.InParty(from):
	default:
		return nil, nil, hearth.Errorf(hearth.Invalid, "a whisper goes from the game master to a party member or from a party member to the game master, not from %q to %q", from, to)
	}
	id := ""
	for n := len(s.w.Whispers) + 1; ; n++ {
		if id = fmt.Sprintf("whisper-%d", n); s.w.Whispers[id] == nil {
			break
		}
	}
	w := world.Whisper{ID: id, From: from, To: to, Text: text}
	s.by = by
	defer func() { s.by = "" }()
	resp, err := s.runTurn(ctx, "", func(string) {}, "", func(t *Turn) error {
		w.Turn = t.Number
		e := world.WhisperSent{Whisper: w}
		if err := s.w.Apply(e); err != nil {
			return err
		}
		t.effects = append(t.effects, e)
		t.dm = true
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return resp, &w, nil
}

// RevealWhisper makes whisper id known to everyone at the table, as a turn
// of the DM's.
func (s *Session) RevealWhisper(ctx context.Context, id, by string) (*Response, *world.Whisper, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.w.Whispers[id]
	if w == nil {
		return nil, nil, hearth.Errorf(hearth.NotFound, "no whisper %q", id)
	}
	if w.Revealed {
		return nil, nil, hearth.Errorf(hearth.Conflict, "whisper %s is already revealed", id)
	}
	s.by = by
	defer func() { s.by = "" }()
	resp, err := s.runTurn(ctx, "", func(string) {}, "", func(t *Turn) error {
		e := world.SecretRevealed{Whisper: id, Text: w.Text, How: "revealed by " + by}
		if err := s.w.Apply(e); err != nil {
			return err
		}
		t.effects = append(t.effects, e)
		t.dm = true
		t.narrative.WriteString("Revealed: " + w.Text)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	out := *s.w.Whispers[id]
	return resp, &out, nil
}
