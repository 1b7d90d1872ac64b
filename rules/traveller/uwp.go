package traveller

import (
	"fmt"
	"strings"
)

// MaxUWPLength bounds the input Parse looks at; a UWP is 9 characters, the
// rest is slack for surrounding spaces.
const MaxUWPLength = 64

// Unknown is the Value of a digit written X or ?.
const Unknown = -1

// UWP is a decoded Universal World Profile, SAHPGLL-T: starport, size,
// atmosphere, hydrographics, population, government, law level and tech
// level, each with what it means in play. Its JSON is meant to be read as is
// by a person or a model.
type UWP struct {
	Code          string        `json:"uwp"`
	Starport      Starport      `json:"starport"`
	Size          Size          `json:"size"`
	Atmosphere    Atmosphere    `json:"atmosphere"`
	Hydrographics Hydrographics `json:"hydrographics"`
	Population    Population    `json:"population"`
	Government    Government    `json:"government"`
	LawLevel      LawLevel      `json:"law_level"`
	TechLevel     TechLevel     `json:"tech_level"`
}

// Digit is one eHex digit of a UWP: Code as written (upper case), Value its
// number, or Unknown (-1) with Unknown set when written X or ?.
type Digit struct {
	Code    string `json:"code"`
	Value   int    `json:"value"`
	Unknown bool   `json:"unknown,omitempty"`
}

// Fuel is what a starport sells.
type Fuel string

// Fuel a starport sells.
const (
	FuelRefined   Fuel = "refined"
	FuelUnrefined Fuel = "unrefined"
	FuelNone      Fuel = "none"
	FuelUnknown   Fuel = "unknown"
)

// Starport is the first character of a UWP.
type Starport struct {
	Code       string   `json:"code"`
	Quality    string   `json:"quality"`
	Fuel       Fuel     `json:"fuel"`
	FuelPrice  int      `json:"fuel_price_cr_per_ton,omitempty"`
	Berthing   string   `json:"berthing_cost,omitempty"`
	Facilities []string `json:"facilities"`
}

// Size is the world's diameter; SurfaceGravity is in G and is nil where the
// rules give no figure (unknown, or size B and above).
type Size struct {
	Digit
	DiameterKm     int      `json:"diameter_km"`
	SurfaceGravity *float64 `json:"surface_gravity_g,omitempty"`
	Description    string   `json:"description"`
}

// Atmosphere says what the air is and what a traveller must wear in it.
type Atmosphere struct {
	Digit
	Name         string `json:"name"`
	PressureAtm  string `json:"pressure_atm"`
	SurvivalGear string `json:"survival_gear"`
	NeedsGear    bool   `json:"needs_survival_gear"`
}

// Hydrographics is the share of the surface covered by liquid.
type Hydrographics struct {
	Digit
	PercentMin  int    `json:"percent_min"`
	PercentMax  int    `json:"percent_max"`
	Description string `json:"description"`
}

// Population is the order of magnitude of the inhabitants.
type Population struct {
	Digit
	Min         int64  `json:"inhabitants_min"`
	Max         int64  `json:"inhabitants_max"`
	Description string `json:"description"`
}

// Government is the type of government.
type Government struct {
	Digit
	Name        string `json:"name"`
	Description string `json:"description"`
}

// LawLevel is how strict the law is; the banned lists are cumulative.
type LawLevel struct {
	Digit
	Description   string   `json:"description"`
	WeaponsBanned []string `json:"weapons_banned"`
	ArmourBanned  []string `json:"armour_banned"`
}

// TechLevel is the world's technology; MaxJump is the best jump drive it
// can build (0 below TL 9).
type TechLevel struct {
	Digit
	Era         string `json:"era"`
	Description string `json:"description"`
	MaxJump     int    `json:"max_jump_drive"`
}

// ParseError is a UWP that cannot be read. Pos is the 1-based position of
// the bad character and Field the part of the UWP it belongs to; both are
// zero when the shape of the whole string is wrong.
type ParseError struct {
	UWP   string
	Field string
	Pos   int
	Char  rune
	Msg   string
}

