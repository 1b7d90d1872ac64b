package narrative

import (
	"math"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/world"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestDecay(t *testing.T) {
	d := DefaultDecay()
	cases := []struct {
		name    string
		v       float64
		elapsed world.GameTime
		want    float64
	}{
		{"weak opinion loses 10% a week", 20, world.Week, 18},
		{"negative too", -20, world.Week, -18},
		{"two weeks compound", 40, 2 * world.Week, 40 * 0.81},
		{"half a week is continuous", 40, world.Week / 2, 40 * math.Sqrt(0.9)},
		{"strong opinion loses 5% a week", 80, world.Week, 76},
		{"strong opinion at the threshold edge", 50, world.Week, 45},
		{"no time, no decay", 80, 0, 80},
		{"time running backwards is ignored", 80, -world.Week, 80},
		{"neutral stays neutral", 0, 10 * world.Week, 0},
	}
	for _, tc := range cases {
		if got := d.Apply(tc.v, tc.elapsed); !near(got, tc.want) {
			t.Errorf("%s: Apply(%v, %v) = %v, want %v", tc.name, tc.v, tc.elapsed, got, tc.want)
		}
	}
	// A strong opinion fades at the slow rate down to the threshold, then
	// at the normal rate: 100 → 50 takes ln(0.5)/ln(0.95) weeks.
	need := math.Log(0.5) / math.Log(0.95)
	at := world.GameTime(math.Round(need * float64(world.Week)))
	if got := d.Apply(100, at); math.Abs(got-50) > 0.001 {
		t.Errorf("100 after %.2f weeks = %v, want 50", need, got)
	}
	if got, want := d.Apply(100, at+world.Week), d.Apply(50, world.Week); math.Abs(got-want) > 0.001 {
		t.Errorf("a week past the threshold = %v, want %v (the weak rate)", got, want)
	}
}

// TestStrongOpinionsDecaySlower asserts the ordering the seed asks for:
// over the same time, a strong opinion loses a smaller share than a weak
// one, for likes and dislikes alike, and decay never crosses neutral.
func TestStrongOpinionsDecaySlower(t *testing.T) {
	d := DefaultDecay()
	for _, span := range []world.GameTime{world.Day, world.Week, 4 * world.Week, 52 * world.Week} {
		for _, sign := range []float64{1, -1} {
			weak, strong := sign*20, sign*90
			lossWeak := 1 - d.Apply(weak, span)/weak
			lossStrong := 1 - d.Apply(strong, span)/strong
			if !(lossStrong < lossWeak) {
				t.Errorf("after %v, sign %v: strong lost %.3f, weak %.3f; strong should lose less", span, sign, lossStrong, lossWeak)
			}
			if v := d.Apply(strong, span); v*sign < 0 {
				t.Errorf("decay crossed neutral: %v", v)
			}
		}
	}
}

func TestDecayValidate(t *testing.T) {
	for _, d := range []Decay{{Rate: 1, Unit: world.Week}, {Rate: -0.1, Unit: 1}, {Rate: 0.1}, {Rate: 0.1, Unit: 1, StrongFactor: 2}, {Rate: math.NaN(), Unit: 1}} {
		if d.Validate() == nil {
			t.Errorf("%+v accepted", d)
		}
	}
	if err := DefaultDecay().Validate(); err != nil {
		t.Error(err)
	}
}

