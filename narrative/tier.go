package narrative

import (
	"fmt"
	"math"
)

// Tier names how strongly a faction or NPC feels about the player. The
// seed's bands (§4.2.1, §4.2.3): beyond +30 friendly options open and
// rolls gain +1 to +3; beyond -30 friendly options close and rolls lose 1
// to 3; in between nothing changes. The bonus steps at 30, 60 and 90 of
// the scale's -100..100 (or the same share of a custom scale).
type Tier int

// Tiers, from worst to best.
const (
	Hated      Tier = -3 // below -90
	Hostile    Tier = -2 // -90 up to -60
	Unfriendly Tier = -1 // -60 up to -30
	Neutral    Tier = 0  // -30 to 30
	Friendly   Tier = 1  // above 30 up to 60
	Trusted    Tier = 2  // above 60 up to 90
	Devoted    Tier = 3  // above 90
)

var tierNames = map[Tier]string{
	Hated: "hated", Hostile: "hostile", Unfriendly: "unfriendly", Neutral: "neutral",
	Friendly: "friendly", Trusted: "trusted", Devoted: "devoted",
}

// String returns the tier's name, e.g. "friendly".
func (t Tier) String() string {
	if n, ok := tierNames[t]; ok {
		return n
	}
	return fmt.Sprintf("tier(%d)", int(t))
}

// TierOf returns the tier of v on scale s.
func TierOf(v float64, s Scale) Tier {
	p := s.percent(s.Clamp(v))
	switch {
	case p > 90:
		return Devoted
	case p > 60:
		return Trusted
	case p > 30:
		return Friendly
	case p < -90:
		return Hated
	case p < -60:
		return Hostile
	case p < -30:
		return Unfriendly
	}
	return Neutral
}

// OpensCooperation reports whether the tier enables cooperation options
// (§4.2.1: perception above 30).
func (t Tier) OpensCooperation() bool { return t >= Friendly }

// HidesFriendly reports whether the tier hides friendly options (§4.2.1:
// perception below -30).
func (t Tier) HidesFriendly() bool { return t <= Unfriendly }

// Modifier is the tier's bonus or penalty to a roll: one per tier step
// beyond neutral, times scale (the seed's modifierScale; 0 means 1),
// rounded half away from zero, then capped to ±limit when limit > 0 (the
// 2d6 rules use ±1 for NPC sentiment, §7.4).
func (t Tier) Modifier(scale float64, limit int) int {
	if !(scale > 0) || math.IsInf(scale, 0) {
		scale = 1
	}
	m := int(math.Round(float64(t) * scale))
	if limit > 0 {
		m = max(-limit, min(limit, m))
	}
	return m
}