func (e *ParseError) Error() string {
	if e.Pos == 0 {
		return fmt.Sprintf("UWP %q: %s", e.UWP, e.Msg)
	}
	return fmt.Sprintf("UWP %q: %s at position %d is %q: %s", e.UWP, e.Field, e.Pos, e.Char, e.Msg)
}

const uwpShape = `a UWP is 9 characters like "A788899-C": starport, size, atmosphere, hydrographics, population, government, law level, '-', tech level`

// fieldNames are the parts of a UWP by position.
func fieldNames() [9]string {
	return [9]string{"starport", "size", "atmosphere", "hydrographics", "population", "government", "law level", "separator", "tech level"}
}

// Parse decodes a UWP such as "A788899-C". Digits are eHex (0–9, A–H, J–N,
// P–W); X or ? marks an unknown digit (for the starport, X means no
// starport and ? unknown). Lower case and surrounding spaces are accepted,
// and so is the form without the dash ("A788899C"). Errors are
// *ParseError values naming the position and the bad character.
func Parse(s string) (UWP, error) {
	if len(s) > MaxUWPLength {
		return UWP{}, &ParseError{UWP: s[:MaxUWPLength] + "…", Msg: fmt.Sprintf("%d bytes is too long; %s", len(s), uwpShape)}
	}
	rs := []rune(strings.ToUpper(strings.TrimSpace(s)))
	if len(rs) == 8 && !strings.ContainsRune(string(rs), '-') {
		rs = append(rs[:7:7], '-', rs[7])
	}
	if len(rs) != 9 {
		return UWP{}, &ParseError{UWP: s, Msg: fmt.Sprintf("%d characters; %s", len(rs), uwpShape)}
	}
	names := fieldNames()
	bad := func(i int, msg string) error {
		return &ParseError{UWP: s, Field: names[i], Pos: i + 1, Char: rs[i], Msg: msg}
	}
	if rs[7] != '-' {
		return UWP{}, bad(7, "want '-' between the law level and the tech level")
	}

	var u UWP
	sp, ok := starport(rs[0])
	if !ok {
		return UWP{}, bad(0, "want A, B, C, D, E or X (no starport), or ? if unknown")
	}
	u.Starport = sp

	var d [9]Digit
	// The highest value each field accepts: the rules define size,
	// atmosphere, population and government up to F and hydrographics up to
	// A; law and tech level go on (H and G occur in published data).
	for i, top := range [9]int{1: 15, 2: 15, 3: 10, 4: 15, 5: 15, 6: 30, 8: 30} {
		if i == 0 || i == 7 {
			continue
		}
		v, msg := ehex(rs[i])
		if msg != "" {
			return UWP{}, bad(i, msg)
		}
		if v > top {
			return UWP{}, bad(i, fmt.Sprintf("%s runs from 0 to %c", names[i], ehexDigit(top)))
		}
		d[i] = Digit{Code: string(rs[i]), Value: v, Unknown: v == Unknown}
	}
	u.Size = size(d[1])
	u.Atmosphere = atmosphere(d[2])
	u.Hydrographics = hydrographics(d[3])
	u.Population = population(d[4])
	u.Government = government(d[5])
	u.LawLevel = lawLevel(d[6])
	u.TechLevel = techLevel(d[8])
	u.Code = string(rs)
	return u, nil
}

// String is the UWP in its usual form, "A788899-C".
func (u UWP) String() string { return u.Code }

// ehex returns the value of an eHex digit, Unknown for X and ?, or a message
// saying why the character is not a digit.
func ehex(r rune) (int, string) {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0'), ""
	case r >= 'A' && r <= 'H':
		return int(r-'A') + 10, ""
	case r >= 'J' && r <= 'N':
		return int(r-'J') + 18, ""
	case r >= 'P' && r <= 'W':
		return int(r-'P') + 23, ""
	case r == 'X' || r == '?':
		return Unknown, ""
	case r == 'I' || r == 'O':
		return 0, "eHex never uses I or O (they look like 1 and 0)"
	}
	return 0, "not an eHex digit; use 0–9, A–H, J–N or P–W, and X or ? for unknown"
}

