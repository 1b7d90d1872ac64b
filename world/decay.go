package world

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/access"
)

// DecayRules says how fast remembered things fade. Opinions (perception,
// reputation) fade toward zero with game time (seed 001: about 10% a week,
// slower for strong opinions); importance fades with turns (seed 003: facts
// 2% a turn, stable categories 1%, consequences 1%).
type DecayRules struct {
	PerceptionPerWeek  float64 `json:"perception_per_week"`
	ReputationPerWeek  float64 `json:"reputation_per_week"`
	StrongOpinion      int     `json:"strong_opinion"` // |value| at or above which opinions fade slower
	StrongFactor       float64 `json:"strong_factor"`  // rate multiplier for strong opinions
	FactPerTurn        float64 `json:"fact_per_turn"`
	StableFactPerTurn  float64 `json:"stable_fact_per_turn"`
	ConsequencePerTurn float64 `json:"consequence_per_turn"`
	EntityPerTurn      float64 `json:"entity_per_turn"`
}

// DefaultDecay returns the rates of the source designs.
func DefaultDecay() DecayRules {
	return DecayRules{
		PerceptionPerWeek:  0.10,
		ReputationPerWeek:  0.10,
		StrongOpinion:      50,
		StrongFactor:       0.5,
		FactPerTurn:        0.02,
		StableFactPerTurn:  0.01,
		ConsequencePerTurn: 0.01,
		EntityPerTurn:      0.02,
	}
}

// maxDecaySteps bounds the per-week loop; after ten years of game time
// every opinion has long reached zero.
const maxDecaySteps = 520

// decayOpinion fades v toward zero for every whole week between since and
// now.
func decayOpinion(v int, since, now GameTime, rate float64, strong int, factor float64) int {
	if v == 0 || rate <= 0 || now <= since {
		return v
	}
	weeks := int((now - since) / Week)
	if weeks > maxDecaySteps {
		return 0
	}
	f := float64(v)
	for range weeks {
		r := rate
		if strong > 0 && math.Abs(f) >= float64(strong) {
			r *= factor
		}
		f *= 1 - r
	}
	return int(math.Round(f))
}

// Perception returns an NPC's current opinion of the player, after decay.
func (s *State) Perception(npc string) int {
	c := s.Characters[npc]
	if c == nil {
		return 0
	}
	d := s.Decay
	return decayOpinion(c.Perception, c.PerceptionAt, s.Time, d.PerceptionPerWeek, d.StrongOpinion, d.StrongFactor)
}

// Reputation returns the player's current standing with a faction, after
// decay.
func (s *State) Reputation(faction string) int {
	f := s.Factions[faction]
	if f == nil {
		return 0
	}
	d := s.Decay
	return decayOpinion(f.Reputation, f.ReputationAt, s.Time, d.ReputationPerWeek, d.StrongOpinion, d.StrongFactor)
}

func fade(importance, rate float64, turns int) float64 {
	if turns <= 0 || rate <= 0 {
		return importance
	}
	return importance * math.Pow(1-rate, float64(turns))
}

func stableCategory(c string) bool {
	switch c {
	case CategoryLocation, CategoryAppearance, CategoryBackstory:
		return true
	}
	return false
}

// FactImportance returns a fact's importance now.
func (s *State) FactImportance(f *Fact) float64 {
	rate := s.Decay.FactPerTurn
	if stableCategory(f.Category) {
		rate = s.Decay.StableFactPerTurn
	}
	return fade(f.Importance, rate, s.Turn-f.Turn)
}

// ConsequenceImportance returns a consequence's importance now.
func (s *State) ConsequenceImportance(c *Consequence) float64 {
	return fade(c.Importance, s.Decay.ConsequencePerTurn, s.Turn-c.Turn)
}

// CharacterImportance is 1 when the character was part of this turn and
// fades while they are idle.
func (s *State) CharacterImportance(c *Character) float64 {
	return fade(1, s.Decay.EntityPerTurn, s.Turn-c.MentionedTurn)
}

// TopFacts returns up to n facts the reader may see, most important first
// (ties by ID, so the order is stable).
func (s *State) TopFacts(n int, reader access.Level) []*Fact {
	type scored struct {
		f *Fact
		v float64
	}
	better := func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.v, a.v), strings.Compare(a.f.ID, b.f.ID))
	}
	// A bounded insertion keeps the n best: the state may hold thousands
	// of facts and only a few dozen are asked for.
	top := make([]scored, 0, min(n, len(s.Facts))+1)
	for _, f := range s.Facts {
		if n <= 0 || !reader.CanSee(f.Visibility) {
			continue
		}
		c := scored{f, s.FactImportance(f)}
		if len(top) == n && better(c, top[n-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, c, better)
		top = slices.Insert(top, i, c)
		if len(top) > n {
			top = top[:n]
		}
	}
	out := make([]*Fact, len(top))
	for i, c := range top {
		out[i] = c.f
	}
	return out
}

// ClampOpinion keeps a perception or reputation value in -100..100.
func ClampOpinion(v int) int { return max(-100, min(100, v)) }
