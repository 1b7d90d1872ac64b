package campaign

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/world"
)

const saltmere = "../campaigns/saltmere"

func TestLoadSaltmere(t *testing.T) {
	c, err := Load(context.Background(), saltmere)
	if err != nil {
		t.Fatal(err)
	}
	if c.Meta.Title != "The Lantern of Saltmere" || c.Meta.System != world.SystemD20 || c.Meta.License != "CC-BY-4.0" {
		t.Errorf("meta: %+v", c.Meta)
	}
	counts := map[string][2]int{
		"locations":    {len(c.Locations), 7},
		"characters":   {len(c.Characters), 7},
		"quests":       {len(c.Quests), 1},
		"factions":     {len(c.Factions), 1},
		"stats":        {len(c.Stats), 3},
		"lore facts":   {len(c.Facts), 2},
		"consequences": {len(c.Consequences), 3},
		"clocks":       {len(c.Clocks), 1},
		"threads":      {len(c.Threads), 1},
		"scheduled":    {len(c.Scheduled), 1},
	}
	for what, n := range counts {
		if n[0] != n[1] {
			t.Errorf("%s: %d, want %d", what, n[0], n[1])
		}
	}
	if len(c.Items) < 8 || len(c.Warnings) != 0 {
		t.Errorf("items %d warnings %v", len(c.Items), c.Warnings)
	}
	npcs := 0
	for _, ch := range c.Characters {
		if ch.Kind == world.NPC && ch.Secret != "" && ch.Personality != "" && len(ch.Topics) > 0 {
			npcs++
		}
	}
	if npcs < 4 {
		t.Errorf("%d NPCs with personality, topics and a secret; want at least 4", npcs)
	}
	if l := c.Locations["clifftop"]; len(l.Exits) != 3 || !l.Exits[2].Hidden || l.Discoverables[0].Exit != "cave" {
		t.Errorf("clifftop: %+v", l)
	}
	if strings.Contains(c.Locations["quay"].Description, "\n") {
		t.Error("prose should be unwrapped")
	}
	for _, f := range c.Facts {
		if f.ID == "lore-rooks_crew" && f.Visibility != access.GM {
			t.Errorf("GM lore has visibility %v", f.Visibility)
		}
	}
}

func TestNewStateSaltmere(t *testing.T) {
	c, err := Load(context.Background(), saltmere)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.NewState()
	if err != nil {
		t.Fatal(err)
	}
	pc := w.PC()
	switch {
	case w.Player != "kestrel" || pc == nil || pc.Kind != world.PC:
		t.Fatalf("player: %q", w.Player)
	case pc.Location != "quay" || !w.Locations["quay"].Visited:
		t.Errorf("PC at %q", pc.Location)
	case pc.Stats["resolve"] != 3 || pc.Stats["suspicion"] != 10:
		t.Errorf("stat defaults: %v", pc.Stats)
	case w.Characters["maren"].Stats["trust"] != 3:
		t.Errorf("NPC-scoped stat: %v", w.Characters["maren"].Stats)
	case w.Time != 21*world.Hour || w.Scene.Title != "Fog on the quay" || w.Scene.Number != 1:
		t.Errorf("time %v scene %+v", w.Time, w.Scene)
	case w.Characters["rook"].MaxHP != 11:
		t.Errorf("max HP defaults to hit points: %d", w.Characters["rook"].MaxHP)
	}
	for id, l := range w.Locations {
		for _, e := range l.Exits {
			if w.Locations[e.To] == nil {
				t.Errorf("%s: exit to missing %s", id, e.To)
			}
		}
	}
	// Building the state leaves the campaign as loaded...
	if k := c.Characters["kestrel"]; k.Location != "" || k.Stats != nil || c.Locations["quay"].Visited {
		t.Errorf("NewState changed the campaign: kestrel at %q with stats %v", k.Location, k.Stats)
	}
	// ...and the state shares nothing with it.
	pc.Inventory["short_sword"] = 99
	if c.Characters["kestrel"].Inventory["short_sword"] != 1 {
		t.Error("NewState shares memory with the campaign")
	}
}