// ehexDigit is the eHex digit of v, 0 ≤ v ≤ 30.
func ehexDigit(v int) rune {
	switch {
	case v < 10:
		return rune('0' + v)
	case v < 18:
		return rune('A' + v - 10)
	case v < 23:
		return rune('J' + v - 18)
	}
	return rune('P' + v - 23)
}

// label is how Describe names a digit: "8", "C (12)", "? (unknown)".
func (d Digit) label() string {
	switch {
	case d.Unknown:
		return d.Code + " (unknown)"
	case d.Value >= 10:
		return fmt.Sprintf("%s (%d)", d.Code, d.Value)
	}
	return d.Code
}

// Describe is the UWP in plain English, one line per field.
func (u UWP) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "UWP %s\n", u.Code)

	sp := u.Starport
	fmt.Fprintf(&b, "Starport %s: %s", sp.Code, sp.Quality)
	if sp.Fuel != FuelUnknown {
		fmt.Fprintf(&b, "; fuel: %s", sp.Fuel)
		if sp.FuelPrice > 0 {
			fmt.Fprintf(&b, " (Cr%d/ton)", sp.FuelPrice)
		}
		if len(sp.Facilities) > 0 {
			fmt.Fprintf(&b, "; facilities: %s", strings.Join(sp.Facilities, ", "))
		} else {
			b.WriteString("; no facilities")
		}
		if sp.Berthing != "" {
			fmt.Fprintf(&b, "; berthing %s", sp.Berthing)
		}
	}
	b.WriteString("\n")

	sz := u.Size
	fmt.Fprintf(&b, "Size %s: %s", sz.label(), sz.Description)
	if sz.SurfaceGravity != nil && sz.Value > 0 {
		fmt.Fprintf(&b, ", surface gravity %.2g G", *sz.SurfaceGravity)
	}
	b.WriteString("\n")

	at := u.Atmosphere
	fmt.Fprintf(&b, "Atmosphere %s: %s", at.label(), at.Name)
	if !at.Unknown {
		fmt.Fprintf(&b, ", pressure %s atm; survival gear: %s", at.PressureAtm, at.SurvivalGear)
	}
	b.WriteString("\n")

	hy := u.Hydrographics
	if hy.Unknown {
		fmt.Fprintf(&b, "Hydrographics %s\n", hy.label())
	} else {
		fmt.Fprintf(&b, "Hydrographics %s: %d–%d%% of the surface is liquid; %s\n", hy.label(), hy.PercentMin, hy.PercentMax, hy.Description)
	}

	po := u.Population
	if po.Unknown || po.Max == 0 {
		fmt.Fprintf(&b, "Population %s: %s\n", po.label(), po.Description)
	} else {
		fmt.Fprintf(&b, "Population %s: %s (%s–%s inhabitants)\n", po.label(), po.Description, thousands(po.Min), thousands(po.Max))
	}

	gv := u.Government
	fmt.Fprintf(&b, "Government %s: %s", gv.label(), gv.Name)
	if gv.Description != "" {
		fmt.Fprintf(&b, ". %s", gv.Description)
	}
	b.WriteString("\n")

	lw := u.LawLevel
	fmt.Fprintf(&b, "Law level %s: %s", lw.label(), lw.Description)
	if len(lw.WeaponsBanned) > 0 {
		fmt.Fprintf(&b, "; weapons banned: %s", strings.Join(lw.WeaponsBanned, ", "))
	}
	if len(lw.ArmourBanned) > 0 {
		fmt.Fprintf(&b, "; armour banned: %s", strings.Join(lw.ArmourBanned, ", "))
	}
	b.WriteString("\n")

	tl := u.TechLevel
	fmt.Fprintf(&b, "Tech level %s: %s", tl.label(), tl.Era)
	if tl.Description != "" {
		fmt.Fprintf(&b, ". %s", tl.Description)
	}
	if tl.MaxJump > 0 {
		fmt.Fprintf(&b, " Can build jump-%d drives.", tl.MaxJump)
	}
	b.WriteString("\n")
	return b.String()
}

// thousands writes n with comma separators.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
