package contextpack

import (
	"encoding/json"
	"fmt"
)

// Precedence tiers of a packet's sections, the one place they are
// defined. A lower number is higher precedence: it wins when two sections
// disagree, and the budget keeps it first — a section is dropped only
// when it does not fit beside everything of higher precedence. They follow
// the Narratoria hierarchy, with the live state of chronicle-ai's world
// (quests, clocks, consequences, stats) in the state tier.
const (
	// TierCanon is the campaign's authored frame: its description and
	// rules, the adventure module.
	TierCanon = 1
	// TierState is the live session: the state, the player's action,
	// quests, clocks and pending consequences, stats, whispers and plot
	// beats.
	TierState = 2
	// TierAuthored is authored prose about what is at hand: the present
	// characters, scene lore, the table's suggestions.
	TierAuthored = 3
	// TierContext is cross-file context: lore retrieved for the scene,
	// callbacks to earlier story.
	TierContext = 4
	// TierFacts is what play has established: facts, one by one.
	TierFacts = 5
	// TierHistory is lossy history: summaries, recent turns, memories.
	TierHistory = 6
)

// TierName names a tier for people reading a packet.
func TierName(tier int) string {
	switch tier {
	case TierCanon:
		return "canon"
	case TierState:
		return "state"
	case TierAuthored:
		return "authored"
	case TierContext:
		return "context"
	case TierFacts:
		return "facts"
	case TierHistory:
		return "history"
	}
	return fmt.Sprintf("tier %d", tier)
}

// Drop is something the budget left out of a packet, and why.
type Drop struct {
	// What names it: "section:lore", "fact:<id>", "turns:1-40".
	What string `json:"what"`
	Tier int    `json:"tier,omitempty"`
	// Tokens is what it would have cost.
	Tokens int `json:"tokens,omitempty"`
	// Over is by how much it would have exceeded the budget, with
	// everything of higher precedence already in.
	Over int `json:"over,omitempty"`
}

// UnmarshalJSON reads a drop, or the bare name older turn records kept.
func (d *Drop) UnmarshalJSON(b []byte) error {
	var name string
	if json.Unmarshal(b, &name) == nil {
		*d = Drop{What: name}
		return nil
	}
	type plain Drop
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*d = Drop(p)
	return nil
}
