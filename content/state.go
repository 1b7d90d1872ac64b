package content

import (
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// NewState builds the world at turn 0: the campaign's entities copied (the
// campaign itself is never changed by play), the player character placed
// at the start with starting items, stat defaults set, the clock and the
// first scene.
func (c *Campaign) NewState() (*world.State, error) {
	system := c.Meta.System
	if system == "" {
		system = world.SystemD20
	}
	w := world.New(system)
	for id, l := range c.Locations {
		cp := *l
		w.Locations[id] = &cp
	}
	for id, ch := range c.Characters {
		cp := *ch
		w.Characters[id] = &cp
		if ch.Kind == world.PC {
			w.Player = id
		}
	}
	if c.Meta.Player != "" {
		w.Player = c.Meta.Player
	}
	for id, it := range c.Items {
		cp := *it
		w.Items[id] = &cp
	}
	for id, q := range c.Quests {
		cp := *q
		w.Quests[id] = &cp
	}
	for id, f := range c.Factions {
		cp := *f
		w.Factions[id] = &cp
	}
	for id, s := range c.Stats {
		cp := *s
		w.StatDefs[id] = &cp
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

	pc := w.PC()
	if pc == nil {
		return nil, fmt.Errorf("campaign %s has no player character", c.Meta.Title)
	}
	start := c.Meta.Start.Location
	if c.Constraints.StartingLocation != "" {
		start = c.Constraints.StartingLocation
	}
	if pc.Location == "" || c.Constraints.StartingLocation != "" {
		pc.Location = start
	}
	if w.Locations[pc.Location] == nil {
		return nil, fmt.Errorf("campaign %s: the player character starts at unknown location %q", c.Meta.Title, pc.Location)
	}
	for _, it := range c.Constraints.StartingItems {
		if pc.Inventory == nil {
			pc.Inventory = map[string]int{}
		}
		pc.Inventory[it]++
	}
	// Stat defaults: campaign-wide stats for the player, npc.<id>.<stat>
	// for that NPC.
	for id, d := range w.StatDefs {
		target, stat := pc, id
		if rest, ok := strings.CutPrefix(id, "npc."); ok {
			npc, s, _ := strings.Cut(rest, ".")
			target, stat = w.Characters[npc], s
			if target == nil {
				continue
			}
		}
		if target.Stats == nil {
			target.Stats = map[string]int{}
		}
		if _, set := target.Stats[stat]; !set {
			target.Stats[stat] = d.Default
		} else {
			target.Stats[stat] = d.Clamp(target.Stats[stat])
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
	// A deep copy, so nothing in the state shares memory with the campaign.
	return w.Clone()
}
