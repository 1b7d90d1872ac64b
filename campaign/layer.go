package campaign

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/world"
)

// Library is packs layered: base packs first, then supplements, then
// homebrew (in the order given within a layer). Every entity is known by
// its namespaced id, pack:entity (seed 004); references between entities
// are namespaced too. A later pack replaces an earlier pack's entity
// only when it says so with overrides: pack:entity; the overriding
// entity then answers to both ids.
type Library struct {
	Packs   []*Pack // in layer order
	entries map[string]*Entry
}

// Entry is one entity of a layered pack.
type Entry struct {
	ID   string `json:"id"`   // namespaced: pack:entity
	Kind string `json:"kind"` // location, character, item, quest, faction, stat, lore, consequence, plot_beat
	Pack string `json:"pack"` // the pack whose definition is used
	File string `json:"file"`
	Line int    `json:"line"`
	// Overrides is the entity this one replaced, if any.
	Overrides string `json:"overrides,omitempty"`
	// Value is the entity, with namespaced references: *world.Location,
	// *world.Character, *world.Item, *world.Quest, *world.Faction,
	// *world.StatDef, *world.Fact, *world.Consequence or *Beat. It is
	// shared; copy it before changing it.
	Value any `json:"-"`
}

func entryKey(kind, id string) string { return kind + "\x00" + id }

// Layer orders packs and joins their entities. Two packs with one id, a
// missing or mismatched required pack, an id defined twice without
// overrides, an override of nothing, and a reference into a pack that
// has no such entity are errors, all reported together.
func Layer(packs ...*Pack) (*Library, error) {
	l := &Library{entries: map[string]*Entry{}}
	var errs pack.Problems
	byID := map[string]*Pack{}
	for _, p := range packs {
		if prev, ok := byID[p.Manifest.ID]; ok {
			errs.Add(p.Source, 0, "pack id %q is also the id of %s; each pack needs its own id", p.Manifest.ID, prev.Source)
			continue
		}
		if p.IsCampaign() {
			errs.Add(p.Source, 0, "%s is a campaign, which plays with packs rather than being one; bind it with NewScenario", p.Manifest.ID)
			continue
		}
		byID[p.Manifest.ID] = p
		l.Packs = append(l.Packs, p)
	}
	slices.SortStableFunc(l.Packs, func(a, b *Pack) int { return a.Manifest.Layer.Rank() - b.Manifest.Layer.Rank() })
	for _, p := range l.Packs {
		for _, r := range p.Manifest.Requires {
			checkRequirement(p.Manifest.ID+"/"+p.Manifest.File, 0, r, byID, &errs)
		}
	}
	for _, p := range l.Packs {
		l.add(p, &errs)
	}
	for _, p := range l.Packs {
		for _, x := range p.Content.external {
			if _, ok := l.Entity(x.kind, x.id); !ok {
				errs.Add(p.Manifest.ID+"/"+x.file, x.line, "%s %q is not in pack %s; known: %s", x.kind, x.id, packOf(x.id), l.known(x.kind, packOf(x.id)))
			}
		}
	}
	if e := errs.Errors(); len(e) > 0 {
		return nil, errors.Join(e...)
	}
	return l, nil
}

func packOf(id string) string {
	p, _ := splitID(id)
	return p
}

