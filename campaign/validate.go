package campaign

import (
	"slices"
	"sort"
	"strings"

	"github.com/hearth-rpg/hearth/pack"
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

// checkRef reports a reference to an entity that does not exist. A
// reference into another pack ("srd51:goblin") is left for layering when
// the pack names that pack (in requires, or a campaign's packs); so is a
// plain id a campaign does not define, when it plays with packs.
func (c *Campaign) checkRef(kind, id string, set entitySet, file string, line int, errs *pack.Problems) {
	pk, local := splitID(id)
	if pk == c.pack.self && c.pack.self != "" {
		id = local
	}
	if set.has(kind, id) {
		return
	}
	switch {
	case pk != "" && pk != c.pack.self && slices.Contains(c.pack.requires, pk),
		pk == "" && c.pack.campaign && len(c.pack.requires) > 0:
		c.external = append(c.external, extRef{kind: kind, id: id, file: file, line: line})
	case pk != "" && pk != c.pack.self:
		errs.Add(file, line, "%s %q is in pack %q, which is not named in %s; add it there", kind, id, pk, requiresKey(c.pack.campaign))
	default:
		errs.Add(file, line, "%s %q does not exist; known %ss: %s", kind, id, kind, set.known(kind))
	}
}

// validate checks every cross-reference, and, for a campaign, that it can
// be played.
func (c *Campaign) validate(errs *pack.Problems) {
	c.fillDefaults(errs)
	set := c.entities()
	for _, r := range set.refs() {
		if r.check {
			f, l := c.at(r.ownerKind, r.ownerID, r.key)
			c.checkRef(r.kind, r.value, set, f, l, errs)
		}
	}
	for _, id := range world.SortedKeys(c.Locations) {
		l := c.Locations[id]
		for _, e := range l.Exits {
			if e.Locked && e.Key == "" {
				f, ln := c.at("location", id, "exits")
				errs.Add(f, ln, "the locked exit to %q names no key; add key: ITEM (or unlock it with a consequence)", e.To)
			}
		}
		for _, d := range l.Discoverables {
			if d.ID == "" || d.Text == "" {
				f, ln := c.at("location", id, "discoverables")
				errs.Add(f, ln, "each discoverable needs an id and a text")
			}
			if d.Exit != "" {
				if _, ok := l.Exit(d.Exit); !ok {
					f, ln := c.at("location", id, "discoverables")
					errs.Add(f, ln, "discoverable %q reveals an exit to %q, but %s has no such exit; add it to exits with hidden: true", d.ID, d.Exit, id)
				}
			}
		}
		if l.Encounter != nil {
			for _, cr := range l.Encounter.Creatures {
				if ch := c.Characters[cr]; ch != nil && ch.Location != id {
					f, ln := c.at("location", id, "encounter")
					errs.Add(f, ln, "encounter creature %q is at %q, not here; set its location: %s", cr, ch.Location, id)
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
		for _, it := range ch.Equipped {
			if ch.Inventory[it] == 0 {
				f, l := c.at("character", id, "equipped")
				errs.Add(f, l, "equipped %q is not in the inventory", it)
			}
		}
		if ch.Kind != world.PC && ch.Location == "" && c.pack.campaign { // a pack's creatures are placed by the campaigns that use them
			f, l := c.at("character", id, "location")
			errs.Add(f, l, "%s has no location; add location: ID", id)
		}
		if ch.Kind != world.PC && ch.MaxHP == 0 && (ch.Hostile || ch.Kind == world.Creature) {
			f, l := c.at("character", id, "hit_points")
			errs.Add(f, l, "%s can fight but has no hit_points", id)
		}
	}
	for _, id := range world.SortedKeys(c.Quests) {
		q := c.Quests[id]
		if len(q.Objectives) == 0 {
			f, l := c.at("quest", id, "objectives")
			errs.Add(f, l, "quest %q has no objectives", id)
		}
	}
	for _, cq := range c.Consequences {
		if cq.On != "" && cq.Target == "" {
			f, l := c.at("consequence", cq.ID, "target")
			errs.Add(f, l, "on %s needs a target", cq.On)
		}
		for i, raw := range cq.Then {
			if _, err := rules.DecodeIntent(raw); err != nil {
				f, l := c.at("consequence", cq.ID, "then")
				errs.Add(f, l, "then[%d]: %v", i, err)
			}
		}
	}
	for _, ev := range c.Scheduled {
		for i, raw := range ev.Then {
			if _, err := rules.DecodeIntent(raw); err != nil {
				f, l := c.metaAt("scheduled_events")
				errs.Add(f, l, "scheduled event %q then[%d]: %v", ev.ID, i, err)
			}
		}
	}
	for _, id := range world.SortedKeys(c.Stats) {
		if rest, ok := strings.CutPrefix(id, "npc."); ok {
			npc, _, _ := strings.Cut(rest, ".")
			f, l := c.at("stat", id, "id")
			c.checkRef(kindCharacter, npc, set, f, l, errs)
		}
	}
	if !c.pack.campaign || c.Meta.Title == "" { // a pack is not played alone; a broken campaign.yml would only add noise
		return
	}
	switch {
	case len(c.Meta.Party) > 0:
		c.checkParty(errs)
	case c.Meta.Player != "":
		if ch := c.Characters[c.Meta.Player]; ch == nil {
			f, l := c.metaAt("player")
			errs.Add(f, l, "player %q does not exist; add a player_character file with that id", c.Meta.Player)
		} else {
			ch.Kind = world.PC
		}
	case pcs == 0:
		f, _ := c.metaAt("player")
		errs.Add(f, 0, "no player character: add a file with entity_type: player_character, and player: ID here")
	case pcs > 1:
		f, _ := c.metaAt("player")
		errs.Add(f, 0, "%d player characters; say which one plays with player: ID", pcs)
	}
	start := c.Meta.Start.Location
	if c.Constraints.StartingLocation != "" {
		start = c.Constraints.StartingLocation
	}
	mf, startLine := c.metaAt("start")
	if start == "" && len(c.Locations) > 0 {
		errs.Add(mf, startLine, "start.location is missing; known locations: %s", known(c.Locations))
	} else if start != "" && c.Locations[start] == nil && !c.deferToPacks(kindLocation, start) {
		errs.Add(mf, startLine, "start.location %q does not exist; known locations: %s", start, known(c.Locations))
	}
	if t := c.Meta.Start.Time; t != "" {
		if _, err := clockTime(t); err != nil {
			errs.Add(mf, startLine, "start.%v", err)
		}
	}
	for _, it := range c.Constraints.StartingItems {
		if c.Items[it] == nil && !c.deferToPacks(kindItem, it) {
			errs.Add("player_character_constraints.yml", 0, "starting item %q does not exist; known items: %s", it, known(c.Items))
		}
	}
}

// deferToPacks defers a campaign-level reference (start, starting items) to
// the campaign's packs, when it plays with any.
func (c *Campaign) deferToPacks(kind, id string) bool {
	pk, _ := splitID(id)
	if len(c.pack.requires) == 0 || (pk != "" && !slices.Contains(c.pack.requires, pk)) {
		return false
	}
	file, line := c.metaAt("start")
	if kind == kindItem {
		file, line = "player_character_constraints.yml", 0
	}
	c.external = append(c.external, extRef{kind: kind, id: id, file: file, line: line})
	return true
}
