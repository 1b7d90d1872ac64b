package game

import (
	"context"
	"fmt"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/world"
)

// DM is the agent of turns the game master plays itself (a change at the
// table, a narration of its own).
const DM = "dm"

// ChangeController hands a party member to another controller (a human
// drops in, an agent takes over, the agent's model changes) as a turn of
// the DM's, so replay, restore and fork keep it; by names who asked.
// Nothing else of the member changes.
func (s *Session) ChangeController(ctx context.Context, character string, to world.Controller, by string) (*Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.w.Member(character)
	if m == nil {
		return nil, hearth.Errorf(hearth.Invalid, "%q is not in the party; only party members have controllers", character)
	}
	if err := to.Validate(); err != nil {
		return nil, hearth.Errorf(hearth.Invalid, "controller of %s: %v", character, err)
	}
	if m.Controller == to {
		return nil, hearth.Errorf(hearth.Invalid, "%s is already played by %s", character, to.Label())
	}
	e := world.ControllerChanged{Character: character, From: m.Controller, To: to}
	name := character
	if c := s.w.Characters[character]; c != nil {
		name = c.Name
	}
	if by == "" {
		by = DM
	}
	s.by = by
	defer func() { s.by = "" }()
	return s.runTurn(ctx, "", func(string) {}, "", func(t *Turn) error {
		if err := s.w.Apply(e); err != nil {
			return err
		}
		t.effects = append(t.effects, e)
		t.dm = true
		t.narrative.WriteString(fmt.Sprintf("%s is now played by %s.", name, to.Label()))
		return nil
	})
}
