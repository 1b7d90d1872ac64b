package traveller

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseDecodes(t *testing.T) {
	u, err := Parse("A788899-C") // Regina
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"code", u.Code, "A788899-C"},
		{"starport quality", u.Starport.Quality, "excellent"},
		{"starport fuel", u.Starport.Fuel, FuelRefined},
		{"starport fuel price", u.Starport.FuelPrice, 500},
		{"size value", u.Size.Value, 7},
		{"diameter", u.Size.DiameterKm, 11200},
		{"gravity", *u.Size.SurfaceGravity, 0.9},
		{"atmosphere", u.Atmosphere.Name, "dense"},
		{"atmosphere gear", u.Atmosphere.NeedsGear, false},
		{"hydrographics", [2]int{u.Hydrographics.PercentMin, u.Hydrographics.PercentMax}, [2]int{76, 85}},
		{"population", [2]int64{u.Population.Min, u.Population.Max}, [2]int64{100_000_000, 999_999_999}},
		{"population words", u.Population.Description, "hundreds of millions"},
		{"government", u.Government.Name, "impersonal bureaucracy"},
		{"law", u.LawLevel.Value, 9},
		{"law weapons", u.LawLevel.WeaponsBanned, []string{"all weapons"}},
		{"tech level", u.TechLevel.Value, 12},
		{"tech era", u.TechLevel.Era, "average stellar"},
		{"jump drive", u.TechLevel.MaxJump, 3},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("Regina %s = %#v, want %#v", c.what, c.got, c.want)
		}
	}
}

