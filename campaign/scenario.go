package campaign

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/world"
)

// Scenario is a campaign bound to the packs it plays with (its
// campaign.yml or scenario.yml lists them under packs:). The campaign
// uses pack entities by namespaced id (srd51:goblin); a plain id resolves
// to the campaign's own entity first, then to the packs, the most
// specific layer first (homebrew, supplements, base: the rule that puts
// the campaign first), in the order packs: lists them within a layer.
type Scenario struct {
	Campaign *Campaign
	Library  *Library
	// resolved maps a reference the campaign wrote (kind\x00id) to the
	// namespaced id it resolved to.
	resolved map[string]string
}

// NewScenario layers packs and resolves every reference the campaign
// left for them. A pack the campaign names but that is not given, or
// whose version the campaign does not allow, is an error; so is a
// reference no pack answers.
func NewScenario(c *Campaign, packs ...*Pack) (*Scenario, error) {
	s, errs, err := scenarioOf(c, packs)
	if err != nil {
		return nil, err
	}
	if e := errs.Errors(); len(e) > 0 {
		return nil, errors.Join(e...)
	}
	return s, nil
}

// scenarioOf is NewScenario with the campaign's problems returned apart
// (each names the campaign's file and line); err is the packs' own.
func scenarioOf(c *Campaign, packs []*Pack) (*Scenario, pack.Problems, error) {
	lib, err := Layer(packs...)
	if err != nil {
		return nil, nil, err
	}
	s := &Scenario{Campaign: c, Library: lib, resolved: map[string]string{}}
	var errs pack.Problems
	have := map[string]*Pack{}
	for _, p := range lib.Packs {
		have[p.Manifest.ID] = p
	}
	for _, r := range c.Meta.Packs {
		f, line := c.metaAt("packs")
		checkRequirement(f, line, r, have, &errs)
	}
	for _, x := range c.external {
		if id, ok := s.lookup(x.kind, x.id); ok {
			s.resolved[entryKey(x.kind, x.id)] = id
			continue
		}
		errs.Add(x.file, x.line, "%s %q is not in the campaign nor in its packs (%s)", x.kind, x.id, strings.Join(s.order(), ", "))
	}
	return s, errs, nil
}

// order lists the pack ids a plain id is looked up in, in order.
func (s *Scenario) order() []string {
	listed := func(id string) int {
		i := slices.IndexFunc(s.Campaign.Meta.Packs, func(r pack.Requirement) bool { return r.ID == id })
		if i < 0 {
			return len(s.Campaign.Meta.Packs)
		}
		return i
	}
	ps := slices.Clone(s.Library.Packs)
	slices.SortStableFunc(ps, func(a, b *Pack) int {
		if d := b.Manifest.Layer.Rank() - a.Manifest.Layer.Rank(); d != 0 {
			return d
		}
		return listed(a.Manifest.ID) - listed(b.Manifest.ID)
	})
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Manifest.ID
	}
	return out
}

// lookup finds a pack entity for an id the campaign does not define.
func (s *Scenario) lookup(kind, id string) (string, bool) {
	if pk, _ := splitID(id); pk != "" {
		_, ok := s.Library.Entity(kind, id)
		return id, ok
	}
	for _, pk := range s.order() {
		if _, ok := s.Library.Entity(kind, pk+":"+id); ok {
			return pk + ":" + id, true
		}
	}
	return "", false
}

// Resolve finds the entity an id names in the scenario: the campaign's
// own (Entry.Pack is the campaign's id), else a pack's. kind is location,
// character, item, quest, faction, stat, lore, consequence or plot_beat.
func (s *Scenario) Resolve(kind, id string) (Entry, bool) {
	if v := s.Campaign.value(kind, id); v != nil {
		file, line := s.Campaign.at(kind, id, "")
		return Entry{ID: id, Kind: kind, Pack: s.Campaign.pack.self, File: file, Line: line, Value: v}, true
	}
	if nid, ok := s.lookup(kind, id); ok {
		return s.Library.Entity(kind, nid)
	}
	return Entry{}, false
}

// value returns a campaign's own entity of a kind, or nil.
func (c *Campaign) value(kind, id string) any {
	switch kind {
	case kindLocation:
		if v := c.Locations[id]; v != nil {
			return v
		}
	case kindCharacter:
		if v := c.Characters[id]; v != nil {
			return v
		}
	case kindItem:
		if v := c.Items[id]; v != nil {
			return v
		}
	case kindQuest:
		if v := c.Quests[id]; v != nil {
			return v
		}
	case kindFaction:
		if v := c.Factions[id]; v != nil {
			return v
		}
	case "stat":
		if v := c.Stats[id]; v != nil {
			return v
		}
	}
	return nil
}

// NewState builds the world at turn 0 as Campaign.NewState does, with
// the pack entities the campaign uses (and those they use in turn)
// copied in under their namespaced ids, and the campaign's plain
// references to them rewritten to those ids.
func (s *Scenario) NewState() (*world.State, error) {
	return s.Campaign.newState(s.seeding())
}

// seeding is how a new game's world takes the scenario's pack entities.
func (s *Scenario) seeding() seeding {
	return seeding{
		add: s.addPackEntities,
		rename: func(kind, id string) string {
			if nid, ok := s.resolved[entryKey(kind, id)]; ok {
				return nid
			}
			return id
		},
	}
}

// addPackEntities copies into w every pack entity the campaign reaches.
func (s *Scenario) addPackEntities(w *world.State) error {
	var queue []ref
	for key, nid := range s.resolved {
		kind, _, _ := strings.Cut(key, "\x00")
		queue = append(queue, ref{kind: kind, value: nid})
	}
	slices.SortFunc(queue, func(a, b ref) int { return strings.Compare(a.kind+a.value, b.kind+b.value) })
	seen := map[string]bool{}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		if seen[entryKey(r.kind, r.value)] {
			continue
		}
		seen[entryKey(r.kind, r.value)] = true
		e, ok := s.Library.Entity(r.kind, r.value)
		if !ok {
			continue // the campaign's own, or checked by NewScenario
		}
		one := entitySet{locations: map[string]*world.Location{}, characters: map[string]*world.Character{},
			items: map[string]*world.Item{}, quests: map[string]*world.Quest{}, factions: map[string]*world.Faction{}}
		switch v := e.Value.(type) {
		case *world.Location:
			cp := *v
			cp.ID = r.value
			w.Locations[r.value], one.locations[r.value] = &cp, &cp
		case *world.Character:
			cp := *v
			cp.ID = r.value
			w.Characters[r.value], one.characters[r.value] = &cp, &cp
		case *world.Item:
			cp := *v
			cp.ID = r.value
			w.Items[r.value], one.items[r.value] = &cp, &cp
		case *world.Quest:
			cp := *v
			cp.ID = r.value
			w.Quests[r.value], one.quests[r.value] = &cp, &cp
		case *world.Faction:
			cp := *v
			cp.ID = r.value
			w.Factions[r.value], one.factions[r.value] = &cp, &cp
		default:
			return fmt.Errorf("%s %s cannot be placed in a game", r.kind, r.value)
		}
		queue = append(queue, one.refs()...)
	}
	return nil
}

// seeding is what a scenario adds to Campaign.newState.
type seeding struct {
	add    func(w *world.State) error   // before the state is copied: pack entities
	rename func(kind, id string) string // a campaign reference as the state knows it
	party  []Recruit                    // replaces the campaign's party when set
}
