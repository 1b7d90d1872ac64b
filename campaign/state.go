package campaign

import (
	"fmt"
	"maps"
	"strings"

	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// NewState builds the world at turn 0: the campaign's entities copied (the
// campaign itself is never changed by play), the player character placed
// at the start with starting items, stat defaults set, the clock and the
// first scene.
//
// A campaign that uses entities of its packs starts through the scenario
// BindPacks made, and without one is an error.
func (c *Campaign) NewState() (*world.State, error) {
	if c.scenario != nil {
		return c.scenario.NewState()
	}
	if err := c.unbound(); err != nil {
		return nil, err
	}
	return c.newState(seeding{})
}

// UsesPackEntities reports whether c refers to entities of the packs it
// plays with (srd51:goblin, or a plain id no entity of its own has), so a
// game of it needs those packs bound first (BindPacks).
func (c *Campaign) UsesPackEntities() bool { return len(c.external) > 0 }

// BindPacks binds c to the packs it plays with, as NewScenario does and
// with its checks: NewState and NewStateWithParty then copy the pack
// entities c uses into each new game. Bind a campaign once, before it is
// shared.
func (c *Campaign) BindPacks(packs ...*Pack) error {
	s, err := NewScenario(c, packs...)
	if err != nil {
		return err
	}
	c.scenario = s
	return nil
}

// unbound is the error of starting a game of c without the packs whose
// entities it uses.
func (c *Campaign) unbound() error {
	if len(c.external) == 0 {
		return nil
	}
	var ids []string
	for _, r := range c.Meta.Packs {
		ids = append(ids, r.ID)
	}
	return fmt.Errorf("campaign %s uses entities of its packs (%s, e.g. %s %q), which were not loaded with it",
		c.Meta.Title, strings.Join(ids, ", "), c.external[0].kind, c.external[0].id)
}

func (c *Campaign) newState(sd seeding) (*world.State, error) {
	rename := sd.rename
	if rename == nil {
		rename = func(_, id string) string { return id }
	}
	system := c.Meta.System
	if system == "" {
		system = world.SystemD20
	}
	w := world.New(system)
	maps.Copy(w.Locations, c.Locations)
	maps.Copy(w.Characters, c.Characters)
	maps.Copy(w.Items, c.Items)
	maps.Copy(w.Quests, c.Quests)
	maps.Copy(w.Factions, c.Factions)
	maps.Copy(w.StatDefs, c.Stats)
	for id, ch := range c.Characters {
		if ch.Kind == world.PC {
			w.Player = id
		}
	}
	if c.Meta.Player != "" {
		w.Player = c.Meta.Player
	}
	for _, f := range c.Facts {
		f := f
		w.Facts[f.ID] = &f
	}
	for _, cq := range c.Consequences {
		cq := cq
		w.Consequences[cq.ID] = &cq
	}
	for _, cl := range c.Clocks {
		cl := cl
		if cl.ID == "" {
			cl.ID = rules.Slug(cl.Name)
		}
		w.Clocks[cl.ID] = &cl
	}
	for _, t := range c.Threads {
		t := t
		if t.ID == "" {
			t.ID = rules.Slug(t.Title)
		}
		w.Threads[t.ID] = &t
	}
	for _, ev := range c.Scheduled {
		ev := ev
		w.Scheduled[ev.ID] = &ev
	}
	w.Relationships = append(w.Relationships, c.Relationships...)
	if sd.add != nil {
		if err := sd.add(w); err != nil {
			return nil, err
		}
	}
	// One deep copy, before anything is changed, so play never touches the
	// campaign's own entities.
	w, err := w.Clone()
	if err != nil {
		return nil, err
	}
	if sd.rename != nil {
		for _, r := range stateEntities(w).refs() {
			if id := rename(r.kind, r.value); id != r.value {
				r.set(id)
			}
		}
	}

	if sd.party != nil {
		if err := c.recruit(w, sd.party); err != nil {
			return nil, err
		}
	} else if len(c.Meta.Party) > 0 {
		if err := c.newParty(w, rename); err != nil {
			return nil, err
		}
	}
	pc := w.PC()
	if pc == nil {
		return nil, fmt.Errorf("campaign %s has no player character", c.Meta.Title)
	}
	start := c.Meta.Start.Location
	if c.Constraints.StartingLocation != "" {
		start = c.Constraints.StartingLocation
	}
	start = rename(kindLocation, start)
	// Every player character (the party's, or the one player) starts
	// together with the starting items and the campaign's stats.
	var pcs []*world.Character
	for _, m := range w.Members() {
		pcs = append(pcs, w.Characters[m.Character])
	}
	for _, pc := range pcs {
		if pc.Location == "" || c.Constraints.StartingLocation != "" || len(w.Party) > 0 {
			pc.Location = start
		}
		if w.Locations[pc.Location] == nil {
			return nil, fmt.Errorf("campaign %s: the player character starts at unknown location %q", c.Meta.Title, pc.Location)
		}
		for _, it := range c.Constraints.StartingItems {
			if pc.Inventory == nil {
				pc.Inventory = map[string]int{}
			}
			pc.Inventory[rename(kindItem, it)]++
		}
	}
	// Stat defaults: campaign-wide stats for the player characters,
	// npc.<id>.<stat> for that NPC.
	for id, d := range w.StatDefs {
		targets, stat := pcs, id
		if rest, ok := strings.CutPrefix(id, "npc."); ok {
			npc, s, _ := strings.Cut(rest, ".")
			targets, stat = []*world.Character{w.Characters[npc]}, s
			if targets[0] == nil {
				continue
			}
		}
		for _, target := range targets {
			if target.Stats == nil {
				target.Stats = map[string]int{}
			}
			if _, set := target.Stats[stat]; !set {
				target.Stats[stat] = d.Default
			} else {
				target.Stats[stat] = d.Clamp(target.Stats[stat])
			}
		}
	}
	day := max(1, c.Meta.Start.Day)
	w.Time = world.GameTime(day-1) * world.Day
	if t := c.Meta.Start.Time; t != "" {
		tm, err := clockTime(t)
		if err != nil {
			return nil, err
		}
		w.Time += tm
	}
	for _, ch := range w.Characters {
		if ch.PerceptionAt == 0 {
			ch.PerceptionAt = w.Time
		}
	}
	for _, f := range w.Factions {
		f.ReputationAt = w.Time
	}
	w.Locations[pc.Location].Visited = true
	title := c.Meta.Start.Scene
	if title == "" {
		title = w.Locations[pc.Location].Name
	}
	w.Scene = world.Scene{Number: 1, Title: title, Location: pc.Location, Mood: c.Meta.Start.Mood, StartAt: w.Time}
	return w, nil
}
