package campaign

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/world"
)

// PartyEntry is one member of campaign.yml's party: a character id, or a
// map naming the id and, optionally, its controller (ai, the default;
// human; none), the agent's provider and model, a display colour and a
// personality that overrides the sheet's.
type PartyEntry struct {
	ID         string `yaml:"id"`
	Controller string `yaml:"controller"`
	User       string `yaml:"user"`
	Provider   string `yaml:"provider"`
	Model      string `yaml:"model"`
	Colour     string `yaml:"colour"`
	Traits     string `yaml:"traits"`
	Ideals     string `yaml:"ideals"`
	Bonds      string `yaml:"bonds"`
	Flaws      string `yaml:"flaws"`
	Backstory  string `yaml:"backstory"`
}

// UnmarshalYAML reads an entry written as a bare id or as a map.
func (p *PartyEntry) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		p.ID = n.Value
		return nil
	}
	type plain PartyEntry
	return n.Decode((*plain)(p))
}

// partyColours are the display colours members get in order when the
// campaign names none: distinct and readable on light and dark.
var partyColours = []string{"#c0392b", "#2e86c1", "#27ae60", "#8e44ad", "#d68910", "#17a589"}

// member makes the party member an entry describes, filling what it
// leaves out from the character's sheet.
func (p PartyEntry) member(i int, ch *world.Character) world.PartyMember {
	kind := p.Controller
	if kind == "" {
		kind = world.ControllerAI
	}
	m := world.PartyMember{
		Character:  ch.ID,
		Controller: world.Controller{Kind: kind, User: p.User, Provider: p.Provider, Model: p.Model},
		Class:      ch.Class,
		Colour:     p.Colour,
		Personality: world.Personality{
			Traits:    or(p.Traits, strings.Join(ch.PersonalityTraits, " ")),
			Ideals:    or(p.Ideals, strings.Join(ch.Ideals, " ")),
			Bonds:     or(p.Bonds, strings.Join(ch.Bonds, " ")),
			Flaws:     or(p.Flaws, strings.Join(ch.Flaws, " ")),
			Backstory: or(p.Backstory, ch.Description),
		},
	}
	if m.Colour == "" {
		m.Colour = partyColours[i%len(partyColours)]
	}
	return m
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// checkParty reports what is wrong with campaign.yml's party; it marks
// the members as player characters.
func (c *Campaign) checkParty(errs *pack.Problems) {
	f, l := c.metaAt("party")
	if len(c.Meta.Party) > world.MaxParty {
		errs.Add(f, l, "party of %d: a party has 1 to %d characters", len(c.Meta.Party), world.MaxParty)
	}
	seen := map[string]bool{}
	for i, p := range c.Meta.Party {
		ch := c.Characters[p.ID]
		switch {
		case p.ID == "":
			errs.Add(f, l, "party[%d] has no id", i)
			continue
		case seen[p.ID]:
			errs.Add(f, l, "party lists %q twice", p.ID)
			continue
		case ch == nil:
			errs.Add(f, l, "party member %q does not exist; add a player_character file with that id", p.ID)
			continue
		}
		seen[p.ID] = true
		ch.Kind = world.PC
		if err := p.member(i, ch).Controller.Validate(); err != nil {
			errs.Add(f, l, "party member %q: %v", p.ID, err)
		}
	}
	if c.Meta.Player != "" && !seen[c.Meta.Player] {
		errs.Add(f, l, "player %q is not in the party; list it there or leave player: out", c.Meta.Player)
	}
}

// newParty fills the world's party from campaign.yml: members in order,
// the player (or the first member) acting.
func (c *Campaign) newParty(w *world.State, rename func(kind, id string) string) error {
	for i, p := range c.Meta.Party {
		id := rename(kindCharacter, p.ID)
		ch := w.Characters[id]
		if ch == nil {
			return fmt.Errorf("campaign %s: party member %q does not exist", c.Meta.Title, p.ID)
		}
		ch.Kind = world.PC
		if err := w.Apply(world.PartyMemberAdded{Member: p.member(i, ch)}); err != nil {
			return fmt.Errorf("campaign %s: %w", c.Meta.Title, err)
		}
	}
	w.Player = w.Party[0].Character
	if c.Meta.Player != "" {
		w.Player = rename(kindCharacter, c.Meta.Player)
	}
	return nil
}

// Recruit is a character from outside the campaign (a player's character
// library) who joins a new game's party, and who plays it.
type Recruit struct {
	Sheet      *world.Character
	Controller world.Controller
}

// NewStateWithParty is NewState with a party of recruits in place of the
// campaign's own player characters, who leave the world. The recruits
// start together where the campaign starts, with its starting items and
// stats, in the order given; the first acts first. A party that cannot
// play (empty, too large, an id twice or one the campaign already uses, a
// controller that cannot play) is Invalid. The sheets become the state's:
// pass ones nothing else holds.
func (c *Campaign) NewStateWithParty(party []Recruit) (*world.State, error) {
	if len(party) == 0 || len(party) > world.MaxParty {
		return nil, hearth.Errorf(hearth.Invalid, "a party has 1 to %d characters; %d were given", world.MaxParty, len(party))
	}
	if c.scenario != nil {
		sd := c.scenario.seeding()
		sd.party = party
		return c.newState(sd)
	}
	if err := c.unbound(); err != nil {
		return nil, err
	}
	return c.newState(seeding{party: party})
}

// recruit replaces w's player characters with the recruits.
func (c *Campaign) recruit(w *world.State, party []Recruit) error {
	gone := map[string]bool{}
	for id, ch := range w.Characters {
		if ch.Kind == world.PC {
			gone[id] = true
		}
	}
	for _, p := range c.Meta.Party {
		gone[p.ID] = true
	}
	for id := range gone {
		delete(w.Characters, id)
	}
	w.Relationships = slices.DeleteFunc(w.Relationships, func(r world.Relationship) bool { return gone[r.A] || gone[r.B] })
	w.Party, w.Player = nil, ""
	for i, r := range party {
		if r.Sheet == nil || r.Sheet.ID == "" {
			return hearth.Errorf(hearth.Invalid, "party member %d has no character sheet", i+1)
		}
		id := r.Sheet.ID
		if w.Characters[id] != nil {
			return hearth.Errorf(hearth.Invalid, "%q is in the party twice, or is already one of the campaign's characters", id)
		}
		ch := *r.Sheet
		ch.Kind, ch.Location = world.PC, ""
		w.Characters[id] = &ch
		e := PartyEntry{Controller: r.Controller.Kind, User: r.Controller.User, Provider: r.Controller.Provider,
			Model: r.Controller.Model, Backstory: ch.Backstory}
		if err := w.Apply(world.PartyMemberAdded{Member: e.member(i, &ch)}); err != nil {
			return hearth.Errorf(hearth.Invalid, "party member %s: %v", ch.Name, err)
		}
	}
	w.Player = w.Party[0].Character
	return nil
}
