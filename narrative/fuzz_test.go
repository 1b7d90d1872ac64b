package narrative

import (
	"encoding/json"
	"testing"
)

// FuzzParseCondition: campaign files carry conditions as text. Whatever
// the input, parsing must not panic, and a condition it accepts must
// print back to text that parses to the same condition.
func FuzzParseCondition(f *testing.F) {
	for _, s := range []string{"stat health >= 40", "not flag betrayed", "!item key", "perception owen < -30.5", "reputation guild == 1e3", "location x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCondition(s)
		if err != nil {
			return
		}
		back, err := ParseCondition(c.String())
		if err != nil || back != c {
			t.Fatalf("%q parsed to %+v, printed %q, reparsed %+v, %v", s, c, c.String(), back, err)
		}
		var j Condition
		b, _ := json.Marshal(c)
		if err := json.Unmarshal(b, &j); err != nil || j != c {
			t.Fatalf("JSON round trip of %+v: %+v, %v", c, j, err)
		}
	})
}

// FuzzParseRange: inline NPC stat ranges come from profile files.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"0-10", "-100..100", "1 to 5", "-5--1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lo, hi, err := ParseRange(s)
		if err == nil && hi < lo {
			t.Fatalf("%q gave %d..%d", s, lo, hi)
		}
	})
}

// FuzzParseSignificance: the memory skill's store input names a level.
func FuzzParseSignificance(f *testing.F) {
	for _, s := range []string{"high", "7", "critical", "", "11"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSignificance(s)
		if err == nil && (n < 1 || n > 10) {
			t.Fatalf("%q gave %d", s, n)
		}
	})
}

// FuzzParsePriority: plot beats name their priority.
func FuzzParsePriority(f *testing.F) {
	for _, s := range []string{"critical", "5", "optional", "", "6"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePriority(s)
		if err == nil && (p < Optional || p > Critical) {
			t.Fatalf("%q gave %d", s, p)
		}
	})
}
