package world

import (
	"fmt"
	"slices"
)

// MaxParty is the most player characters a game has.
const MaxParty = 6

// Controller kinds: who decides a party member's actions.
const (
	ControllerAI    = "ai"    // an agent with its own provider and model
	ControllerHuman = "human" // a human user at the table
	ControllerNone  = "none"  // nobody: the DM narrates it as a companion
)

// Controller says who plays a party member.
type Controller struct {
	Kind string `json:"kind"`
	// User is the controlling user when Kind is human.
	User string `json:"user,omitempty"`
	// Provider and Model are the agent's when Kind is ai; empty means the
	// offline agent.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
}

// Validate reports a controller that cannot play.
func (c Controller) Validate() error {
	switch c.Kind {
	case ControllerAI:
		if c.User != "" {
			return fmt.Errorf("an ai controller has no user (got %q)", c.User)
		}
		if (c.Provider == "") != (c.Model == "") && c.Provider != "offline" {
			return fmt.Errorf("an ai controller names both a provider and a model, or neither for the offline agent (got %q/%q)", c.Provider, c.Model)
		}
	case ControllerHuman:
		if c.User == "" {
			return fmt.Errorf("a human controller names its user")
		}
		if c.Provider != "" || c.Model != "" {
			return fmt.Errorf("a human controller has no model")
		}
	case ControllerNone:
		if c.User != "" || c.Provider != "" || c.Model != "" {
			return fmt.Errorf("controller none names nobody")
		}
	default:
		return fmt.Errorf("controller kind %q: want ai, human or none", c.Kind)
	}
	return nil
}

// Label names the controller as a turn records it: "provider/model" for
// an agent ("offline" without a model), the user's name for a human,
// "none" for nobody.
func (c Controller) Label() string {
	switch c.Kind {
	case ControllerAI:
		if c.Model == "" {
			return "offline"
		}
		return c.Provider + "/" + c.Model
	case ControllerHuman:
		return c.User
	}
	return c.Kind
}

// Personality is how an agent plays its character (5e's traits, ideals,
// bonds and flaws, and a backstory).
type Personality struct {
	Traits    string `json:"traits,omitempty"`
	Ideals    string `json:"ideals,omitempty"`
	Bonds     string `json:"bonds,omitempty"`
	Flaws     string `json:"flaws,omitempty"`
	Backstory string `json:"backstory,omitempty"`
}

// PartyMember is one player character of the party.
type PartyMember struct {
	Character   string      `json:"character"`
	Controller  Controller  `json:"controller"`
	Personality Personality `json:"personality,omitzero"`
	Class       string      `json:"class,omitempty"`
	// Colour is the member's display colour, "#rrggbb".
	Colour string `json:"colour,omitempty"`
}

// Members returns the party in its order. A game without a party (a
// campaign with one player:) is a party of one: the player character,
// controlled by the human at the table.
func (s *State) Members() []PartyMember {
	if len(s.Party) > 0 {
		return slices.Clone(s.Party)
	}
	if s.Player == "" {
		return nil
	}
	m := PartyMember{Character: s.Player, Controller: Controller{Kind: ControllerHuman, User: "player"}}
	if c := s.Characters[s.Player]; c != nil {
		m.Class = c.Class
	}
	return []PartyMember{m}
}

// Member returns the party member playing character id, or nil.
func (s *State) Member(id string) *PartyMember {
	for i := range s.Party {
		if s.Party[i].Character == id {
			return &s.Party[i]
		}
	}
	return nil
}

// InParty reports whether character id is a player character of the
// game: a party member, or the player of a game without a party.
func (s *State) InParty(id string) bool {
	if len(s.Party) == 0 {
		return id != "" && id == s.Player
	}
	return s.Member(id) != nil
}

// PartyMemberAdded puts a character into the party.
type PartyMemberAdded struct {
	Member PartyMember `json:"member"`
}

func (PartyMemberAdded) Kind() string { return "party_member_added" }
func (e PartyMemberAdded) apply(s *State) error {
	m := e.Member
	if _, err := s.character(m.Character); err != nil {
		return err
	}
	if s.Member(m.Character) != nil {
		return fmt.Errorf("%q is already in the party", m.Character)
	}
	if len(s.Party) >= MaxParty {
		return fmt.Errorf("the party has %d members already; %d is the most", len(s.Party), MaxParty)
	}
	if err := m.Controller.Validate(); err != nil {
		return fmt.Errorf("%s: %w", m.Character, err)
	}
	s.Party = append(s.Party, m)
	return nil
}

// PartyMemberRemoved takes a character out of the party; it stays in the
// world. The acting character cannot leave: change the actor first.
type PartyMemberRemoved struct {
	Character string `json:"character"`
}

func (PartyMemberRemoved) Kind() string { return "party_member_removed" }
func (e PartyMemberRemoved) apply(s *State) error {
	if s.Member(e.Character) == nil {
		return fmt.Errorf("%q is not in the party", e.Character)
	}
	if e.Character == s.Player {
		return fmt.Errorf("%q is acting; make another member the actor first", e.Character)
	}
	s.Party = slices.DeleteFunc(s.Party, func(m PartyMember) bool { return m.Character == e.Character })
	return nil
}

// ControllerChanged hands a party member to another controller: a human
// drops in, an agent takes over, or the agent's model changes. Nothing
// else of the member changes.
type ControllerChanged struct {
	Character string     `json:"character"`
	From      Controller `json:"from"`
	To        Controller `json:"to"`
}

func (ControllerChanged) Kind() string { return "controller_changed" }
func (e ControllerChanged) apply(s *State) error {
	m := s.Member(e.Character)
	if m == nil {
		return fmt.Errorf("%q is not in the party", e.Character)
	}
	if err := e.To.Validate(); err != nil {
		return fmt.Errorf("%s: %w", e.Character, err)
	}
	m.Controller = e.To
	return nil
}

// ActorChanged makes another party member the character acting: the one
// State.Player names, whom the rules resolve intents for.
type ActorChanged struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func (ActorChanged) Kind() string { return "actor_changed" }
func (e ActorChanged) apply(s *State) error {
	if _, err := s.character(e.To); err != nil {
		return err
	}
	if len(s.Party) > 0 && s.Member(e.To) == nil {
		return fmt.Errorf("%q is not in the party and cannot act", e.To)
	}
	s.Player = e.To
	return nil
}