func TestStandingAdjust(t *testing.T) {
	cfg := ReputationConfig{}.WithDefaults()
	s := Standing{Subject: "guild", Value: 20, At: 0}
	cases := []struct {
		name       string
		delta      float64
		now        world.GameTime
		wantBefore float64
		wantAfter  float64
	}{
		{"decays to now then adds", 10, world.Week, 18, 28},
		{"clamps at the top", 500, 0, 20, 100},
		{"clamps at the bottom", -500, 0, 20, -100},
	}
	for _, tc := range cases {
		next, ch, err := s.Adjust(tc.delta, tc.now, "because", cfg.Scale, cfg.Decay)
		if err != nil {
			t.Fatal(err)
		}
		if !near(ch.Before, tc.wantBefore) || !near(ch.After, tc.wantAfter) || !near(next.Value, tc.wantAfter) || next.At != tc.now || ch.Reason != "because" {
			t.Errorf("%s: got %+v, %+v", tc.name, next, ch)
		}
	}
	later := Standing{Subject: "guild", Value: 20, At: world.Week}
	if next, _, _ := later.Adjust(1, 0, "late", cfg.Scale, cfg.Decay); next.At != world.Week {
		t.Errorf("a change back in time moved the standing to %v", next.At)
	}
	for name, delta := range map[string]float64{"NaN": math.NaN(), "Inf": math.Inf(1)} {
		if _, _, err := s.Adjust(delta, 0, "x", cfg.Scale, cfg.Decay); err == nil {
			t.Errorf("%s delta accepted", name)
		}
	}
	if _, _, err := s.Adjust(1, 0, strings.Repeat("r", MaxReasonBytes+1), cfg.Scale, cfg.Decay); err == nil {
		t.Error("overlong reason accepted")
	}
}

func TestScale(t *testing.T) {
	custom := Scale{Min: -10, Max: 50}
	for _, tc := range []struct {
		s    Scale
		v    float64
		want float64
	}{
		{Scale{}, 150, 100}, {Scale{}, -150, -100}, {Scale{}, math.NaN(), 0},
		{custom, 60, 50}, {custom, -11, -10}, {custom, 5, 5},
	} {
		if got := tc.s.Clamp(tc.v); !near(got, tc.want) {
			t.Errorf("%+v.Clamp(%v) = %v, want %v", tc.s, tc.v, got, tc.want)
		}
	}
	for _, bad := range []Scale{{Min: 0, Max: 100}, {Min: -5, Max: -1}, {Min: math.Inf(-1), Max: 1}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestTiers(t *testing.T) {
	cases := []struct {
		v    float64
		s    Scale
		tier Tier
		mod  int // scale 1, no limit
		mod2 int // the 2d6 cap of ±1
	}{
		{-100, Scale{}, Hated, -3, -1},
		{-90, Scale{}, Hostile, -2, -1},
		{-61, Scale{}, Hostile, -2, -1},
		{-60, Scale{}, Unfriendly, -1, -1},
		{-31, Scale{}, Unfriendly, -1, -1},
		{-30, Scale{}, Neutral, 0, 0},
		{30, Scale{}, Neutral, 0, 0},
		{31, Scale{}, Friendly, 1, 1},
		{61, Scale{}, Trusted, 2, 1},
		{91, Scale{}, Devoted, 3, 1},
		{200, Scale{}, Devoted, 3, 1},
		{16, Scale{Min: -10, Max: 50}, Friendly, 1, 1}, // 32% of the positive half
		{-4, Scale{Min: -10, Max: 50}, Unfriendly, -1, -1},
	}
	for _, tc := range cases {
		tier := TierOf(tc.v, tc.s)
		if tier != tc.tier {
			t.Errorf("TierOf(%v, %+v) = %v, want %v", tc.v, tc.s, tier, tc.tier)
		}
		if m := tier.Modifier(1, 0); m != tc.mod {
			t.Errorf("%v.Modifier(1, 0) = %d, want %d", tier, m, tc.mod)
		}
		if m := tier.Modifier(0, 1); m != tc.mod2 {
			t.Errorf("%v.Modifier(0, 1) = %d, want %d", tier, m, tc.mod2)
		}
	}
	if Trusted.Modifier(1.5, 0) != 3 || Friendly.Modifier(0.5, 0) != 1 || Unfriendly.Modifier(0.5, 0) != -1 {
		t.Error("modifier scale rounds half away from zero")
	}
	if !Friendly.OpensCooperation() || Neutral.OpensCooperation() || !Unfriendly.HidesFriendly() || Neutral.HidesFriendly() {
		t.Error("option gates at ±30 are wrong")
	}
	if Hated.String() != "hated" || Devoted.String() != "devoted" {
		t.Error("tier names")
	}
}