// checkRequirement reports a required pack that is missing or of a
// version the requirement does not allow.
func checkRequirement(file string, line int, r pack.Requirement, have map[string]*Pack, errs *pack.Problems) {
	p, ok := have[r.ID]
	switch {
	case !ok:
		var ids []string
		for id := range have {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		errs.Add(file, line, "requires pack %q, which is not loaded (loaded: %s); install it or remove the requirement", r.ID, strings.Join(ids, ", "))
	case !p.Manifest.Satisfies(r):
		errs.Add(file, line, "requires %s, but %s is version %s", r, r.ID, p.Manifest.Version)
	}
}

// add joins one pack's entities, namespaced, to the library.
func (l *Library) add(p *Pack, errs *pack.Problems) {
	values, err := namespaced(p)
	if err != nil {
		errs.Add(p.Manifest.ID, 0, "%v", err)
		return
	}
	for _, d := range p.Content.defs {
		e := &Entry{ID: p.NamespacedID(d.id), Kind: d.kind, Pack: p.Manifest.ID, File: d.file, Line: d.line, Value: values[entryKey(d.kind, d.id)]}
		where := p.Manifest.ID + "/" + d.file
		if d.overrides != "" {
			target, ok := l.entries[entryKey(d.kind, d.overrides)]
			switch {
			case !ok:
				errs.Add(where, d.line, "overrides %s %q, which no earlier pack defines; %s", d.kind, d.overrides, l.knownHint(d.kind, packOf(d.overrides)))
				continue
			case target.Pack == p.Manifest.ID:
				errs.Add(where, d.line, "overrides %q of its own pack; edit that entity instead", d.overrides)
				continue
			}
			e.Overrides = d.overrides
			l.entries[entryKey(d.kind, d.overrides)] = e
			if e.ID == d.overrides {
				continue
			}
		}
		if prev, ok := l.entries[entryKey(d.kind, e.ID)]; ok {
			errs.Add(where, d.line, "%s %q is also defined in %s/%s:%d; give one another id, or say overrides: %s", d.kind, e.ID, prev.Pack, prev.File, prev.Line, e.ID)
			continue
		}
		l.entries[entryKey(d.kind, e.ID)] = e
	}
}

// namespaced copies a pack's entities with every reference made
// namespaced, keyed by entryKey(kind, local id).
func namespaced(p *Pack) (map[string]any, error) {
	c := p.Content
	var cp struct {
		Locations    map[string]*world.Location  `json:"l"`
		Characters   map[string]*world.Character `json:"c"`
		Items        map[string]*world.Item      `json:"i"`
		Quests       map[string]*world.Quest     `json:"q"`
		Factions     map[string]*world.Faction   `json:"f"`
		Stats        map[string]*world.StatDef   `json:"s"`
		Facts        []world.Fact                `json:"fa"`
		Consequences []world.Consequence         `json:"co"`
		Beats        []Beat                      `json:"b"`
	}
	cp.Locations, cp.Characters, cp.Items, cp.Quests, cp.Factions, cp.Stats = c.Locations, c.Characters, c.Items, c.Quests, c.Factions, c.Stats
	cp.Facts, cp.Consequences, cp.Beats = c.Facts, c.Consequences, p.Beats
	b, err := json.Marshal(cp) // a deep copy: the pack's own entities stay as loaded
	if err != nil {
		return nil, err
	}
	cp.Locations, cp.Characters, cp.Items, cp.Quests, cp.Factions, cp.Stats = nil, nil, nil, nil, nil, nil
	cp.Facts, cp.Consequences, cp.Beats = nil, nil, nil
	if err := json.Unmarshal(b, &cp); err != nil {
		return nil, err
	}
	set := entitySet{locations: cp.Locations, characters: cp.Characters, items: cp.Items, quests: cp.Quests, factions: cp.Factions}
	for i := range cp.Consequences {
		set.consequences = append(set.consequences, &cp.Consequences[i])
	}
	for _, r := range set.refs() {
		r.set(p.NamespacedID(r.value))
	}
	out := map[string]any{}
	put := func(kind string, m any) {
		switch m := m.(type) {
		case map[string]*world.Location:
			for id, v := range m {
				v.ID = p.NamespacedID(id)
				out[entryKey(kind, id)] = v
			}
		case map[string]*world.Character:
			for id, v := range m {
				v.ID = p.NamespacedID(id)
				out[entryKey(kind, id)] = v
			}
		case map[string]*world.Item:
			for id, v := range m {
				v.ID = p.NamespacedID(id)
				out[entryKey(kind, id)] = v
			}
		case map[string]*world.Quest:
			for id, v := range m {
				v.ID = p.NamespacedID(id)
				out[entryKey(kind, id)] = v
			}
		case map[string]*world.Faction:
			for id, v := range m {
				v.ID = p.NamespacedID(id)
				out[entryKey(kind, id)] = v
			}
		case map[string]*world.StatDef:
			for id, v := range m {
				out[entryKey(kind, id)] = v
			}
		}
	}
	put(kindLocation, cp.Locations)
	put(kindCharacter, cp.Characters)
	put(kindItem, cp.Items)
	put(kindQuest, cp.Quests)
	put(kindFaction, cp.Factions)
	put("stat", cp.Stats)
	for i := range cp.Facts {
		out[entryKey("lore", strings.TrimPrefix(cp.Facts[i].ID, "lore-"))] = &cp.Facts[i]
	}
	for i := range cp.Consequences {
		id := cp.Consequences[i].ID
		cp.Consequences[i].ID = p.NamespacedID(id)
		out[entryKey("consequence", id)] = &cp.Consequences[i]
	}
	for i := range cp.Beats {
		b := &cp.Beats[i]
		for j, r := range b.Requires {
			b.Requires[j] = p.NamespacedID(r)
		}
		for j, cond := range b.Conditions {
			if cond.Kind == CondLocation || cond.Kind == CondItem || cond.Kind == CondReputation {
				b.Conditions[j].Subject = p.NamespacedID(cond.Subject)
			}
		}
		id := b.ID
		b.ID = p.NamespacedID(id)
		out[entryKey("plot_beat", id)] = b
	}
	return out, nil
}

// Entity returns the entity an id names: a namespaced id, as layered
// (an overridden id gives the overriding entity).
func (l *Library) Entity(kind, id string) (Entry, bool) {
	e, ok := l.entries[entryKey(kind, id)]
	if !ok {
		return Entry{}, false
	}
	return *e, true
}

// Entities lists every entity by kind and id; an overriding entity is
// listed under each id it answers to.
func (l *Library) Entities() []Entry {
	keys := make([]string, 0, len(l.entries))
	for k := range l.entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]Entry, 0, len(keys))
	for _, k := range keys {
		e := *l.entries[k]
		kind, id, _ := strings.Cut(k, "\x00")
		e.Kind, e.ID = kind, id
		out = append(out, e)
	}
	return out
}

// Pack returns the layered pack with an id.
func (l *Library) Pack(id string) *Pack {
	for _, p := range l.Packs {
		if p.Manifest.ID == id {
			return p
		}
	}
	return nil
}

// known lists ids of a kind (in one pack, when pack is set), for
// messages.
func (l *Library) known(kind, pack string) string {
	var ids []string
	for k := range l.entries {
		kd, id, _ := strings.Cut(k, "\x00")
		if kd == kind && (pack == "" || packOf(id) == pack) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	switch {
	case len(ids) == 0:
		return "none"
	case len(ids) > 12:
		return strings.Join(ids[:12], ", ") + ", …"
	}
	return strings.Join(ids, ", ")
}

func (l *Library) knownHint(kind, pack string) string {
	if pack == "" {
		return fmt.Sprintf("write the id with its pack (pack:%s)", kind)
	}
	return "known: " + l.known(kind, pack)
}