func TestParseFields(t *testing.T) {
	tests := []struct {
		uwp  string
		test func(UWP) (got, want any)
	}{
		{"X000000-0", func(u UWP) (any, any) { return u.Starport.Quality + "/" + string(u.Starport.Fuel), "no starport/none" }},
		{"X000000-0", func(u UWP) (any, any) { return u.Atmosphere.SurvivalGear, "vacc suit" }},
		{"X000000-0", func(u UWP) (any, any) { return [2]int64{u.Population.Min, u.Population.Max}, [2]int64{0, 0} }},
		{"X000000-0", func(u UWP) (any, any) { return len(u.LawLevel.WeaponsBanned), 0 }},
		{"C4207B9-A", func(u UWP) (any, any) { return u.Starport.Fuel, FuelUnrefined }},
		{"C4207B9-A", func(u UWP) (any, any) { return u.Atmosphere.SurvivalGear, "respirator and filter" }},
		{"E100100-0", func(u UWP) (any, any) { return [2]int64{u.Population.Min, u.Population.Max}, [2]int64{1, 99} }},
		{"E100300-0", func(u UWP) (any, any) {
			return [2]int{u.Hydrographics.PercentMin, u.Hydrographics.PercentMax}, [2]int{0, 5}
		}},
		{"E10A300-0", func(u UWP) (any, any) {
			return [2]int{u.Hydrographics.PercentMin, u.Hydrographics.PercentMax}, [2]int{96, 100}
		}},
		{"B584620-A", func(u UWP) (any, any) { return u.Government.Name, "participating democracy" }},
		{"A434934-F", func(u UWP) (any, any) { return u.TechLevel.MaxJump, 6 }},
		{"A434934-F", func(u UWP) (any, any) {
			return u.LawLevel.WeaponsBanned, []string{"poison gas", "explosives", "undetectable weapons", "weapons of mass destruction", "portable energy and laser weapons", "military weapons", "light assault weapons", "submachine guns"}
		}},
		{"A434934-F", func(u UWP) (any, any) {
			return u.LawLevel.ArmourBanned, []string{"battle dress", "combat armour", "flak", "cloth"}
		}},
		{"A434934-8", func(u UWP) (any, any) { return u.TechLevel.MaxJump, 0 }},
		{"A43493H-G", func(u UWP) (any, any) { return [2]int{u.LawLevel.Value, u.TechLevel.Value}, [2]int{17, 16} }},
		{"A43493H-G", func(u UWP) (any, any) { return strings.HasPrefix(u.LawLevel.Description, "extreme law"), true }},
		{"A43493H-G", func(u UWP) (any, any) { return u.TechLevel.Era, "beyond the Third Imperium's technology" }},
		{"AA00000-0", func(u UWP) (any, any) { return u.Size.DiameterKm, 16000 }},
		{"AB00000-0", func(u UWP) (any, any) { return u.Size.SurfaceGravity == nil, true }},
		{"A4F0000-0", func(u UWP) (any, any) { return u.Atmosphere.Name, "unusual" }},
		{"?7?8?9?-?", func(u UWP) (any, any) { return u.Starport.Fuel, FuelUnknown }},
		{"?7?8?9?-?", func(u UWP) (any, any) {
			return []bool{u.Atmosphere.Unknown, u.Population.Unknown, u.LawLevel.Unknown, u.TechLevel.Unknown}, []bool{true, true, true, true}
		}},
		{"?7?8?9?-?", func(u UWP) (any, any) { return u.Atmosphere.Value, Unknown }},
		{"AX88899-X", func(u UWP) (any, any) { return [2]bool{u.Size.Unknown, u.TechLevel.Unknown}, [2]bool{true, true} }},
		{" a788899-c ", func(u UWP) (any, any) { return u.Code, "A788899-C" }},
		{"A788899C", func(u UWP) (any, any) { return u.Code, "A788899-C" }},
	}
	for _, tt := range tests {
		u, err := Parse(tt.uwp)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.uwp, err)
			continue
		}
		if got, want := tt.test(u); !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%q): got %#v, want %#v", tt.uwp, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		uwp, want string
		field     string
		pos       int
	}{
		{"A78I899-C", `UWP "A78I899-C": hydrographics at position 4 is 'I': eHex never uses I or O`, "hydrographics", 4},
		{"A788O99-C", `population at position 5 is 'O'`, "population", 5},
		{"A78B899-C", `hydrographics at position 4 is 'B': hydrographics runs from 0 to A`, "hydrographics", 4},
		{"A4J0000-0", `atmosphere at position 3 is 'J': atmosphere runs from 0 to F`, "atmosphere", 3},
		{"F788899-C", `starport at position 1 is 'F': want A, B, C, D, E or X`, "starport", 1},
		{"A788899_C", `separator at position 8 is '_': want '-'`, "separator", 8},
		{"A7888Y9-C", `government at position 6 is 'Y': not an eHex digit`, "government", 6},
		{"A788899-Z", `tech level at position 9 is 'Z'`, "tech level", 9},
		{"A78é899-C", `hydrographics at position 4 is 'É'`, "hydrographics", 4},
		{"A78899-C", `UWP "A78899-C": 8 characters; a UWP is 9 characters like "A788899-C"`, "", 0},
		{"", `0 characters`, "", 0},
		{"A788899-C1", `10 characters`, "", 0},
		{strings.Repeat("A", 100), `100 bytes is too long`, "", 0},
	}
	for _, tt := range tests {
		_, err := Parse(tt.uwp)
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", tt.uwp, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %q, want it to contain %q", tt.uwp, err, tt.want)
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Field != tt.field || pe.Pos != tt.pos {
			t.Errorf("Parse(%q): error %#v, want a *ParseError at %s position %d", tt.uwp, err, tt.field, tt.pos)
		}
	}
}

