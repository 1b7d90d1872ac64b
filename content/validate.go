package content

import (
	"sort"
	"strings"

	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// at returns the file and line of an entity's key, for messages.
func (c *Campaign) at(kind, id, key string) (string, int) {
	s, ok := c.src[kind+":"+id]
	if !ok {
		return "campaign", 0
	}
	if l, ok := s.fm.Lines[key]; ok {
		return s.file, l
	}
	return s.file, s.fm.Line
}

func known[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return "none"
	}
	if len(keys) > 12 {
		return strings.Join(keys[:12], ", ") + ", …"
	}
	return strings.Join(keys, ", ")
}

// validate checks every cross-reference.
func (c *Campaign) validate(errs *problems) {
	item := func(kind, id, key, ref string) {
		if ref != "" && c.Items[ref] == nil {
			f, l := c.at(kind, id, key)
			errs.add(f, l, "item %q does not exist; known items: %s", ref, known(c.Items))
		}
	}
	location := func(kind, id, key, ref string) {
		if ref != "" && c.Locations[ref] == nil {
			f, l := c.at(kind, id, key)
			errs.add(f, l, "location %q does not exist; known locations: %s", ref, known(c.Locations))
		}
	}
	character := func(kind, id, key, ref string) {
		if ref != "" && c.Characters[ref] == nil {
			f, l := c.at(kind, id, key)
			errs.add(f, l, "character %q does not exist; known characters: %s", ref, known(c.Characters))
		}
	}
	for _, id := range world.SortedKeys(c.Locations) {
		l := c.Locations[id]
		location("location", id, "parent", l.Parent)
		for _, e := range l.Exits {
			location("location", id, "exits", e.To)
			item("location", id, "exits", e.Key)
			if e.Locked && e.Key == "" {
				f, ln := c.at("location", id, "exits")
				errs.add(f, ln, "the locked exit to %q names no key; add key: ITEM (or unlock it with a consequence)", e.To)
			}
		}
		for it := range l.Items {
			item("location", id, "items", it)
		}
		for _, d := range l.Discoverables {
			item("location", id, "discoverables", d.Item)
			if d.ID == "" || d.Text == "" {
				f, ln := c.at("location", id, "discoverables")
				errs.add(f, ln, "each discoverable needs an id and a text")
			}
			if d.Exit != "" {
				if _, ok := l.Exit(d.Exit); !ok {
					f, ln := c.at("location", id, "discoverables")
					errs.add(f, ln, "discoverable %q reveals an exit to %q, but %s has no such exit; add it to exits with hidden: true", d.ID, d.Exit, id)
				}
			}
		}
		if l.Encounter != nil {
			for _, cr := range l.Encounter.Creatures {
				character("location", id, "encounter", cr)
				if ch := c.Characters[cr]; ch != nil && ch.Location != id {
					f, ln := c.at("location", id, "encounter")
					errs.add(f, ln, "encounter creature %q is at %q, not here; set its location: %s", cr, ch.Location, id)
				}
			}
		}
	}
	pcs := 0
	for _, id := range world.SortedKeys(c.Characters) {
		ch := c.Characters[id]
		if ch.Kind == world.PC {
			pcs++
		}
		location("character", id, "location", ch.Location)
		for it := range ch.Inventory {
			item("character", id, "inventory", it)
		}
		for _, it := range ch.Equipped {
			if ch.Inventory[it] == 0 {
				f, l := c.at("character", id, "equipped")
				errs.add(f, l, "equipped %q is not in the inventory", it)
			}
		}
		if ch.Faction != "" && c.Factions[ch.Faction] == nil {
			f, l := c.at("character", id, "faction")
			errs.add(f, l, "faction %q does not exist; known factions: %s", ch.Faction, known(c.Factions))
		}
		if ch.Kind != world.PC && ch.Location == "" {
			f, l := c.at("character", id, "location")
			errs.add(f, l, "%s has no location; add location: ID", id)
		}
		if ch.Kind != world.PC && ch.MaxHP == 0 && (ch.Hostile || ch.Kind == world.Creature) {
			f, l := c.at("character", id, "hit_points")
			errs.add(f, l, "%s can fight but has no hit_points", id)
		}
	}
	for _, id := range world.SortedKeys(c.Quests) {
		q := c.Quests[id]
		character("quest", id, "giver", q.Giver)
		for _, it := range q.RewardItems {
			item("quest", id, "reward_items", it)
		}
		if len(q.Objectives) == 0 {
			f, l := c.at("quest", id, "objectives")
			errs.add(f, l, "quest %q has no objectives", id)
		}
	}
	for _, cq := range c.Consequences {
		switch cq.On {
		case world.OnEnter:
			location("consequence", cq.ID, "target", cq.Target)
		case world.OnTake, world.OnUse:
			item("consequence", cq.ID, "target", cq.Target)
		case world.OnDefeat, world.OnTalk:
			character("consequence", cq.ID, "target", cq.Target)
		case world.OnQuestComplete:
			if c.Quests[cq.Target] == nil {
				f, l := c.at("consequence", cq.ID, "target")
				errs.add(f, l, "quest %q does not exist; known quests: %s", cq.Target, known(c.Quests))
			}
		}
		if cq.On != "" && cq.Target == "" {
			f, l := c.at("consequence", cq.ID, "target")
			errs.add(f, l, "on %s needs a target", cq.On)
		}
		location("consequence", cq.ID, "at", cq.At)
		for i, raw := range cq.Then {
			if _, err := rules.DecodeIntent(raw); err != nil {
				f, l := c.at("consequence", cq.ID, "then")
				errs.add(f, l, "then[%d]: %v", i, err)
			}
		}
	}
	for _, ev := range c.Scheduled {
		for i, raw := range ev.Then {
			if _, err := rules.DecodeIntent(raw); err != nil {
				errs.add("campaign.yml", 0, "scheduled event %q then[%d]: %v", ev.ID, i, err)
			}
		}
	}
	for id := range c.Stats {
		if rest, ok := strings.CutPrefix(id, "npc."); ok {
			npc, _, _ := strings.Cut(rest, ".")
			character("stat", id, "id", npc)
		}
	}
	if c.Meta.Title == "" { // campaign.yml missing or broken; the rest would only add noise
		return
	}
	switch {
	case c.Meta.Player != "":
		if ch := c.Characters[c.Meta.Player]; ch == nil {
			errs.add("campaign.yml", 0, "player %q does not exist; add a player_character file with that id", c.Meta.Player)
		} else {
			ch.Kind = world.PC
		}
	case pcs == 0:
		errs.add("campaign.yml", 0, "no player character: add a file with entity_type: player_character, and player: ID here")
	case pcs > 1:
		errs.add("campaign.yml", 0, "%d player characters; say which one plays with player: ID", pcs)
	}
	start := c.Meta.Start.Location
	if c.Constraints.StartingLocation != "" {
		start = c.Constraints.StartingLocation
	}
	if start == "" && len(c.Locations) > 0 {
		errs.add("campaign.yml", 0, "start.location is missing; known locations: %s", known(c.Locations))
	} else if start != "" && c.Locations[start] == nil {
		errs.add("campaign.yml", 0, "start.location %q does not exist; known locations: %s", start, known(c.Locations))
	}
	if t := c.Meta.Start.Time; t != "" {
		if _, err := clockTime(t); err != nil {
			errs.add("campaign.yml", 0, "start.%v", err)
		}
	}
	for _, it := range c.Constraints.StartingItems {
		if c.Items[it] == nil {
			errs.add("player_character_constraints.yml", 0, "starting item %q does not exist; known items: %s", it, known(c.Items))
		}
	}
}
