package traveller

import (
	"fmt"
	"strings"
)

// Rules is a set of trade-code rules. The zero value is Mongoose2e.
type Rules int

const (
	// Mongoose2e is Mongoose Traveller 2nd edition, the rules of the mgt2e
	// system and the default.
	Mongoose2e Rules = iota
	// T5 is Traveller5 as the Second Survey applies it: the rules behind the
	// remarks of published data such as Traveller Map's.
	T5
)

func (r Rules) String() string {
	switch r {
	case Mongoose2e:
		return "mgt2e"
	case T5:
		return "t5"
	}
	return fmt.Sprintf("Rules(%d)", int(r))
}

// ParseRules reads a rule-set name: "mgt2e" (also "mongoose", "mongoose2e"
// or empty) or "t5" (also "t5ss", "second survey").
func ParseRules(s string) (Rules, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "mgt2e", "mgt2", "mongoose", "mongoose2e":
		return Mongoose2e, nil
	case "t5", "t5ss", "second survey":
		return T5, nil
	}
	return 0, fmt.Errorf("trade-code rules %q: use mgt2e (Mongoose 2nd edition) or t5 (T5 Second Survey, what published data follows)", s)
}

// MarshalText writes the rule-set name.
func (r Rules) MarshalText() ([]byte, error) {
	if r != Mongoose2e && r != T5 {
		return nil, fmt.Errorf("unknown trade-code rules %d", int(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText reads a name ParseRules accepts.
func (r *Rules) UnmarshalText(b []byte) error {
	v, err := ParseRules(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Code is a trade code: its two-letter abbreviation and its name.
type Code struct {
	Abbr string `json:"code"`
	Name string `json:"name"`
}

func (c Code) String() string { return c.Abbr }

// Codes are the 18 trade codes both rule sets derive, in the order
// TradeCodes returns them.
func Codes() []Code {
	all := codeTable()
	return all[:]
}

// codeTable is Codes as an array, which TradeCodes can index without
// allocating.
func codeTable() [18]Code {
	return [18]Code{
		{"Ag", "Agricultural"},
		{"As", "Asteroid"},
		{"Ba", "Barren"},
		{"De", "Desert"},
		{"Fl", "Fluid Oceans"},
		{"Ga", "Garden"},
		{"Hi", "High Population"},
		{"Ht", "High Tech"},
		{"Ic", "Ice-Capped"},
		{"In", "Industrial"},
		{"Lo", "Low Population"},
		{"Lt", "Low Tech"},
		{"Na", "Non-Agricultural"},
		{"Ni", "Non-Industrial"},
		{"Po", "Poor"},
		{"Ri", "Rich"},
		{"Va", "Vacuum"},
		{"Wa", "Water World"},
	}
}

// TradeCodes derives the trade codes of a world from its UWP under rules r,
// in the order of Codes. A code whose conditions involve an unknown digit is
// left out: it cannot be shown to apply.
//
// The rule sets differ in six codes. Under T5, Fl needs atmosphere A–C
// (Mongoose: A+), Wa needs size 3–9 (a larger world with Wa's atmosphere
// and hydrographics is an Ocean World, Oc, outside these 18), Ri has no
// government condition (Mongoose: 4–9), Lt has no population condition
// (Mongoose: 1+), As needs only size 0 (Mongoose: size, atmosphere and
// hydrographics 0), and Ba is population 0 with tech level 0 (Mongoose:
// population, government and law 0).
func TradeCodes(u UWP, r Rules) []Code {
	siz, atm, hyd := u.Size.Value, u.Atmosphere.Value, u.Hydrographics.Value
	pop, gov, law, tl := u.Population.Value, u.Government.Value, u.LawLevel.Value, u.TechLevel.Value
	t5 := r == T5

	// Unknown digits are -1, below every range here, so they never match.
	var has [18]bool
	has[0] = in(atm, 4, 9) && in(hyd, 4, 8) && in(pop, 5, 7)                                   // Ag
	has[1] = siz == 0 && (t5 || atm == 0 && hyd == 0)                                          // As
	has[2] = pop == 0 && (t5 && tl == 0 || !t5 && gov == 0 && law == 0)                        // Ba
	has[3] = in(atm, 2, 9) && hyd == 0                                                         // De
	has[4] = (t5 && in(atm, 10, 12) || !t5 && atm >= 10) && hyd >= 1                           // Fl
	has[5] = in(siz, 6, 8) && (atm == 5 || atm == 6 || atm == 8) && in(hyd, 5, 7)              // Ga
	has[6] = pop >= 9                                                                          // Hi
	has[7] = tl >= 12                                                                          // Ht
	has[8] = in(atm, 0, 1) && hyd >= 1                                                         // Ic
	has[9] = (in(atm, 0, 2) || atm == 4 || atm == 7 || in(atm, 9, 12)) && pop >= 9             // In
	has[10] = in(pop, 1, 3)                                                                    // Lo
	has[11] = in(tl, 0, 5) && (t5 || pop >= 1)                                                 // Lt
	has[12] = in(atm, 0, 3) && in(hyd, 0, 3) && pop >= 6                                       // Na
	has[13] = in(pop, 4, 6)                                                                    // Ni
	has[14] = in(atm, 2, 5) && in(hyd, 0, 3)                                                   // Po
	has[15] = (atm == 6 || atm == 8) && in(pop, 6, 8) && (t5 || in(gov, 4, 9))                 // Ri
	has[16] = atm == 0                                                                         // Va
	has[17] = (in(atm, 3, 9) || atm >= 13) && hyd == 10 && (!t5 || in(siz, 3, 9) && atm <= 15) // Wa

	all := codeTable()
	out := make([]Code, 0, 6)
	for i, ok := range has {
		if ok {
			out = append(out, all[i])
		}
	}
	return out
}

func in(v, lo, hi int) bool { return v >= lo && v <= hi }
