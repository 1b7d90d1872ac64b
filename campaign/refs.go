package campaign

import (
	"maps"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/world"
)

// Entity kinds that references point at.
const (
	kindLocation  = "location"
	kindCharacter = "character"
	kindItem      = "item"
	kindQuest     = "quest"
	kindFaction   = "faction"
)

// entitySet is the entities references are checked against and
// rewritten in: a campaign's, a pack's or a game state's.
type entitySet struct {
	locations    map[string]*world.Location
	characters   map[string]*world.Character
	items        map[string]*world.Item
	quests       map[string]*world.Quest
	factions     map[string]*world.Faction
	consequences []*world.Consequence
}

func (c *Campaign) entities() entitySet {
	s := entitySet{locations: c.Locations, characters: c.Characters, items: c.Items, quests: c.Quests, factions: c.Factions}
	for i := range c.Consequences {
		s.consequences = append(s.consequences, &c.Consequences[i])
	}
	return s
}

func stateEntities(w *world.State) entitySet {
	s := entitySet{locations: w.Locations, characters: w.Characters, items: w.Items, quests: w.Quests, factions: w.Factions}
	for _, id := range world.SortedKeys(w.Consequences) {
		s.consequences = append(s.consequences, w.Consequences[id])
	}
	return s
}

// has reports whether the set defines id as kind.
func (s entitySet) has(kind, id string) bool {
	switch kind {
	case kindLocation:
		return s.locations[id] != nil
	case kindCharacter:
		return s.characters[id] != nil
	case kindItem:
		return s.items[id] != nil
	case kindQuest:
		return s.quests[id] != nil
	case kindFaction:
		return s.factions[id] != nil
	}
	return false
}

func (s entitySet) known(kind string) string {
	switch kind {
	case kindLocation:
		return known(s.locations)
	case kindCharacter:
		return known(s.characters)
	case kindItem:
		return known(s.items)
	case kindQuest:
		return known(s.quests)
	}
	return known(s.factions)
}

// ref is one reference from an entity to another, with a way to change
// it (to its namespaced form).
type ref struct {
	kind      string // what it points at
	ownerKind string // who holds it, and the key it is under (for lines)
	ownerID   string
	key       string
	value     string
	set       func(string)
	// check is false for references validate checks in its own way (an
	// equipped item must be in the inventory; a discoverable's exit must
	// be one of the location's exits); they are still rewritten.
	check bool
}

// refs lists every reference the set's entities make, in a fixed order.
func (s entitySet) refs() []ref {
	var out []ref
	add := func(kind, ownerKind, ownerID, key string, p *string) {
		if *p != "" {
			out = append(out, ref{kind, ownerKind, ownerID, key, *p, func(v string) { *p = v }, true})
		}
	}
	addKeys := func(kind, ownerKind, ownerID, key string, m map[string]int) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, ref{kind, ownerKind, ownerID, key, k, func(v string) {
				if v != k {
					m[v] += m[k]
					delete(m, k)
				}
			}, true})
		}
	}
	addList := func(kind, ownerKind, ownerID, key string, l []string) {
		for i := range l {
			add(kind, ownerKind, ownerID, key, &l[i])
		}
	}
	for _, id := range world.SortedKeys(s.locations) {
		l := s.locations[id]
		add(kindLocation, "location", id, "parent", &l.Parent)
		for i := range l.Exits {
			add(kindLocation, "location", id, "exits", &l.Exits[i].To)
			add(kindItem, "location", id, "exits", &l.Exits[i].Key)
		}
		addKeys(kindItem, "location", id, "items", l.Items)
		for i := range l.Discoverables {
			add(kindItem, "location", id, "discoverables", &l.Discoverables[i].Item)
			if l.Discoverables[i].Exit != "" {
				add(kindLocation, "location", id, "discoverables", &l.Discoverables[i].Exit)
				out[len(out)-1].check = false
			}
		}
		if l.Encounter != nil {
			addList(kindCharacter, "location", id, "encounter", l.Encounter.Creatures)
		}
	}
	for _, id := range world.SortedKeys(s.characters) {
		ch := s.characters[id]
		add(kindLocation, "character", id, "location", &ch.Location)
		addKeys(kindItem, "character", id, "inventory", ch.Inventory)
		n := len(out)
		addList(kindItem, "character", id, "equipped", ch.Equipped)
		for i := n; i < len(out); i++ {
			out[i].check = false
		}
		add(kindFaction, "character", id, "faction", &ch.Faction)
	}
	for _, id := range world.SortedKeys(s.quests) {
		q := s.quests[id]
		add(kindCharacter, "quest", id, "giver", &q.Giver)
		addList(kindItem, "quest", id, "reward_items", q.RewardItems)
	}
	for _, cq := range s.consequences {
		if k := consequenceTarget(cq.On); k != "" {
			add(k, "consequence", cq.ID, "target", &cq.Target)
		}
		add(kindLocation, "consequence", cq.ID, "at", &cq.At)
	}
	return out
}

// consequenceTarget is the kind of entity a consequence's trigger names.
func consequenceTarget(on string) string {
	switch on {
	case world.OnEnter:
		return kindLocation
	case world.OnTake, world.OnUse:
		return kindItem
	case world.OnDefeat, world.OnTalk:
		return kindCharacter
	case world.OnQuestComplete:
		return kindQuest
	}
	return ""
}

// splitID cuts a namespaced id "pack:entity"; pack is "" for a plain id.
func splitID(id string) (pack, local string) {
	if p, l, ok := strings.Cut(id, ":"); ok {
		return p, l
	}
	return "", id
}
