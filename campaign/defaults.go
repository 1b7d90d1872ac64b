package campaign

import (
	"cmp"

	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/rules"
	"github.com/hearth-rpg/hearth/world"
)

// DefaultPlayer is the id of the player character a campaign gets when it
// defines none (seed 001 §6.2.6: without constraints, any character may
// play).
const DefaultPlayer = "player"

// fillDefaults makes a minimal campaign playable, as seed 001 §6.2 asks
// (SC-040: a title, a version and a few prose files): with no locations
// it plays as a single scene, with no player character a plain traveller
// plays, and an NPC with no location stands in the opening scene. Each is
// a warning, so the author learns what was assumed without being refused.
// A campaign that plays with packs is left alone: its packs may hold what
// it lacks.
func (c *Campaign) fillDefaults(errs *pack.Problems) {
	if !c.pack.campaign || c.Meta.Title == "" || len(c.pack.requires) > 0 {
		return
	}
	mf, _ := c.metaAt("title")
	if len(c.Locations) == 0 && c.Meta.Start.Location == "" && c.Constraints.StartingLocation == "" {
		id := rules.Slug(cmp.Or(c.Meta.Start.Scene, c.Meta.Title))
		c.Locations[id] = &world.Location{ID: id, Name: cmp.Or(c.Meta.Start.Scene, c.Meta.Title),
			Description: c.Meta.Description, Atmosphere: c.Meta.Tone}
		c.Meta.Start.Location = id
		errs.Warn(mf, 0, "no locations: the campaign plays as a single scene, %q; add location files to give it places to go", c.Locations[id].Name)
	}
	pcs := 0
	for _, ch := range c.Characters {
		if ch.Kind == world.PC {
			pcs++
		}
	}
	if pcs == 0 && c.Meta.Player == "" && len(c.Meta.Party) == 0 && c.Characters[DefaultPlayer] == nil {
		c.Characters[DefaultPlayer] = defaultPlayer()
		c.Meta.Player = DefaultPlayer
		errs.Warn(mf, 0, "no player character: a traveller with average abilities plays; add a file with entity_type: player_character to write your own")
	}
	start := cmp.Or(c.Constraints.StartingLocation, c.Meta.Start.Location)
	if c.Locations[start] == nil {
		return
	}
	for _, id := range world.SortedKeys(c.Characters) {
		ch := c.Characters[id]
		if ch.Kind == world.PC || ch.Location != "" {
			continue
		}
		ch.Location = start
		f, l := c.at("character", id, "location")
		errs.Warn(f, l, "%s has no location: they start in the opening scene, %s; add location: ID to place them elsewhere", ch.Name, c.Locations[start].Name)
	}
}

// defaultPlayer is a plain first-level traveller: every ability 10, so no
// check leans either way until the campaign says otherwise.
func defaultPlayer() *world.Character {
	ch := &world.Character{ID: DefaultPlayer, Kind: world.PC, Name: "The Traveller",
		Description: "A traveller with a pack, a cloak and a story not yet told."}
	ch.Level, ch.HP, ch.MaxHP, ch.AC, ch.Speed = 1, 10, 10, 10, 30
	ch.Abilities = map[string]int{"strength": 10, "dexterity": 10, "constitution": 10, "intelligence": 10, "wisdom": 10, "charisma": 10}
	ch.HitDice, ch.ProficiencyBonus = "1d8", 2
	return ch
}
