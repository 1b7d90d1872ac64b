package campaign

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/pack"
)

// problemsOf loads files as a pack and returns its problems as strings.
func problemsOf(t *testing.T, files map[string]string) (*Pack, []string) {
	t.Helper()
	p, err := readPack(context.Background(), writeCampaign(t, files))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range p.Problems {
		out = append(out, string(x.Severity)+" "+x.Error())
	}
	return p, out
}

func TestProvenance(t *testing.T) {
	const (
		missing = "Generated asset missing provenance (generated=true requires provenance.source_model, provenance.generated_at, provenance.seed_data)"
		human   = "Human-created asset must not contain provenance (generated=false conflicts with provenance object)"
	)
	good := "generated: true\nprovenance:\n  source_model: ollama/gemma:2b\n  generated_at: 2026-02-03T11:00:00Z\n  seed_data: I am bread\n"
	tests := []struct {
		name, meta string
		want       []string
	}{
		{"complete", good, []string{"warning pack.yml: Campaign contains 1 AI-generated asset(s). Review generated flags and provenance metadata to verify correctness."}},
		{"no provenance", "generated: true\n", []string{"error art/a.png.meta.yml:1: " + missing, "warning pack.yml: Campaign contains 1 AI-generated asset(s)."}},
		{"no seed data", "generated: true\nprovenance:\n  source_model: m\n  generated_at: 2026-02-03T11:00:00Z\n", []string{"error art/a.png.meta.yml:2: " + missing, "warning pack.yml: Campaign contains 1"}},
		{"human with provenance", "generated: false\nprovenance:\n  source_model: m\n", []string{"error art/a.png.meta.yml:2: " + human}},
		{"provenance alone", "alt_text: a\nprovenance: {source_model: m}\n", []string{"error art/a.png.meta.yml:2: " + human}},
		{"bad date", strings.Replace(good, "2026-02-03T11:00:00Z", "yesterday", 1),
			[]string{`error art/a.png.meta.yml:2: provenance.generated_at "yesterday" is not an ISO 8601 date-time`, "warning pack.yml: Campaign contains 1"}},
		{"date only", strings.Replace(good, "2026-02-03T11:00:00Z", `"2026-02-03"`, 1), []string{"warning pack.yml: Campaign contains 1"}},
		{"generated not a bool", "generated: yes please\n", []string{"error art/a.png.meta.yml:1: generated should be true or false"}},
		{"human", "generated: false\nalt_text: a\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := packFiles()
			files["art/a.png"] = "not really a png"
			files["art/a.png.meta.yml"] = tt.meta
			_, got := problemsOf(t, files)
			for _, w := range tt.want {
				if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, w) }) {
					t.Errorf("problems %q\nwant one starting %q", got, w)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("problems %q, want %d", got, len(tt.want))
			}
		})
	}
	// The count covers assets and text files alike.
	files := packFiles()
	files["art/a.png"], files["art/a.png.meta.yml"] = "x", good
	files["lore_made.md"] = "---\nentity_type: lore\n" + good + "---\nA made-up tale.\n"
	_, got := problemsOf(t, files)
	if !slices.Contains(got, "warning pack.yml: Campaign contains 2 AI-generated asset(s). Review generated flags and provenance metadata to verify correctness.") {
		t.Errorf("problems %q", got)
	}
}