// writeCampaign writes files (path → content) under a temporary directory.
func writeCampaign(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// minimal is a valid campaign that tests break one piece at a time.
func minimal() map[string]string {
	return map[string]string{
		"campaign.yml":      "title: Mini\nversion: 1.0.0\nplayer: hero\nstart:\n  location: hall\n",
		"location_hall.md":  "---\nentity_type: location\nexits:\n  - {to: yard, direction: north}\n---\nA hall.\n",
		"location_yard.md":  "---\nname: The Yard\nexits:\n  - {to: hall, direction: south}\n---\nA yard.\n",
		"character_hero.md": "---\nentity_type: player_character\nhit_points: 10\n---\nOur hero.\n",
		"npcs/ann.md":       "---\nlocation: hall\ngreeting: Hi.\n---\nAnn.\n",
		"items/rope.json":   `{"id": "rope", "label": "Rope"}`,
		"README.md":         "Not content.",
	}
}

func TestMinimalAndInference(t *testing.T) {
	c, err := Load(context.Background(), writeCampaign(t, minimal()))
	if err != nil {
		t.Fatal(err)
	}
	if c.Locations["yard"].Name != "The Yard" || c.Locations["hall"].Name != "Hall" {
		t.Errorf("names: %q %q", c.Locations["yard"].Name, c.Locations["hall"].Name)
	}
	if ann := c.Characters["ann"]; ann == nil || ann.Kind != world.NPC || ann.Description != "Ann." {
		t.Errorf("ann inferred from npcs/: %+v", ann)
	}
	if c.Characters["hero"].Kind != world.PC || c.Characters["hero"].MaxHP != 10 {
		t.Errorf("hero: %+v", c.Characters["hero"])
	}
}

func TestLoadErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name  string
		edit  map[string]string
		wants []string
	}{
		{"unknown exit", map[string]string{"location_hall.md": "---\nentity_type: location\nexits:\n  - {to: cellar}\n---\nA hall.\n"},
			[]string{`location_hall.md:3: location "cellar" does not exist; known locations: hall, yard`}},
		{"unknown item", map[string]string{"npcs/ann.md": "---\nlocation: hall\ninventory: {sword: 1}\n---\nAnn.\n"},
			[]string{`npcs/ann.md:3: item "sword" does not exist; known items: rope`}},
		{"npc nowhere", map[string]string{"npcs/ann.md": "---\nlocation: attic\n---\nAnn.\n"},
			[]string{`npcs/ann.md:2: location "attic" does not exist`}},
		{"wrong type", map[string]string{"npcs/ann.md": "---\nlocation: hall\nhit_points: lots\n---\nAnn.\n"},
			[]string{`npcs/ann.md:3: hit_points should be a number, not string`}},
		{"duplicate id", map[string]string{"npc_ann.md": "---\nlocation: hall\n---\nAnother Ann.\n"},
			[]string{`character "ann" is defined twice; the other is at`}},
		{"bad yaml", map[string]string{"location_yard.md": "---\nname: [unclosed\n---\nA yard.\n"},
			[]string{"location_yard.md:"}},
		{"unclosed frontmatter", map[string]string{"location_yard.md": "---\nname: Yard\nA yard.\n"},
			[]string{"location_yard.md:1: frontmatter opened with --- is never closed"}},
		{"missing title", map[string]string{"campaign.yml": "version: 1\nplayer: hero\nstart: {location: hall}\n"},
			[]string{"campaign.yml: title is required"}},
		{"bad start", map[string]string{"campaign.yml": "title: M\nversion: 1\nplayer: hero\nstart: {location: moon}\n"},
			[]string{`start.location "moon" does not exist`}},
		{"bad system", map[string]string{"campaign.yml": "title: M\nversion: 1\nsystem: gurps\nplayer: hero\nstart: {location: hall}\n"},
			[]string{`campaign.yml:3: system "gurps": use d20, 2d6 or traveller`}},
		{"stat default outside range", map[string]string{"stats/luck.json": `{"range": {"min": 0, "max": 5}, "default": 9}`},
			[]string{`stats/luck.json:1: stat "luck": default 9 is outside its range 0..5`}},
		{"stat without range", map[string]string{"stats/luck.json": `{"id": "luck"}`},
			[]string{`stat "luck" needs a range`}},
		{"consequence with a bad intent", map[string]string{"consequence_x.md": "---\ntrigger: x\non: talk\ntarget: ann\nthen:\n  - {type: fly}\n---\nBoom.\n"},
			[]string{`consequence_x.md:5: then[0]: unknown intent "fly"`}},
		{"aliases refused", map[string]string{"location_yard.md": "---\nname: &n Yard\naliases: [*n]\n---\nA yard.\n"},
			[]string{"aliases (*n) are not allowed"}},
		{"several at once", map[string]string{"npcs/ann.md": "---\nlocation: attic\ninventory: {sword: 1}\n---\nAnn.\n"},
			[]string{`location "attic"`, `item "sword"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := minimal()
			for k, v := range tt.edit {
				files[k] = v
			}
			_, err := Load(context.Background(), writeCampaign(t, files))
			if err == nil {
				t.Fatal("loaded a broken campaign")
			}
			for _, want := range tt.wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error:\n%v\nwant it to contain %q", err, want)
				}
			}
		})
	}
}

func TestPathsStayInside(t *testing.T) {
	files := minimal()
	dir := writeCampaign(t, files)
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("---\nentity_type: lore\n---\nsecret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "lore_leak.md")); err != nil {
		t.Skip("no symlinks here")
	}
	_, err := Load(context.Background(), dir)
	if err == nil || !strings.Contains(err.Error(), "lore_leak.md: symbolic link points outside the campaign") {
		t.Errorf("symlink out: %v", err)
	}
}

func TestOversizedFile(t *testing.T) {
	files := minimal()
	files["lore_big.md"] = strings.Repeat("x", pack.MaxFileSize+1)
	_, err := Load(context.Background(), writeCampaign(t, files))
	if err == nil || !strings.Contains(err.Error(), "lore_big.md: file is over") {
		t.Errorf("oversized: %v", err)
	}
}

func TestNotADirectory(t *testing.T) {
	if _, err := Load(context.Background(), "content_test.go"); err == nil {
		t.Error("loaded a file as a campaign")
	}
	_, err := Load(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "campaign.yml: missing") {
		t.Errorf("empty dir: %v", err)
	}
}

func TestParseFrontmatter(t *testing.T) {
	tests := []struct {
		name, in string
		keys     int
		bodyLine int
		body     string
		err      string
	}{
		{"none", "Just prose.\n", 0, 1, "Just prose.\n", ""},
		{"simple", "---\na: 1\nb: two\n---\nBody.\n", 2, 5, "Body.\n", ""},
		{"crlf", "---\r\na: 1\r\n---\r\nBody.\r\n", 1, 4, "Body.\r\n", ""},
		{"bom", "\xef\xbb\xbf---\na: 1\n---\nB", 1, 4, "B", ""},
		{"empty", "---\n---\nB", 0, 3, "B", ""},
		{"trailing spaces on fences", "---  \na: 1\n--- \nB", 1, 4, "B", ""},
		{"unclosed", "---\na: 1\n", 0, 0, "", "never closed"},
		{"not a mapping", "---\n- a\n- b\n---\n", 0, 0, "", "line 2: frontmatter must be a mapping"},
		{"bad yaml line", "---\na: 1\nb: [\n---\n", 0, 0, "", "line "},
	}
	for _, tt := range tests {
		fm, body, line, err := pack.ParseFrontmatter([]byte(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if len(fm.Values) != tt.keys || line != tt.bodyLine || string(body) != tt.body {
			t.Errorf("%s: %d keys, body line %d %q; want %d, %d %q", tt.name, len(fm.Values), line, body, tt.keys, tt.bodyLine, tt.body)
		}
	}
	fm, _, _, _ := pack.ParseFrontmatter([]byte("---\nname: x\n\nexits:\n  - a\n---\n"))
	if fm.Lines["exits"] != 4 || fm.Lines["name"] != 2 {
		t.Errorf("key lines: %v", fm.Lines)
	}
}

func BenchmarkLoadSaltmere(b *testing.B) {
	for range b.N {
		if _, err := Load(context.Background(), saltmere); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLoadFSMatchesLoad(t *testing.T) {
	a, err := Load(context.Background(), saltmere)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadFS(context.Background(), os.DirFS(".."), "campaigns/saltmere")
	if err != nil {
		t.Fatal(err)
	}
	wa, _ := a.NewState()
	wb, _ := b.NewState()
	ja, _ := json.Marshal(wa)
	jb, _ := json.Marshal(wb)
	if string(ja) != string(jb) {
		t.Error("the same campaign loads differently from a file system")
	}
	if _, err := LoadFS(context.Background(), os.DirFS(".."), "campaigns/nowhere"); err == nil {
		t.Error("a missing directory loaded")
	}
}
