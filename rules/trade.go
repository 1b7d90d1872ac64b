package rules

import (
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/world"
)

// traderTags mark a character who sells: a campaign gives an NPC one of
// these tags (tags: [innkeeper]) to let the player buy from them.
var traderTags = []string{"trader", "innkeeper", "shopkeeper", "merchant", "barkeep", "vendor"}

// Trader reports whether c sells things: a living, not hostile person
// tagged as a trader, innkeeper, shopkeeper, merchant, barkeep or vendor.
func Trader(c *world.Character) bool {
	if c == nil || c.Kind == world.Creature || c.Hostile || !c.Alive() || c.HasCondition("dead") {
		return false
	}
	return slices.ContainsFunc(c.Tags, func(t string) bool {
		return slices.Contains(traderTags, strings.ToLower(strings.TrimSpace(t)))
	})
}

// Traders lists the traders in the world, by name, so a player with no one
// to buy from can be told where to go.
func Traders(w *world.State) []*world.Character {
	if w == nil {
		return nil
	}
	var out []*world.Character
	for _, c := range w.Characters {
		if Trader(c) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *world.Character) int { return strings.Compare(a.Name, b.Name) })
	return out
}
