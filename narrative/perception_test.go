package narrative

import (
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/world"
)

func TestFirstImpression(t *testing.T) {
	c := PerceptionConfig{}
	cases := []struct {
		name string
		im   Impression
		want float64
	}{
		{"no faction, no traits, no chance", Impression{}, 0},
		{"faction standing weighs half", Impression{Faction: "guild", Standing: 80}, 40},
		{"hated faction", Impression{Faction: "guild", Standing: -100}, -50},
		{"traits weigh 30%", Impression{Traits: 50}, 15},
		{"chance weighs 20%", Impression{Variance: -1}, -20},
		{"all together", Impression{Faction: "guild", Standing: 60, Traits: 20, Variance: 0.5}, 30 + 6 + 10},
		{"standing read on the faction's scale", Impression{Faction: "guild", Standing: 5, Scale: Scale{Min: -10, Max: 10}}, 25},
		{"out-of-range inputs are clamped", Impression{Faction: "guild", Standing: 900, Traits: 900, Variance: 9}, 100},
		{"standing without a faction is ignored", Impression{Standing: 100}, 0},
	}
	for _, tc := range cases {
		got, why := c.FirstImpression(tc.im)
		if !near(got, tc.want) {
			t.Errorf("%s: %v, want %v (%s)", tc.name, got, tc.want, why)
		}
		if tc.im.Faction != "" && !strings.Contains(why, tc.im.Faction) {
			t.Errorf("%s: reason %q does not name the faction", tc.name, why)
		}
	}
	strong := PerceptionConfig{FactionWeight: 1}
	if got, _ := strong.FirstImpression(Impression{Faction: "guild", Standing: 70, Traits: 100}); !near(got, 70) {
		t.Errorf("faction weight 1 gives %v, want 70", got)
	}
}

func TestPerceptionConfigValidate(t *testing.T) {
	for _, c := range []PerceptionConfig{
		{FactionWeight: 0.8, TraitWeight: 0.3, VarianceWeight: 0.2},
		{FactionWeight: -0.1},
		{ModifierScale: 10},
		{Decay: Decay{Rate: 2, Unit: 1}},
	} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := (PerceptionConfig{}).WithDefaults().Validate(); err != nil {
		t.Error(err)
	}
}

func TestSentiment(t *testing.T) {
	for _, tc := range []struct {
		sig      int
		positive bool
		want     float64
	}{
		{1, true, 10}, {10, true, 50}, {10, false, -50}, {0, true, 10}, {99, false, -50}, {5, true, 27.8},
	} {
		if got := SentimentDelta(tc.sig, tc.positive); !near(got, tc.want) {
			t.Errorf("SentimentDelta(%d, %v) = %v, want %v", tc.sig, tc.positive, got, tc.want)
		}
	}
	if Sentiment(45) != 0.45 || Sentiment(-300) != -1 {
		t.Error("Sentiment maps -100..100 onto -1..1")
	}
}

// TestHelpedVersusBetrayed is SC-028: an NPC the player helped scores
// more than 30 points above one the player betrayed, after the same time.
func TestHelpedVersusBetrayed(t *testing.T) {
	c := PerceptionConfig{}.WithDefaults()
	start, _ := c.FirstImpression(Impression{Faction: "town", Standing: 10})
	helped := Standing{Subject: "gareth", Value: start}
	betrayed := Standing{Subject: "mira", Value: start}
	helped, _, _ = helped.Adjust(SentimentDelta(SignificanceHigh, true), 60, "helped repair the anvil", Scale{}, c.Decay)
	betrayed, _, _ = betrayed.Adjust(SentimentDelta(SignificanceHigh, false), 60, "sold her out to the guard", Scale{}, c.Decay)
	now := 60 + 3*world.Week
	if h, b := helped.Current(now, c.Decay), betrayed.Current(now, c.Decay); h-b <= 30 {
		t.Errorf("helped %v, betrayed %v: want a gap above 30", h, b)
	}
}
