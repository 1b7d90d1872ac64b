package narrative

import (
	"fmt"
	"math"
	"time"

	"github.com/hearth-rpg/hearth/world"
)

// Scale is the range of a reputation or perception score; its neutral
// point is 0. The zero value is the seed's -100..100.
type Scale struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

func (s Scale) orDefault() Scale {
	if s.Min == 0 && s.Max == 0 {
		return Scale{Min: -100, Max: 100}
	}
	return s
}

// Validate reports a scale that cannot hold a neutral 0.
func (s Scale) Validate() error {
	s = s.orDefault()
	if !(s.Min < 0 && s.Max > 0) || math.IsInf(s.Min, 0) || math.IsInf(s.Max, 0) {
		return fmt.Errorf("scale %g..%g: min must be below 0 and max above it, 0 being neutral", s.Min, s.Max)
	}
	return nil
}

// Clamp keeps v within the scale; NaN becomes neutral.
func (s Scale) Clamp(v float64) float64 {
	s = s.orDefault()
	if math.IsNaN(v) {
		return 0
	}
	return min(max(v, s.Min), s.Max)
}

// percent maps v to -100..100 so tiers read the same on every scale.
func (s Scale) percent(v float64) float64 {
	s = s.orDefault()
	if v >= 0 {
		return 100 * v / s.Max
	}
	return -100 * v / s.Min
}

// Decay fades opinions toward neutral with game time (seed 001 §4.1.4,
// §4.2.3, SC-029). An opinion weaker than Strong loses Rate of its value
// per Unit of game time, continuously: v(t) = v0·(1−Rate)^(t/Unit), so it
// loses exactly 10% a week at the defaults. While at least Strong, it
// loses Rate·StrongFactor per Unit instead, until it has faded to Strong;
// so strong impressions fade slower, and the decay is exact for any
// elapsed time, not stepped by whole units.
type Decay struct {
	Rate         float64        `json:"rate"`          // share lost per Unit, 0..1
	Unit         world.GameTime `json:"unit"`          // game minutes
	Strong       float64        `json:"strong"`        // |value| from which opinions fade slower
	StrongFactor float64        `json:"strong_factor"` // rate multiplier for strong opinions, 0..1
}

// DefaultDecay is the seed's: 10% per in-game week, half as fast for
// opinions of ±50 or stronger.
func DefaultDecay() Decay {
	return Decay{Rate: 0.10, Unit: world.Week, Strong: 50, StrongFactor: 0.5}
}

// Validate reports rates that would grow opinions or divide by zero.
func (d Decay) Validate() error {
	switch {
	case d.Rate < 0 || d.Rate >= 1 || math.IsNaN(d.Rate):
		return fmt.Errorf("decay rate %g: use a share lost per unit from 0 up to (not including) 1", d.Rate)
	case d.Rate > 0 && d.Unit <= 0:
		return fmt.Errorf("decay unit %d: use a positive number of game minutes (a week is %d)", d.Unit, world.Week)
	case d.StrongFactor < 0 || d.StrongFactor > 1 || math.IsNaN(d.StrongFactor):
		return fmt.Errorf("strong-opinion factor %g: use 0..1 (1 fades strong opinions as fast as weak ones)", d.StrongFactor)
	case d.Strong < 0 || math.IsNaN(d.Strong):
		return fmt.Errorf("strong-opinion threshold %g must not be negative", d.Strong)
	}
	return nil
}

// Apply returns v after elapsed game time of decay.
func (d Decay) Apply(v float64, elapsed world.GameTime) float64 {
	if v == 0 || d.Rate <= 0 || d.Unit <= 0 || elapsed <= 0 || math.IsNaN(v) {
		return v
	}
	t := float64(elapsed) / float64(d.Unit) // units of decay to apply
	sign, a := 1.0, math.Abs(v)
	if v < 0 {
		sign = -1
	}
	if d.Strong > 0 && a > d.Strong && d.StrongFactor < 1 {
		slow := d.Rate * d.StrongFactor
		if slow <= 0 {
			return v // strong opinions never fade
		}
		// Units needed to fade from a to Strong at the slow rate.
		need := math.Log(d.Strong/a) / math.Log(1-slow)
		if t <= need {
			return sign * a * math.Pow(1-slow, t)
		}
		a, t = d.Strong, t-need
	}
	return sign * a * math.Pow(1-d.Rate, t)
}

// Standing is a faction's view of the player or an NPC's perception of
// them: a score as set at game time At, read through Current.
type Standing struct {
	Subject string         `json:"subject"` // faction or NPC ID
	Value   float64        `json:"value"`   // as of At
	At      world.GameTime `json:"at"`
}

// Current returns the standing's value at game time now, after decay.
func (s Standing) Current(now world.GameTime, d Decay) float64 {
	return d.Apply(s.Value, now-s.At)
}

// Change records one adjustment of a standing, for its history.
type Change struct {
	Subject string         `json:"subject"`
	At      world.GameTime `json:"at"`
	Wall    time.Time      `json:"wall,omitzero"`
	Turn    int            `json:"turn,omitempty"`
	Before  float64        `json:"before"` // after decay up to At
	Delta   float64        `json:"delta"`  // as asked
	After   float64        `json:"after"`  // clamped to the scale
	Reason  string         `json:"reason"`
}

// MaxReasonBytes bounds a change's reason.
const MaxReasonBytes = 1 << 10

// Adjust decays s to game time now, adds delta, clamps to the scale and
// returns the new standing with the change to record. A change back in
// time (now before s.At) applies no decay and keeps s.At, so replayed or
// out-of-order changes never make an opinion younger than it is.
func (s Standing) Adjust(delta float64, now world.GameTime, reason string, sc Scale, d Decay) (Standing, Change, error) {
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		return s, Change{}, fmt.Errorf("change to %s: delta %v is not a number", s.Subject, delta)
	}
	if len(reason) > MaxReasonBytes {
		return s, Change{}, fmt.Errorf("change to %s: reason is %d bytes; the limit is %d", s.Subject, len(reason), MaxReasonBytes)
	}
	before := s.Current(now, d)
	after := sc.Clamp(before + delta)
	next := Standing{Subject: s.Subject, Value: after, At: max(now, s.At)}
	return next, Change{Subject: s.Subject, At: now, Before: before, Delta: delta, After: after, Reason: reason}, nil
}
