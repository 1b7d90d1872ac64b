package narrative

// ReputationConfig holds the seed's faction reputation settings (§4.1.4:
// reputationScale, decayRate). The zero value gives the defaults.
type ReputationConfig struct {
	Scale Scale
	Decay Decay
}

// WithDefaults fills the zero fields: -100..100, 10% a week, slower from ±50.
func (c ReputationConfig) WithDefaults() ReputationConfig {
	c.Scale = c.Scale.orDefault()
	if c.Decay == (Decay{}) {
		c.Decay = DefaultDecay()
	}
	return c
}

// Validate reports a scale or decay that cannot work.
func (c ReputationConfig) Validate() error {
	if err := c.Scale.Validate(); err != nil {
		return err
	}
	return c.Decay.Validate()
}

// Tier returns the tier of a reputation value on this scale.
func (c ReputationConfig) Tier(v float64) Tier { return TierOf(v, c.Scale) }
