package i18n

import (
	"slices"
	"testing"
)

// FuzzFor feeds arbitrary Accept-Language values: For must not panic and
// must settle on a language it has a catalog for.
func FuzzFor(f *testing.F) {
	for _, s := range []string{"de-CH,de;q=0.9,en;q=0.8", "*", "", "x-klingon;q=2", "de;q=0", "en-US-u-rg-dezzzz"} {
		f.Add(s)
	}
	c := MustLoad()
	known := []string{"en", "de"}
	f.Fuzz(func(t *testing.T, accept string) {
		l := c.For(accept)
		if !slices.Contains(known, l.Language()) {
			t.Fatalf("For(%q) chose %q", accept, l.Language())
		}
		if l.T("error.internal", nil) == "error.internal" {
			t.Fatalf("For(%q) lost a message", accept)
		}
	})
}

// FuzzForEnv feeds arbitrary locale variables to ForEnv.
func FuzzForEnv(f *testing.F) {
	f.Add("de_DE.UTF-8", "")
	f.Add("C", "de")
	f.Add("fr_FR.ISO-8859-1@euro", "de:fr")
	f.Add("en,de;q=0.5", ":::")
	c := MustLoad()
	f.Fuzz(func(t *testing.T, lang, language string) {
		l := c.ForEnv([]string{"LANG=" + lang, "LANGUAGE=" + language})
		if l.Language() != "en" && l.Language() != "de" {
			t.Fatalf("ForEnv(LANG=%q, LANGUAGE=%q) chose %q", lang, language, l.Language())
		}
	})
}
