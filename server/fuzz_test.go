package server

import (
	"slices"
	"strings"
	"testing"
)

// FuzzUploadMeta: an upload's metadata fields are read or refused with an
// error, never a panic, and what is kept stays within the limits.
func FuzzUploadMeta(f *testing.F) {
	for _, s := range []struct{ field, value string }{
		{"metadata", `{"title":"The Great Rift","access_level":"gm_only","tags":["rift","vol-1"]}`},
		{"metadata", `{"title":1}`}, {"metadata", `{"nope":true}`}, {"tags", "a, b,,c"},
		{"title", "  Core Rulebook  "}, {"access_level", "player"},
	} {
		f.Add(s.field, s.value)
	}
	f.Fuzz(func(t *testing.T, field, value string) {
		var m uploadMeta
		if err := m.set(field, []byte(value)); err != nil {
			return
		}
		if len(m.Title) > 300 || len(m.Tags) > 50 {
			t.Fatalf("kept %d-byte title, %d tags", len(m.Title), len(m.Tags))
		}
		for _, tag := range m.Tags {
			if field == "tags" && (tag == "" || strings.TrimSpace(tag) != tag) {
				t.Fatalf("tag %q kept", tag)
			}
		}
	})
}

// FuzzConfineAsset: a delivery target is kept inside seneschal/ or refused.
func FuzzConfineAsset(f *testing.F) {
	for _, s := range []string{"seneschal/Core/page_1_0.webp", "../x.webp", "/etc/x.webp", "a/../../b.webp", "x.png", "seneschal/../../x.webp", "seneschal/Core/page_2.jpg"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, p string, jpeg bool) {
		ext := ".webp"
		if jpeg {
			ext = ".jpg"
		}
		c, err := confineAsset(p, ext)
		if err != nil {
			return
		}
		if !strings.HasPrefix(c, "seneschal/") || strings.HasPrefix(c, "/") || slices.Contains(strings.Split(c, "/"), "..") {
			t.Fatalf("%q kept as %q", p, c)
		}
	})
}
