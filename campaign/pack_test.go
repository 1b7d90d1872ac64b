package campaign

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/pack"
	"github.com/hearth-rpg/hearth/world"
)

const (
	bestiary = "testdata/packs/bestiary"
	homebrew = "testdata/packs/homebrew"
	warren   = "testdata/packs/warren"
)

func loadPack(t testing.TB, path string) *Pack {
	t.Helper()
	p, err := LoadPack(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// packFiles is a small valid pack that tests change one file at a time.
func packFiles() map[string]string {
	return map[string]string{
		"pack.yml":             "id: moors\nname: The Moors\nversion: 1.0.0\nlicense: CC0-1.0\n",
		"locations/heath.md":   "---\nentity_type: location\nname: Blasted Heath\n---\nWind and heather.\n",
		"npcs/crone.md":        "---\nlocation: heath\n---\nAn old woman.\n",
		"Chapters/History.md":  "# History\n\nLong ago.\n",
		"items/staff.yml":      "label: Staff\ntype: weapon\ndamage: 1d6\n",
		"stat_luck.yml":        "entity_type: stat\ndisplay_name: Luck\nrange: {min: 0, max: 10}\nstarting_value: 5\nvisible: false\n",
		"npc_witch_secret.txt": "---\nentity_type: npc\nentity_id: witch\nlocation: heath\n---\nShe was never here.\n",
	}
}

func TestInference(t *testing.T) {
	p := loadPack(t, writeCampaign(t, packFiles()))
	tests := []struct {
		file, kind, id, content string
	}{
		{"locations/heath.md", "location", "heath", "location"},
		{"npcs/crone.md", "npc", "crone", "npc"},           // the folder tells, since the file has frontmatter
		{"Chapters/History.md", "", "History", "chapter"},  // a pack's plain prose is text, typed by its folder
		{"items/staff.yml", "item", "staff", "item"},       // structured, id from the name
		{"stat_luck.yml", "stat", "luck", "stat"},          // seed 001 §6.2.5's stat form
		{"npc_witch_secret.txt", "npc", "witch", "secret"}, // frontmatter id; the name's aspect gives the content type
	}
	for _, tt := range tests {
		i := slices.IndexFunc(p.Files, func(f File) bool { return f.Path == tt.file })
		if i < 0 {
			t.Errorf("%s: not loaded", tt.file)
			continue
		}
		f := p.Files[i]
		if f.EntityType != tt.kind || (tt.kind != "" && f.EntityID != tt.id) || f.ContentType != tt.content {
			t.Errorf("%s: type %q id %q content %q; want %q %q %q", tt.file, f.EntityType, f.EntityID, f.ContentType, tt.kind, tt.id, tt.content)
		}
	}
	if d := p.Content.Stats["luck"]; d == nil || d.Label != "Luck" || d.Default != 5 || !d.Hidden {
		t.Errorf("stat_luck.yml: %+v", d)
	}
	if p.Content.Characters["crone"] == nil || p.Content.Characters["witch"] == nil {
		t.Error("characters from npcs/ and npc_ not loaded")
	}
	// In a campaign, a folder alone makes an entity (as it always has).
	c, err := Load(context.Background(), writeCampaign(t, minimal()))
	if err != nil || c.Characters["ann"] == nil {
		t.Errorf("campaign npcs/ann.md: %v", err)
	}
}

func TestManifest(t *testing.T) {
	tests := []struct {
		name, file, in string
		want           func(pack.Manifest) bool
		problems       []string // substrings, in order of appearance; "" means none
	}{
		{"full", "pack.yml", "id: srd51\nname: SRD\nversion: 5.1.0\nlicense: CC-BY-4.0\nlayer: base\naccess: trusted\nrequires: [core, \"maps >=1.2, <2\", {id: dice, version: ^1}]\ntags: [rules]\nsystem: d20\n",
			func(m pack.Manifest) bool {
				return m.ID == "srd51" && m.Access == access.Trusted && len(m.Requires) == 3 && m.Requires[1].String() == "maps >=1.2, <2" &&
					m.Layer == pack.Base && !m.Campaign
			}, nil},
		{"json", "manifest.json", `{"id": "x", "version": "1.0.0", "license": "MIT", "layer": "homebrew"}`,
			func(m pack.Manifest) bool { return m.ID == "x" && m.Layer == pack.Homebrew }, nil},
		{"missing id", "pack.yml", "name: My Pack\nversion: 1.0.0\nlicense: MIT\n", nil,
			[]string{"pack.yml:1: id is required: a short name that namespaces the pack's entities, e.g. id: my_pack"}},
		{"bad id", "pack.yml", "id: My Pack\nversion: 1.0.0\nlicense: MIT\n", nil,
			[]string{`pack.yml:1: id "My Pack": use lower-case letters, digits, _ and -`}},
		{"bad version", "pack.yml", "id: x\nlicense: MIT\nversion: one\n", nil,
			[]string{`pack.yml:3: version "one": write major.minor.patch`}},
		{"bad layer and access", "pack.yml", "id: x\nversion: 1.0.0\nlicense: MIT\nlayer: top\naccess: everyone\n", nil,
			[]string{`pack.yml:4: layer "top": use base, supplement or homebrew`, `pack.yml:5: unknown access level "everyone"`}},
		{"bad requirement", "pack.yml", "id: x\nversion: 1.0.0\nlicense: MIT\nrequires:\n  - \"core >> 2\"\n", nil,
			[]string{`pack.yml:5: version constraint ">> 2"`}},
		{"requires itself", "pack.yml", "id: x\nversion: 1.0.0\nlicense: MIT\nrequires: [x]\n", nil,
			[]string{`pack.yml:4: the pack requires itself`}},
		{"warnings", "pack.yml", "id: x\nversion: 1.0.0\nlicence: MIT\n", nil,
			[]string{`pack.yml:3: unknown key "licence" is ignored`, "pack.yml:1: no license"}},
		{"wrong type", "pack.yml", "id: x\nversion: 1.0.0\nlicense: MIT\ntags: {a: b}\n", nil,
			[]string{"pack.yml:4: cannot unmarshal"}},
		{"campaign", "campaign.yml", "title: The Lantern of Saltmere\nversion: 1.0.0\npacks: [srd51]\n",
			func(m pack.Manifest) bool {
				return m.ID == "the_lantern_of_saltmere" && m.Campaign && m.Name == "The Lantern of Saltmere" && m.Requires[0].ID == "srd51"
			}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, probs := pack.ParseManifest(tt.file, []byte(tt.in))
			var got []string
			for _, p := range probs {
				got = append(got, p.Error())
			}
			if len(tt.problems) != len(got) {
				t.Fatalf("problems %q, want %q", got, tt.problems)
			}
			for i, want := range tt.problems {
				if !strings.HasPrefix(got[i], want) {
					t.Errorf("problem %q, want it to start %q", got[i], want)
				}
			}
			if tt.want != nil && !tt.want(m) {
				t.Errorf("manifest %+v", m)
			}
		})
	}
}

func TestVersionConstraints(t *testing.T) {
	tests := []struct {
		constraint, version string
		ok                  bool
	}{
		{"", "0.1.0", true},
		{">=1.2", "1.2.0", true},
		{">=1.2, <2", "2.0.0", false},
		{">= 1.2 < 2", "1.9.9", true},
		{"^1.2", "1.9.0", true},
		{"^1.2", "2.0.0", false},
		{"^0.3", "0.3.5", true},
		{"^0.3", "0.4.0", false},
		{"~1.2", "1.2.9", true},
		{"~1.2", "1.3.0", false},
		{"1.x", "1.7.0", true},
		{"1.x", "2.0.0", false},
		{"=1.0.0", "1.0.0-beta", false},
		{"<1.0.0", "1.0.0-beta", true},
		{"!=5.1", "5.1.0", false},
		{"*", "9.9.9", true},
	}
	for _, tt := range tests {
		c, err := pack.ParseConstraint(tt.constraint)
		if err != nil {
			t.Errorf("%q: %v", tt.constraint, err)
			continue
		}
		v, err := pack.ParseVersion(tt.version)
		if err != nil {
			t.Fatal(err)
		}
		if c.Allows(v) != tt.ok {
			t.Errorf("%q allows %s: %v, want %v", tt.constraint, tt.version, !tt.ok, tt.ok)
		}
	}
	for _, bad := range []string{"=> 1", "^x", "1.2.3.4", "01.2"} {
		if _, err := pack.ParseConstraint(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestLayering(t *testing.T) {
	base, brew := loadPack(t, bestiary), loadPack(t, homebrew)
	lib, err := Layer(brew, base) // given out of order: layers sort them
	if err != nil {
		t.Fatal(err)
	}
	if lib.Packs[0] != base || lib.Packs[1] != brew {
		t.Errorf("order: %s, %s", lib.Packs[0].Manifest.ID, lib.Packs[1].Manifest.ID)
	}
	g, ok := lib.Entity("character", "bestiary:goblin")
	if !ok || g.Pack != "homebrew" || g.Overrides != "bestiary:goblin" || g.Value.(*world.Character).HP != 11 {
		t.Errorf("bestiary:goblin should be homebrew's: %+v", g)
	}
	if own, _ := lib.Entity("character", "homebrew:goblin"); own.Value != g.Value {
		t.Error("the overriding goblin should answer to its own id too")
	}
	hob, _ := lib.Entity("character", "homebrew:hobgoblin")
	if inv := hob.Value.(*world.Character).Inventory; inv["bestiary:scimitar"] != 1 {
		t.Errorf("references stay namespaced: %v", inv)
	}
	if base.Content.Characters["goblin"].HP != 7 {
		t.Error("layering changed the base pack")
	}

	// Failures, each with a message naming what and where.
	dir := func(files map[string]string) *Pack {
		p, err := readPack(context.Background(), writeCampaign(t, files))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name  string
		packs func() []*Pack
		want  []string
	}{
		{"duplicate without overrides", func() []*Pack {
			return []*Pack{base, dir(map[string]string{
				"pack.yml":  "id: rival\nversion: 1.0.0\nlicense: MIT\nlayer: supplement\n",
				"goblin.md": "---\nentity_type: creature\nentity_id: bestiary:goblin\nhit_points: 5\n---\nAnother goblin.\n",
			})}
		}, []string{`rival/goblin.md:1: character "bestiary:goblin" is also defined in bestiary/creatures/goblin.md:1; give one another id, or say overrides: bestiary:goblin`}},
		{"override of nothing", func() []*Pack {
			return []*Pack{base, dir(map[string]string{
				"pack.yml": "id: rival\nversion: 1.0.0\nlicense: MIT\nlayer: homebrew\n",
				"orc.md":   "---\nentity_type: creature\noverrides: bestiary:orc\nhit_points: 5\n---\nAn orc.\n",
			})}
		}, []string{`rival/orc.md:3: overrides character "bestiary:orc", which no earlier pack defines; known: bestiary:goblin`}},
		{"missing requirement", func() []*Pack { return []*Pack{brew} },
			[]string{`homebrew/pack.yml: requires pack "bestiary", which is not loaded (loaded: homebrew)`}},
		{"version mismatch", func() []*Pack {
			return []*Pack{base, dir(map[string]string{"pack.yml": "id: late\nversion: 1.0.0\nlicense: MIT\nrequires: [bestiary ^2]\n"})}
		}, []string{`late/pack.yml: requires bestiary ^2, but bestiary is version 1.2.0`}},
		{"two packs, one id", func() []*Pack { return []*Pack{base, base} }, []string{`pack id "bestiary" is also the id of testdata/packs/bestiary`}},
		{"a campaign", func() []*Pack { return []*Pack{loadPack(t, saltmere)} }, []string{"is a campaign"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Layer(tt.packs()...)
			if err == nil {
				t.Fatal("layered")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant %q", err, w)
				}
			}
		})
	}
}

func TestNamespacing(t *testing.T) {
	p := loadPack(t, bestiary)
	if p.NamespacedID("goblin") != "bestiary:goblin" || p.NamespacedID("other:x") != "other:x" {
		t.Error("NamespacedID")
	}
	// A pack may reach into the packs it requires, and nowhere else.
	files := packFiles()
	files["pack.yml"] += "requires: [bestiary]\n"
	files["npcs/crone.md"] = "---\nlocation: heath\ninventory: {bestiary:scimitar: 1}\n---\nAn old woman.\n"
	files["npcs/hag.md"] = "---\nlocation: heath\ninventory: {arsenal:axe: 1}\n---\nAnother.\n"
	q, err := readPack(context.Background(), writeCampaign(t, files))
	if err != nil {
		t.Fatal(err)
	}
	errs := pack.Problems(q.Problems).Errors()
	if len(errs) != 1 || errs[0].Error() != `npcs/hag.md:3: item "arsenal:axe" is in pack "arsenal", which is not named in requires; add it there` {
		t.Errorf("problems: %v", errs)
	}
	if len(q.Content.external) != 1 || q.Content.external[0].id != "bestiary:scimitar" {
		t.Errorf("external: %+v", q.Content.external)
	}
}

func TestScenario(t *testing.T) {
	ctx := context.Background()
	c, err := Load(ctx, warren)
	if err != nil {
		t.Fatal(err)
	}
	base, brew := loadPack(t, bestiary), loadPack(t, homebrew)
	s, err := NewScenario(c, base, brew)
	if err != nil {
		t.Fatal(err)
	}
	// Campaign first, then the packs, homebrew before base.
	if e, ok := s.Resolve("item", "lamp"); !ok || e.Pack != "the_warren" {
		t.Errorf("lamp: %+v", e)
	}
	if e, ok := s.Resolve("item", "scimitar"); !ok || e.ID != "bestiary:scimitar" {
		t.Errorf("scimitar: %+v", e)
	}
	if e, ok := s.Resolve("character", "goblin"); !ok || e.Pack != "homebrew" {
		t.Errorf("goblin should be homebrew's (its own, and the override): %+v", e)
	}
	w, err := s.NewState()
	if err != nil {
		t.Fatal(err)
	}
	ash := w.Characters["ash"]
	if ash.Inventory["bestiary:scimitar"] != 1 || ash.Inventory["lamp"] != 1 || ash.Inventory["scimitar"] != 0 {
		t.Errorf("a plain id should be rewritten to the pack's: %v", ash.Inventory)
	}
	if g := w.Characters["bestiary:goblin"]; g == nil || g.HP != 11 || g.ID != "bestiary:goblin" {
		t.Errorf("bestiary:goblin (overridden by homebrew): %+v", g)
	}
	if w.Characters["homebrew:hobgoblin"] == nil || w.Items["bestiary:scimitar"] == nil {
		t.Error("the hobgoblin and the scimitar it carries should be in the state")
	}
	if enc := w.Locations["burrow"].Encounter.Creatures; !reflect.DeepEqual(enc, []string{"bestiary:goblin", "homebrew:hobgoblin"}) {
		t.Errorf("encounter: %v", enc)
	}
	if c.Characters["ash"].Inventory["scimitar"] != 1 || base.Content.Characters["goblin"].HP != 7 {
		t.Error("NewState changed the campaign or a pack")
	}
	j1, _ := json.Marshal(w)
	w2, _ := s.NewState()
	if j2, _ := json.Marshal(w2); string(j1) != string(j2) {
		t.Error("NewState is not deterministic")
	}

	if _, err := c.NewState(); err == nil || !strings.Contains(err.Error(), "which were not loaded with it") {
		t.Errorf("a campaign that uses packs' entities cannot be played alone: %v", err)
	}
	if _, err := NewScenario(c, base); err == nil || !strings.Contains(err.Error(), `requires pack "homebrew", which is not loaded`) {
		t.Errorf("missing pack: %v", err)
	}
	files := map[string]string{}
	for _, n := range []string{"campaign.yml", "character_ash.md", "location_burrow.md", "location_gate.md", "items/lamp.json"} {
		b, _ := os.ReadFile(filepath.Join(warren, n))
		files[n] = string(b)
	}
	// scenario.yml is campaign.yml's other name.
	files["scenario.yml"] = files["campaign.yml"]
	delete(files, "campaign.yml")
	sc := loadPack(t, writeCampaign(t, files))
	if !sc.IsCampaign() || sc.Manifest.File != "scenario.yml" || len(sc.Content.Meta.Packs) != 2 {
		t.Errorf("scenario.yml: %+v", sc.Manifest)
	}
	files["location_gate.md"] = "---\nname: The Gate\nexits:\n  - {to: burrow}\nitems: {dragon_egg: 1}\n---\nA gate.\n"
	c2, err := Load(ctx, writeCampaign(t, files))
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewScenario(c2, base, brew)
	if err == nil || !strings.Contains(err.Error(), `location_gate.md:5: item "dragon_egg" is not in the campaign nor in its packs (homebrew, bestiary)`) {
		t.Errorf("unresolved: %v", err)
	}
}

// A campaign bound to its packs starts every game through its scenario,
// with a party of recruits too; bound to too few, it is refused.
func TestBindPacks(t *testing.T) {
	ctx := context.Background()
	c, err := Load(ctx, warren)
	if err != nil {
		t.Fatal(err)
	}
	if !c.UsesPackEntities() {
		t.Fatal("the warren uses the bestiary's goblin and scimitar")
	}
	for _, start := range []func() (*world.State, error){
		c.NewState,
		func() (*world.State, error) { return c.NewStateWithParty([]Recruit{recruit("ch_1")}) },
	} {
		if _, err := start(); err == nil || !strings.Contains(err.Error(), `e.g. character "bestiary:goblin"), which were not loaded with it`) {
			t.Errorf("unbound: %v", err)
		}
	}
	base, brew := loadPack(t, bestiary), loadPack(t, homebrew)
	if err := c.BindPacks(base); err == nil || !strings.Contains(err.Error(), `requires pack "homebrew", which is not loaded`) {
		t.Errorf("bound to too few packs: %v", err)
	}
	if err := c.BindPacks(base, brew); err != nil {
		t.Fatal(err)
	}
	w, err := c.NewState()
	if err != nil {
		t.Fatal(err)
	}
	if w.Characters["bestiary:goblin"] == nil || w.Characters["ash"].Inventory["bestiary:scimitar"] != 1 || w.Player != "ash" {
		t.Errorf("bound: the goblin %v, ash's inventory %v, player %q", w.Characters["bestiary:goblin"], w.Characters["ash"].Inventory, w.Player)
	}
	w, err = c.NewStateWithParty([]Recruit{recruit("ch_1")})
	if err != nil {
		t.Fatal(err)
	}
	if w.Player != "ch_1" || w.Characters["ash"] != nil || w.Characters["homebrew:hobgoblin"] == nil {
		t.Errorf("bound, with a party: player %q, ash %v, hobgoblin %v", w.Player, w.Characters["ash"], w.Characters["homebrew:hobgoblin"])
	}
	if enc := w.Locations["burrow"].Encounter.Creatures; !reflect.DeepEqual(enc, []string{"bestiary:goblin", "homebrew:hobgoblin"}) {
		t.Errorf("bound, with a party: encounter %v", enc)
	}
}

// recruit is a one-line AI recruit.
func recruit(id string) Recruit {
	return Recruit{Sheet: &world.Character{ID: id, Name: id, Kind: world.PC, Sheet: world.Sheet{Class: "fighter", HP: 9, MaxHP: 9}},
		Controller: world.Controller{Kind: world.ControllerAI}}
}

func TestManifestFilesMerge(t *testing.T) {
	// A Narratoria campaign may keep a manifest.json beside campaign.yml.
	files := minimal()
	files["manifest.json"] = `{"id": "mini", "version": "1.0.0", "layer": "homebrew", "ui_customization": {"state_icons": {"enabled": true}}}`
	p := loadPack(t, writeCampaign(t, files))
	if p.Manifest.ID != "mini" || !p.IsCampaign() || p.Manifest.File != "campaign.yml" || p.Manifest.Layer != pack.Homebrew {
		t.Errorf("merged manifest: %+v", p.Manifest)
	}
	files["manifest.json"] = `{"id": "other", "version": "2.0.0"}`
	files["campaign.yml"] = "id: mini\n" + files["campaign.yml"]
	_, got := problemsOf(t, files)
	for _, w := range []string{
		`error manifest.json:1: id "other" differs from "mini" in campaign.yml; a pack has one id`,
		"error manifest.json:1: version 2.0.0 differs from 1.0.0 in campaign.yml; a pack has one version",
	} {
		if !slices.Contains(got, w) {
			t.Errorf("problems %q\nwant %q", got, w)
		}
	}
	files = packFiles()
	delete(files, "pack.yml")
	_, got = problemsOf(t, files)
	if len(got) == 0 || !strings.HasPrefix(got[0], "error pack.yml: missing: a pack needs a pack.yml") {
		t.Errorf("no manifest: %q", got)
	}
}
