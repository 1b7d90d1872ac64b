package traveller

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Seeds are in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q): %T %v, want a *ParseError", s, err, err)
			}
			if pe.Pos < 0 || pe.Pos > 9 || pe.Pos > 0 && pe.Field == "" {
				t.Fatalf("Parse(%q): error at position %d field %q", s, pe.Pos, pe.Field)
			}
			return
		}
		if len(u.Code) != 9 {
			t.Fatalf("Parse(%q).Code = %q", s, u.Code)
		}
		again, err := Parse(u.String())
		if err != nil || !reflect.DeepEqual(again, u) {
			t.Fatalf("Parse(%q) then Parse(%q) = %+v, %v; want %+v", s, u.String(), again, err, u)
		}
		if d := u.Describe(); strings.Count(d, "\n") != 9 {
			t.Fatalf("Describe(%q) has %d lines", s, strings.Count(d, "\n"))
		}
		if _, err := json.Marshal(u); err != nil {
			t.Fatal(err)
		}
		for _, r := range []Rules{Mongoose2e, T5} {
			for _, c := range TradeCodes(u, r) {
				if c.Abbr == "" || c.Name == "" {
					t.Fatalf("TradeCodes(%q, %v) gave %+v", s, r, c)
				}
			}
		}
	})
}

// Seeds are in testdata/fuzz/FuzzReadWorlds.
func FuzzReadWorlds(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		worlds, err := ReadWorlds(bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "worlds") && !strings.HasPrefix(err.Error(), "reading worlds") {
				t.Fatalf("error %q does not say it is about the world list", err)
			}
			return
		}
		for i, w := range worlds {
			u, err := w.Profile()
			if err != nil || u.Code != w.UWP {
				t.Fatalf("%s: read back as %q, %v", w, u.Code, err)
			}
			if _, _, err := parseHex(w.Hex); err != nil || w.Name == "" {
				t.Fatalf("%+v: %v", w, err)
			}
			if i >= 20 {
				continue // Find is linear: checking every world is quadratic in the input
			}
			if _, err := Find(worlds, w.Name); err != nil {
				var amb *AmbiguousError
				if !errors.As(err, &amb) {
					t.Fatalf("Find(%q) of a world just read: %v", w.Name, err)
				}
			}
		}
		if len(worlds) > 1 && len(worlds) <= 500 {
			// Errors are fine (unknown sectors, out of reach); panics are not.
			_, _ = Route(worlds[0], worlds[len(worlds)-1], 2, worlds)
		}
	})
}
