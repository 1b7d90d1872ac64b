package campaign

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

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