func TestUWPJSON(t *testing.T) {
	u, err := Parse("B584620-A")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	raw := mustMap(t, b)
	if raw["uwp"] != "B584620-A" {
		t.Errorf(`JSON "uwp" = %v`, raw["uwp"])
	}
	delete(raw, "uwp")
	rb, _ := json.Marshal(raw)
	var m map[string]map[string]any
	if err := json.Unmarshal(rb, &m); err != nil {
		t.Fatalf("every field but uwp should be an object: %v\n%s", err, b)
	}
	want := map[string][]string{
		"starport":      {"code", "quality", "fuel", "fuel_price_cr_per_ton", "berthing_cost", "facilities"},
		"size":          {"code", "value", "diameter_km", "surface_gravity_g", "description"},
		"atmosphere":    {"code", "value", "name", "pressure_atm", "survival_gear", "needs_survival_gear"},
		"hydrographics": {"code", "value", "percent_min", "percent_max", "description"},
		"population":    {"code", "value", "inhabitants_min", "inhabitants_max", "description"},
		"government":    {"code", "value", "name", "description"},
		"law_level":     {"code", "value", "description", "weapons_banned", "armour_banned"},
		"tech_level":    {"code", "value", "era", "description", "max_jump_drive"},
	}
	for field, keys := range want {
		obj, ok := m[field]
		if !ok {
			t.Errorf("JSON has no %q: %s", field, b)
			continue
		}
		for _, k := range keys {
			if _, ok := obj[k]; !ok {
				t.Errorf("JSON %s has no %q: %v", field, k, obj)
			}
		}
		if len(obj) != len(keys) {
			t.Errorf("JSON %s has keys %v, want exactly %v", field, obj, keys)
		}
	}
	if m["population"]["inhabitants_min"] != 1e6 {
		t.Errorf("population min = %v, want 1e6", m["population"]["inhabitants_min"])
	}

	// An unknown digit says so rather than pretending to be 0.
	u, _ = Parse("A7?8899-C")
	b, _ = json.Marshal(u.Atmosphere)
	if !strings.Contains(string(b), `"value":-1,"unknown":true`) {
		t.Errorf("unknown atmosphere JSON = %s", b)
	}
	// A round trip through JSON keeps everything.
	var back UWP
	u, _ = Parse("A788899-C")
	b, _ = json.Marshal(u)
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, u) {
		t.Errorf("JSON round trip: %v\n got %+v\nwant %+v", err, back, u)
	}
}

func mustMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDescribe(t *testing.T) {
	u, err := Parse("B584620-A")
	if err != nil {
		t.Fatal(err)
	}
	d := u.Describe()
	for _, want := range []string{
		"UWP B584620-A\n",
		"Starport B: good; fuel: refined (Cr500/ton); facilities: shipyard (spacecraft), repair",
		"Size 5: medium-small world, 8,000 km across",
		"surface gravity 0.45 G",
		"Atmosphere 8: dense, pressure 1.5–2.49 atm; survival gear: none",
		"Hydrographics 4: 36–45% of the surface is liquid; wet world",
		"Population 6: millions (1,000,000–9,999,999 inhabitants)",
		"Government 2: participating democracy.",
		"Law level 0: no law",
		"Tech level A (10): early stellar.",
		"Can build jump-1 drives.",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe() lacks %q:\n%s", want, d)
		}
	}
	if n := strings.Count(d, "\n"); n != 9 {
		t.Errorf("Describe() has %d lines, want 9:\n%s", n, d)
	}
	u, _ = Parse("???????-?")
	if d := u.Describe(); strings.Count(d, "unknown") < 8 {
		t.Errorf("an unknown UWP should say unknown for every field:\n%s", d)
	}
}

// Every digit eHex defines decodes to its value and back.
func TestEHex(t *testing.T) {
	digits := "0123456789ABCDEFGHJKLMNPQRSTUVW"
	for v, r := range digits {
		got, msg := ehex(r)
		if msg != "" || got != v {
			t.Errorf("ehex(%q) = %d, %q; want %d", r, got, msg, v)
		}
		if back := ehexDigit(v); back != r {
			t.Errorf("ehexDigit(%d) = %q, want %q", v, back, r)
		}
	}
}

func TestParseRealData(t *testing.T) {
	worlds := realWorlds(t)
	maxLaw, maxTL := 0, 0
	for _, w := range worlds {
		u, err := w.Profile()
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		if u.String() != w.UWP {
			t.Errorf("%s: String() = %q", w, u)
		}
		maxLaw, maxTL = max(maxLaw, u.LawLevel.Value), max(maxTL, u.TechLevel.Value)
	}
	if maxLaw != 17 || maxTL != 16 {
		t.Errorf("highest law %d and tech level %d, want 17 (H) and 16 (G) as SOURCE.md says", maxLaw, maxTL)
	}
}
