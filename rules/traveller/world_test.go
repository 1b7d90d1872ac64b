package traveller

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestReadWorlds(t *testing.T) {
	// Traveller Map's own tab export: sector abbreviations, more columns
	// in its order, comments, a BOM and CRLF line ends.
	in := "\uFEFF# Generated file - DO NOT MODIFY\r\n" +
		"Sector\tSS\tHex\tName\tUWP\tBases\tRemarks\tZone\tPBG\r\n" +
		"Spin\tC\t1910\tRegina\tA788899-C\tNS\tRi Pa Ph An Cp (Amindii)2\t\t703\r\n" +
		"\r\n" +
		"Dene\tA\t0101\tSomewhere Else\tx000000-0\t\t\tR\t000\r\n" +
		"Outer Rim\tA\t0203\tNoRemarks\tE430000-0\r\n"
	worlds, err := ReadWorlds(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []World{
		{Sector: "Spinward Marches", Hex: "1910", Name: "Regina", UWP: "A788899-C", Remarks: []string{"Ri", "Pa", "Ph", "An", "Cp", "(Amindii)2"}},
		{Sector: "Deneb", Hex: "0101", Name: "Somewhere Else", UWP: "X000000-0"},
		{Sector: "Outer Rim", Hex: "0203", Name: "NoRemarks", UWP: "E430000-0"},
	}
	if !reflect.DeepEqual(worlds, want) {
		t.Errorf("ReadWorlds:\n got %+v\nwant %+v", worlds, want)
	}
	if s := worlds[0].String(); s != "Regina (Spinward Marches 1910, A788899-C)" {
		t.Errorf("String() = %q", s)
	}

	// The minimal columns, in another order, and no sector at all.
	worlds, err = ReadWorlds(strings.NewReader("UWP\tName\tHex\nA788899-C\tRegina\t1910\n"))
	if err != nil || len(worlds) != 1 || worlds[0].Sector != "" || worlds[0].Hex != "1910" {
		t.Errorf("minimal columns: %+v, %v", worlds, err)
	}
	worlds, err = ReadWorlds(strings.NewReader("Hex\tName\tUWP\n"))
	if err != nil || len(worlds) != 0 {
		t.Errorf("header only: %+v, %v", worlds, err)
	}
}

func TestReadWorldsErrors(t *testing.T) {
	const head = "sector\thex\tname\tuwp\tremarks\n"
	tests := []struct{ name, in, want string }{
		{"empty", "", "empty input"},
		{"comments only", "# nothing\n\n", "empty input"},
		{"no uwp column", "sector\thex\tname\n", `worlds line 1: header "sector\thex\tname" has no "uwp" column`},
		{"twice", "hex\tname\tuwp\tHex\n", `line 1: header names column "Hex" twice`},
		{"bad uwp", head + "Spinward Marches\t1910\tRegina\tA788899-C\t\nSpinward Marches\t1911\tBad\tA78I899-C\t\n",
			`worlds line 3 (Bad): UWP "A78I899-C": hydrographics at position 4 is 'I'`},
		{"short uwp", head + "# c\nS\t0101\tShort\tA788\t\n", `worlds line 3 (Short): UWP "A788": 4 characters`},
		{"bad hex", head + "S\t3301\tFar\tA788899-C\t\n", `worlds line 2 (Far): hex "3301": column must be 01–32 and row 01–40`},
		{"hex letters", head + "S\t19x0\tOdd\tA788899-C\t\n", `hex "19x0": want four digits XXYY`},
		{"signed hex", head + "S\t+910\tOdd\tA788899-C\t\n", `hex "+910": want four digits`},
		{"no name", head + "S\t0101\t\tA788899-C\t\n", `worlds line 2: the world at hex "0101" has no name`},
		{"too many fields", head + "S\t0101\tA\tA788899-C\tRi\textra\n", "worlds line 2: 6 tab-separated fields but the header has 5 columns"},
		{"duplicate hex", head + "Spin\t1910\tA\tA788899-C\t\nSpinward Marches\t1910\tB\tA788899-C\t\n",
			"worlds line 3 (B): Spinward Marches 1910 already holds the world on line 2"},
		{"long line", head + "S\t0101\t" + strings.Repeat("n", MaxLineBytes) + "\tA788899-C\n", "worlds line 2: longer than 65536 bytes"},
		{"bad utf-8", head + "S\t0101\t\xff\tA788899-C\n", "worlds line 2: not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := ReadWorlds(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadWorlds = %v, %v; want an error containing %q", w, err, tt.want)
			}
		})
	}
}

