package narrative

import (
	"fmt"
	"math"
	"strings"
)

// PerceptionConfig holds the seed's NPC perception settings (§4.2.3).
// The zero value gives the defaults.
type PerceptionConfig struct {
	// Weights of a first impression: the NPC's faction's standing with the
	// player (the seed's factionInfluenceWeight), the player's visible
	// traits and equipment, and chance. The seed's split is 0.5, 0.3, 0.2.
	FactionWeight, TraitWeight, VarianceWeight float64
	// ModifierScale is the roll modifier per tier step (1 when 0).
	ModifierScale float64
	Decay         Decay
}

// WithDefaults fills the zero fields with the seed's values.
func (c PerceptionConfig) WithDefaults() PerceptionConfig {
	if c.FactionWeight == 0 && c.TraitWeight == 0 && c.VarianceWeight == 0 {
		c.FactionWeight, c.TraitWeight, c.VarianceWeight = 0.5, 0.3, 0.2
	}
	if c.ModifierScale == 0 {
		c.ModifierScale = 1
	}
	if c.Decay == (Decay{}) {
		c.Decay = DefaultDecay()
	}
	return c
}

// Validate reports settings that would break the -100..100 range.
func (c PerceptionConfig) Validate() error {
	for _, w := range []float64{c.FactionWeight, c.TraitWeight, c.VarianceWeight} {
		if w < 0 || w > 1 || math.IsNaN(w) {
			return fmt.Errorf("perception weights %g, %g, %g: each must be within 0..1", c.FactionWeight, c.TraitWeight, c.VarianceWeight)
		}
	}
	if s := c.FactionWeight + c.TraitWeight + c.VarianceWeight; s > 1.0001 {
		return fmt.Errorf("perception weights add up to %g; at most 1, so a first impression stays within -100..100", s)
	}
	if c.ModifierScale < 0 || c.ModifierScale > 3 || math.IsNaN(c.ModifierScale) {
		return fmt.Errorf("perception modifier scale %g: use 0..3", c.ModifierScale)
	}
	return c.Decay.Validate()
}

// Impression is what an NPC has to go on when meeting the player.
type Impression struct {
	// Faction is the NPC's faction ("" for none) and Standing the
	// player's current reputation with it, on the reputation Scale.
	Faction  string
	Standing float64
	Scale    Scale
	// Traits is how the player's visible traits and equipment strike this
	// NPC, -100..100 (0 when the game has no opinion).
	Traits float64
	// Variance is chance, -1..1, drawn by the caller from the campaign's
	// seeded RNG so the same game meets the same NPC the same way.
	Variance float64
}

// FirstImpression returns the perception an NPC starts with and a reason
// naming its parts (§4.2.3: faction reputation 50%, visible traits 30%,
// chance 20%). Without a faction, that share is neutral.
func (c PerceptionConfig) FirstImpression(im Impression) (float64, string) {
	c = c.WithDefaults()
	clamp := func(v, lim float64) float64 {
		if math.IsNaN(v) {
			return 0
		}
		return max(-lim, min(lim, v))
	}
	var faction float64
	if im.Faction != "" {
		faction = im.Scale.percent(im.Scale.Clamp(im.Standing))
	}
	traits := clamp(im.Traits, 100)
	chance := clamp(im.Variance, 1) * 100
	v := Scale{}.Clamp(c.FactionWeight*faction + c.TraitWeight*traits + c.VarianceWeight*chance)
	var why []string
	if im.Faction != "" {
		why = append(why, fmt.Sprintf("%s standing %+.0f×%.2f", im.Faction, faction, c.FactionWeight))
	}
	why = append(why, fmt.Sprintf("traits %+.0f×%.2f", traits, c.TraitWeight), fmt.Sprintf("chance %+.0f×%.2f", chance, c.VarianceWeight))
	return v, fmt.Sprintf("first impression %+.1f (%s)", v, strings.Join(why, ", "))
}

// SentimentDelta converts the significance of an action (1..10) to a
// perception change: the seed's ±0.1 to ±0.5 on its -1..1 sentiment scale
// (§7.6) is ±10 to ±50 on perception's -100..100. Positive helps, negative
// hurts.
func SentimentDelta(significance int, positive bool) float64 {
	s := min(max(significance, 1), 10)
	d := 10 + 40*float64(s-1)/9
	if !positive {
		d = -d
	}
	return math.Round(d*10) / 10
}

// Sentiment returns perception on the seed's -1..1 sentiment scale (§7.6).
func Sentiment(perception float64) float64 { return Scale{}.Clamp(perception) / 100 }