func TestAssetsAndOrphans(t *testing.T) {
	p := loadPack(t, bestiary)
	i := slices.IndexFunc(p.Assets, func(a Asset) bool { return a.Path == "art/creatures/goblin.png" })
	a := p.Assets[i]
	if a.Type != "image" || a.Width != 2 || a.Height != 3 || !a.Generated || a.Provenance.SourceModel != "ollama/gemma:2b" ||
		!slices.Equal(a.Keywords, []string{"goblin", "archer", "humanoid"}) || !strings.HasPrefix(a.Checksum, "sha256:") {
		t.Errorf("goblin.png: %+v", a)
	}
	files := packFiles()
	files["art/b.png"] = "x"
	files["locations/heath.md"] = "---\nentity_type: location\nportrait: art/heath.png\nmusic: music/wind.ogg\n---\nWind.\n"
	files["art/gone.png.keywords.txt"] = "gone\n"
	files["pack.yml"] += "cover: art/cover.png\n"
	files["notes.docx"] = "?"
	_, got := problemsOf(t, files)
	want := []string{
		"warning art/gone.png.keywords.txt: sidecar of art/gone.png, which is not in the pack",
		"warning pack.yml:5: cover references art/cover.png, which is not in the pack",
		"warning locations/heath.md:4: music references music/wind.ogg, which is not in the pack",
		"warning locations/heath.md:3: portrait references art/heath.png, which is not in the pack",
		`warning notes.docx: files of type ".docx" are not read`,
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("problems %q\nwant one starting %q", got, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d: %q", len(got), len(want), got)
	}
}

func TestAssetIndexResolution(t *testing.T) {
	files := packFiles()
	for _, f := range []string{
		"ui/state/player.hp.webp",
		"ui/state/player.hp.png", // the WebP wins
		"ui/state/player.webp",
		"ui/state/world.locations.webp",
		"ui/state/world.locations.*.marker.webp",
		"ui/state/world.locations.capital.marker.png",
		"ui/state/world.**.flag.svg",
		"ui/state/world/time.webp", // folders are path segments
		"ui/items/rusty_dagger.webp",
		"ui/items/weapon.webp",
	} {
		files[f] = "icon " + f
	}
	p, got := problemsOf(t, files)
	if len(got) != 1 || !strings.HasPrefix(got[0], `warning ui/state/player.hp.png: ui/state/player.hp.webp also binds "player.hp"`) {
		t.Errorf("problems %q", got)
	}
	tests := []struct {
		path, itemType, want string
	}{
		{"player.hp", "", "ui/state/player.hp.webp"},                                          // exact
		{"world.time", "", "ui/state/world/time.webp"},                                        // exact, from folders
		{"world.locations.capital.marker", "", "ui/state/world.locations.capital.marker.png"}, // exact beats the wildcard
		{"world.locations.forest.marker", "", "ui/state/world.locations.*.marker.webp"},       // wildcard
		{"world.regions.north.flag", "", "ui/state/world.**.flag.svg"},                        // ** spans segments
		{"player.inventory.rusty_dagger", "weapon", "ui/items/rusty_dagger.webp"},             // the item's own icon
		{"player.inventory.long_sword", "weapon", "ui/items/weapon.webp"},                     // type fallback
		{"player.attributes.strength", "", "ui/state/player.webp"},                            // category fallback
		{"world.locations.forest", "", "ui/state/world.locations.webp"},                       // the longest enclosing path
		{"combat.active", "", ""}, // nothing
		{"", "", ""},
	}
	for _, tt := range tests {
		a, ok := p.Index.Resolve(tt.path, tt.itemType)
		if a.Path != tt.want || ok != (tt.want != "") {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q", tt.path, tt.itemType, a.Path, ok, tt.want)
		}
	}
	// Patterns: more literal segments first, then lexical order.
	x := newAssetIndex([]Asset{
		{Path: "ui/state/a.*.*.webp", Format: "webp"},
		{Path: "ui/state/a.b.*.webp", Format: "webp"},
		{Path: "ui/state/**.webp", Format: "webp"},
	}, new(pack.Problems))
	for path, want := range map[string]string{"a.b.c": "ui/state/a.b.*.webp", "a.x.c": "ui/state/a.*.*.webp", "q": "ui/state/**.webp"} {
		if a, _ := x.Resolve(path, ""); a.Path != want {
			t.Errorf("%s: %s, want %s", path, a.Path, want)
		}
	}
	// Many ** cannot make matching slow, nor match what they should not.
	if match(strings.Split(strings.Repeat("**.", 40)+"x", "."), strings.Split(strings.Repeat("a.", 40)+"y", ".")) {
		t.Error("a pattern ending in x matched a path ending in y")
	}
}