func TestFind(t *testing.T) {
	worlds := []World{
		{Sector: "Spinward Marches", Hex: "1910", Name: "Regina", UWP: "A788899-C"},
		{Sector: "Spinward Marches", Hex: "2540", Name: "Aramis", UWP: "B659772-6"},
		{Sector: "Spinward Marches", Hex: "3110", Name: "Aramis", UWP: "A5A0556-B"},
		{Sector: "Deneb", Hex: "1910", Name: "Elsewhere", UWP: "C000000-0"},
		{Sector: "Reft", Hex: "0101", Name: "Marnie's World", UWP: "C000000-0"},
	}
	tests := []struct {
		query, want string // want: the world's name, or part of the error
		err         error
	}{
		{"Regina", "Regina", nil},
		{"  rEGINA ", "Regina", nil},
		{"Spinward Marches 1910", "Regina", nil},
		{"spinward   marches 1910", "Regina", nil},
		{"Spin 1910", "Regina", nil},
		{"Deneb 1910", "Elsewhere", nil},
		{"Spinward Marches 3110", "Aramis", nil},
		{"Reft 0101", "Marnie's World", nil},
		{"marnie's world", "Marnie's World", nil},
		{"Aramis", `"Aramis" matches 2 worlds: Aramis (Spinward Marches 2540, B659772-6); Aramis (Spinward Marches 3110, A5A0556-B). Name one by sector and hex, e.g. "Spinward Marches 2540"`, nil},
		{"1910", `"1910" matches 2 worlds`, nil},
		{"Regna", "did you mean Regina (Spinward Marches 1910, A788899-C)?", ErrNotFound},
		{"Marnie", "did you mean Marnie's World", ErrNotFound},
		{"Spinward Marchs 1910", `no world at "Spinward Marchs 1910" (is the sector "Spinward Marchs" spelled right?); worlds at hex 1910: Regina`, ErrNotFound},
		{"Spinward Marches 0505", `no world "Spinward Marches 0505" among the 5 known`, ErrNotFound},
		{"Zzyzx", `no world "Zzyzx"`, ErrNotFound},
		{"", "empty world query", ErrNotFound},
	}
	for _, tt := range tests {
		w, err := Find(worlds, tt.query)
		switch {
		case err == nil:
			if w.Name != tt.want {
				t.Errorf("Find(%q) = %v, want %s", tt.query, w, tt.want)
			}
		case !strings.Contains(err.Error(), tt.want):
			t.Errorf("Find(%q) error %q, want it to contain %q", tt.query, err, tt.want)
		case tt.err != nil && !errors.Is(err, tt.err):
			t.Errorf("Find(%q) error %v does not wrap %v", tt.query, err, tt.err)
		}
	}
	_, err := Find(worlds, "Aramis")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) != 2 || errors.Is(err, ErrNotFound) {
		t.Errorf("Find(Aramis) = %v; want an *AmbiguousError with two candidates", err)
	}
}

func TestFindRealData(t *testing.T) {
	worlds := realWorlds(t)
	for q, want := range map[string]string{
		"Regina":                "Spinward Marches 1910",
		"Terra":                 "Solomani Rim 1827",
		"Deneb":                 "Deneb 1925",
		"Trojan Reach 2804":     "Trojan Reach 2804",
		"494-908":               "Spinward Marches 0625",
		"Spinward Marches 2540": "Spinward Marches 2540",
	} {
		w := mustFind(t, worlds, q)
		if got := w.Sector + " " + w.Hex; got != want {
			t.Errorf("Find(%q) = %s, want %s", q, got, want)
		}
	}
	_, err := Find(worlds, "Junction")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) != 3 {
		t.Errorf("Find(Junction) = %v; three worlds share the name", err)
	}
}
