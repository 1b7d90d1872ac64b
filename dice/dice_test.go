package dice

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func seeded() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

func TestParseCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2d6+3", "2d6+3"},
		{"d20", "1d20"},
		{" 1d20 + 5 ", "1d20+5"},
		{"d%", "1d100"},
		{"4dF", "4dF"},
		{"4df", "4dF"},
		{"2D", "2d6"},
		{"3D+1", "3d6+1"},
		{"D66", "D66"},
		{"d66", "D66"},
		{"2d66", "2d66"},
		{"4d6kh3", "4d6kh3"},
		{"4d6k3", "4d6kh3"},
		{"2d20kl1", "2d20kl1"},
		{"4d6dl1", "4d6dl1"},
		{"4d6dh1", "4d6dh1"},
		{"1d20+5 adv", "2d20kh1+5"},
		{"d20 advantage", "2d20kh1"},
		{"d20 dis", "2d20kl1"},
		{"1d20+3 disadvantage", "2d20kl1+3"},
		{"d20adv", "2d20kh1"},
		{"3d6!", "3d6!"},
		{"3d6!>=5", "3d6!>=5"},
		{"3d6!>5", "3d6!>5"},
		{"2d6r1", "2d6r1"},
		{"2d6r<3", "2d6r<3"},
		{"2d6r<=2", "2d6r<=2"},
		{"6d6>=5", "6d6>=5"},
		{"10d10>7", "10d10>7"},
		{"5d6=6", "5d6=6"},
		{"1d20+dex", "1d20+dex"},
		{"1d20 + player.stats.dexterity", "1d20+player.stats.dexterity"},
		{"2d6+str-1", "2d6+str-1"},
		{"-2+d4", "-2+1d4"},
		{"1d20+3 # Stealth check", "1d20+3 # Stealth check"},
		{"1d20+3 [Stealth]", "1d20+3 # Stealth"},
		{"dexterity", "dexterity"},
		{"7", "7"},
	}
	for _, tt := range tests {
		e, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := e.String(); got != tt.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
		again, err := Parse(e.String())
		if err != nil || again.String() != e.String() {
			t.Errorf("re-parse of %q: %v %v", e.String(), again, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		pos  int
		want string
	}{
		{"", 1, "empty expression"},
		{"4d6kx3", 4, `unknown modifier "kx3"`},
		{"5000d6", 1, "too many dice"},
		{"200d6", 1, "200d asks for 200, the limit is 100 per term"},
		{"2d1001", 3, "too many sides"},
		{"2d0", 3, "at least 1 side"},
		{"0d6", 1, "0 dice"},
		{"2d6+", 5, "ends after an operator"},
		{"2d6 3", 5, "expected + or - and another term"},
		{"2d6 fly", 5, `unexpected "fly"`},
		{"4d6kh5", 4, "kh5 does not fit 4 dice"},
		{"4d6dl4", 4, "dl4 does not fit 4 dice"},
		{"d1!", 3, "cannot explode"},
		{"3d6!>=1", 4, "would explode every die"},
		{"2d6r", 5, "r needs a face"},
		{"2d6>=", 6, ">= needs a number"},
		{"2d6 adv", 1, "need a 1d20 term"},
		{"1d20 [label", 6, "not closed"},
		{"1d20 [x] y", 9, "nothing may follow"},
		{strings.Repeat("1+", 200), MaxLength + 1, "the limit is 256"},
		{strings.Repeat("1+", 20) + "1", 40, "too many terms"},
		{strings.Repeat("100d6+", 10) + "100d6", 60, "the expression asks for 1100"},
		{"2x", 2, `unexpected "x" after 2`},
		{"1d20+9999999", 6, "too large"},
		{"1d20+_.", 6, "not a valid name"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		var de *Error
		if !errors.As(err, &de) {
			t.Errorf("Parse(%q) = %v, want *Error", tt.in, err)
			continue
		}
		if !strings.Contains(de.Msg, tt.want) || de.Pos != tt.pos {
			t.Errorf("Parse(%q): column %d %q; want column %d containing %q", tt.in, de.Pos, de.Msg, tt.pos, tt.want)
		}
		if !strings.Contains(err.Error(), "column") {
			t.Errorf("error %q should name the column", err)
		}
	}
}

func TestRollProperties(t *testing.T) {
	r := seeded()
	for range 2000 {
		check := func(notation string, f func(Result) bool) {
			t.Helper()
			res, err := Roll(r, notation, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !f(res) {
				t.Fatalf("%s: unexpected %s (%+v)", notation, res, res)
			}
		}
		check("3d6+2", func(x Result) bool { return x.Total >= 5 && x.Total <= 20 && len(x.Terms[0].Dice) == 3 })
		check("4d6kh3", func(x Result) bool {
			kept, sum, lowest := 0, 0, 7
			for _, d := range x.Terms[0].Dice {
				if !d.Dropped {
					kept++
					sum += d.Value
				} else if d.Value < lowest {
					lowest = d.Value
				}
			}
			maxKeptMin := 6
			for _, d := range x.Terms[0].Dice {
				if !d.Dropped && d.Value < maxKeptMin {
					maxKeptMin = d.Value
				}
			}
			return kept == 3 && sum == x.Total && lowest <= maxKeptMin
		})
		check("2d20kl1", func(x Result) bool {
			a, b := x.Terms[0].Dice[0].Value, x.Terms[0].Dice[1].Value
			return x.Total == min(a, b)
		})
		check("D66", func(x Result) bool {
			v := x.Total
			return len(x.Terms[0].Dice) == 1 && v/10 >= 1 && v/10 <= 6 && v%10 >= 1 && v%10 <= 6
		})
		check("4dF", func(x Result) bool { return x.Total >= -4 && x.Total <= 4 })
		check("d%", func(x Result) bool { return x.Total >= 1 && x.Total <= 100 })
		check("2D", func(x Result) bool { return x.Total >= 2 && x.Total <= 12 })
		check("3d6!", func(x Result) bool {
			exploded := 0
			for _, d := range x.Terms[0].Dice {
				if d.Exploded {
					exploded++
					if d.Value != 6 {
						return false
					}
				}
			}
			return len(x.Terms[0].Dice) == 3+exploded
		})
		check("2d6r1", func(x Result) bool {
			live := 0
			for i, d := range x.Terms[0].Dice {
				if d.Rerolled {
					if d.Value != 1 || i+1 >= len(x.Terms[0].Dice) {
						return false
					}
					continue
				}
				live++
			}
			return live == 2
		})
		check("6d6>=5", func(x Result) bool {
			n := 0
			for _, d := range x.Terms[0].Dice {
				if d.Value >= 5 != d.Success {
					return false
				}
				if d.Success {
					n++
				}
			}
			return x.Successes != nil && *x.Successes == n && x.Total == n
		})
	}
}

func TestExplosionsAreBounded(t *testing.T) {
	res, err := Roll(seeded(), "1d2!>=1", nil)
	if err == nil {
		t.Fatalf("explode on every face should be refused, got %s", res)
	}
	// A die that explodes on 2 of 2 faces is refused; on 2 of 3 it is bounded.
	res, err = Roll(rand.New(rand.NewPCG(9, 9)), "100d3!>=2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Terms[0].Dice); n > 100+MaxExplosions {
		t.Errorf("%d dice, more than %d", n, 100+MaxExplosions)
	}
}

func TestReferences(t *testing.T) {
	lookup := func(name string) (int, bool) {
		v, ok := map[string]int{"dex": 3, "player.stats.dexterity": 16, "str": 2}[name]
		return v, ok
	}
	res, err := Roll(seeded(), "1d20 + dex - str", lookup)
	if err != nil {
		t.Fatal(err)
	}
	if res.Terms[1].Ref != "dex" || res.Terms[1].Value != 3 || res.Terms[2].Value != -2 || res.Total != res.Terms[0].Value+1 {
		t.Errorf("refs: %+v", res)
	}
	if _, err := Roll(seeded(), "1d20+wis", lookup); err == nil || !strings.Contains(err.Error(), `unknown name "wis"`) || !strings.Contains(err.Error(), "column 5") {
		t.Errorf("unknown ref: %v", err)
	}
	if _, err := Roll(seeded(), "1d20+dex", nil); err == nil || !strings.Contains(err.Error(), "nothing to look it up in") {
		t.Errorf("nil lookup: %v", err)
	}
}

func TestDeterministic(t *testing.T) {
	a, _ := Roll(rand.New(rand.NewPCG(5, 5)), "4d6kh3+2d8!+dF", nil)
	b, _ := Roll(rand.New(rand.NewPCG(5, 5)), "4d6kh3+2d8!+dF", nil)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different rolls")
	}
}

func TestMeans(t *testing.T) {
	r := seeded()
	tests := []struct {
		notation string
		mean     float64
	}{
		{"4d6kh3", 12.2446},
		{"2d20kh1", 13.825},
		{"2d20kl1", 7.175},
		{"1d6!", 4.2},
		{"d%", 50.5},
	}
	for _, tt := range tests {
		e := MustParse(tt.notation)
		const n = 40_000
		sum := 0
		for range n {
			res, err := e.Roll(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			sum += res.Total
		}
		if got := float64(sum) / n; math.Abs(got-tt.mean) > 0.1*math.Max(1, tt.mean/10) {
			t.Errorf("mean of %s = %.3f, want about %.3f", tt.notation, got, tt.mean)
		}
	}
}

func TestNaturalAndString(t *testing.T) {
	res, _ := Roll(seeded(), "2d20kh1+5 # attack", nil)
	nat, ok := res.Natural()
	if !ok || nat != res.Total-5 {
		t.Errorf("Natural() = %d %v for %s", nat, ok, res)
	}
	if !strings.Contains(res.String(), "~") || !strings.HasSuffix(res.String(), "— attack") {
		t.Errorf("String() = %q", res.String())
	}
	if _, ok := (Result{Terms: []TermResult{{Value: 3}}}).Natural(); ok {
		t.Error("a constant has no natural roll")
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, res) {
		t.Errorf("JSON round trip: %v\n%+v\n%+v", err, back, res)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"2d6+3", "4d6kh3", "1d20+dex adv", "D66", "6d6>=5", "3d6!>=5", "2d6r<3 # x"} {
		f.Add(s)
	}
	lookup := func(string) (int, bool) { return 1, true }
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			var de *Error
			if !errors.As(err, &de) || de.Pos < 1 {
				t.Fatalf("Parse(%q): error %v is not an *Error with a column", s, err)
			}
			return
		}
		canon := e.String()
		again, err := Parse(canon)
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", canon, s, err)
		}
		if again.String() != canon {
			t.Fatalf("canonical form unstable: %q → %q", canon, again.String())
		}
		res, err := e.Roll(rand.New(rand.NewPCG(1, 1)), lookup)
		if err != nil {
			t.Fatalf("Roll(%q): %v", s, err)
		}
		dice := 0
		for _, term := range res.Terms {
			dice += len(term.Dice)
		}
		if dice > MaxDice+MaxTerms*MaxExplosions+MaxDice {
			t.Fatalf("%q rolled %d dice", s, dice)
		}
	})
}

func BenchmarkParseRoll(b *testing.B) {
	for _, n := range []string{"4d6kh3+2", "1d20+dex adv", "6d6>=5"} {
		b.Run(n, func(b *testing.B) {
			r := seeded()
			lookup := func(string) (int, bool) { return 3, true }
			b.ReportAllocs()
			for range b.N {
				if _, err := Roll(r, n, lookup); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRollParsed(b *testing.B) {
	e := MustParse("4d6kh3+2")
	r := seeded()
	b.ReportAllocs()
	for range b.N {
		if _, err := e.Roll(r, nil); err != nil {
			b.Fatal(err)
		}
	}
}
